// The conformance harness (conformanceHarness) for Crusoe, as the Crusoe tests know it: a listening Sandbox whose
// Crusoe project they drive, with a virtual clock, fault injection and an inventory.
import type { VirtualClock } from '@kubeplane/sdk/provider';
import type { ConformanceSandbox, FaultKind, FaultTarget } from '@kubeplane/sdk/conformance';
import { SANDBOX_CREDENTIALS } from '../accounts.js';
import { type ConformanceHarness, conformanceHarness } from '../conformance-harness.js';
import type { SandboxContext } from '../context.js';
import type { FaultInjector } from '../faults.js';
import type { Sandbox } from '../sandbox.js';
import { CRUSOE_CLOUD, type CrusoeEmulator, type CrusoeEmulatorOptions, type CrusoeInventoryItem } from './emulator.js';

export { SANDBOX_SSH_PUBLIC_KEY } from '../accounts.js';

/** Fake credentials the Crusoe sandbox accepts (treated as secrets all the same): the Sandbox's (SANDBOX_CREDENTIALS). */
export const CRUSOE_SANDBOX_CREDENTIALS = {
  accessKeyId: SANDBOX_CREDENTIALS.crusoeAccessKeyId,
  /** Unpadded base64url, as Crusoe issues secret keys. */
  secretKey: SANDBOX_CREDENTIALS.crusoeSecretKey,
  projectId: SANDBOX_CREDENTIALS.crusoeProjectId,
} as const;

/** A CrusoeSandbox's seed, clock and Crusoe project options (by default SANDBOX_CREDENTIALS' keys). */
export interface CrusoeSandboxOptions {
  seed?: number;
  clock?: VirtualClock;
  emulator?: Partial<CrusoeEmulatorOptions>;
}

/**
 * The conformance suite's harness for Crusoe: a listening Sandbox (response checks off) whose Crusoe project the tests
 * drive, with its clock, faults and inventory. Call `stop()` when done.
 */
export class CrusoeSandbox implements ConformanceSandbox {
  readonly sandbox: Sandbox;
  readonly clock: VirtualClock;
  readonly context: SandboxContext;
  readonly faults: FaultInjector;
  readonly emulator: CrusoeEmulator;
  readonly #harness: ConformanceHarness;

  constructor(options: CrusoeSandboxOptions = {}) {
    this.#harness = conformanceHarness('crusoe', {
      seed: options.seed ?? 1,
      // Unchecked, as when this harness ran the emulator alone: its tests inject faults where the API never sends them.
      conformance: false,
      ...(options.clock ? { clock: options.clock } : {}),
      crusoe: options.emulator ?? {},
    });
    this.sandbox = this.#harness.sandbox;
    this.clock = this.sandbox.clock;
    this.context = this.sandbox.context;
    this.faults = this.sandbox.faults;
    this.emulator = this.sandbox.crusoe;
  }

  injectFault(target: FaultTarget, kind: FaultKind, times = 1): void {
    this.#harness.injectFault(target, kind, times);
  }

  /** Inject a fault on any wire operation (`POST /kubernetes/nodepools`, …). */
  injectWireFault(operation: string, kind: FaultKind, times = 1): void {
    this.faults.add({ cloud: CRUSOE_CLOUD, operation, kind, times });
  }

  /** Every live resource of the Crusoe project (see `CrusoeEmulator.inventory`). */
  inventory(): CrusoeInventoryItem[] {
    return this.emulator.inventory();
  }

  liveResources(clusterId: string): Array<{ kind: string; id: string; name?: string }> {
    return this.#harness.liveResources(clusterId);
  }

  inventoryDump(): string {
    return JSON.stringify(this.inventory());
  }

  requestCount(): number {
    return this.#harness.requestCount();
  }

  /** Stops intercepting HTTP at once. */
  stop(): void {
    void this.sandbox.close();
  }
}
