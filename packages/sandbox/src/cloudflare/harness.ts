// The conformance harness (conformanceHarness) for Cloudflare, as the Cloudflare tests know it: a listening Sandbox
// whose Cloudflare account (owning only its own zone) they drive, with a virtual clock, faults and an inventory.
import type { VirtualClock } from '@kubeplane/sdk/provider';
import type { ConformanceSandbox, FaultKind, FaultTarget } from '@kubeplane/sdk/conformance';
import { SANDBOX_CLOUDFLARE_ZONE, SANDBOX_CREDENTIALS } from '../accounts.js';
import { type ConformanceHarness, conformanceHarness } from '../conformance-harness.js';
import type { SandboxContext } from '../context.js';
import type { FaultInjector } from '../faults.js';
import type { Sandbox } from '../sandbox.js';
import { CLOUDFLARE_CLOUD, type CloudflareEmulator, type CloudflareEmulatorOptions, type CloudflareInventoryItem } from './emulator.js';

/** The Sandbox's Cloudflare credentials (SANDBOX_CREDENTIALS) and its own zone, the one this harness serves. */
export const CLOUDFLARE_SANDBOX_CREDENTIALS = {
  apiToken: SANDBOX_CREDENTIALS.cloudflareApiToken,
  accountId: SANDBOX_CREDENTIALS.cloudflareAccountId,
  zone: SANDBOX_CLOUDFLARE_ZONE,
} as const;

/**
 * A CloudflareSandbox's seed, clock, Load Balancing subscription and account options (by default
 * CLOUDFLARE_SANDBOX_CREDENTIALS).
 */
export interface CloudflareSandboxOptions {
  seed?: number;
  clock?: VirtualClock;
  loadBalancing?: boolean;
  emulator?: Partial<CloudflareEmulatorOptions>;
}

/**
 * The conformance suite's harness for Cloudflare: a listening Sandbox (response checks off) whose Cloudflare account
 * the tests drive, with its clock, faults and inventory. Call `stop()` when done.
 */
export class CloudflareSandbox implements ConformanceSandbox {
  readonly sandbox: Sandbox;
  readonly clock: VirtualClock;
  readonly context: SandboxContext;
  readonly faults: FaultInjector;
  readonly emulator: CloudflareEmulator;
  readonly #harness: ConformanceHarness;

  constructor(options: CloudflareSandboxOptions = {}) {
    this.#harness = conformanceHarness('cloudflare', {
      seed: options.seed ?? 1,
      // Unchecked, as when this harness ran the emulator alone: its tests inject faults where the API never sends them.
      conformance: false,
      ...(options.clock ? { clock: options.clock } : {}),
      cloudflare: { zones: [CLOUDFLARE_SANDBOX_CREDENTIALS.zone], loadBalancing: options.loadBalancing ?? true, ...options.emulator },
    });
    this.sandbox = this.#harness.sandbox;
    this.clock = this.sandbox.clock;
    this.context = this.sandbox.context;
    this.faults = this.sandbox.faults;
    this.emulator = this.sandbox.cloudflare;
  }

  /** DNS has no node operations: every target means any Cloudflare call. */
  injectFault(target: FaultTarget, kind: FaultKind, times = 1): void {
    this.#harness.injectFault(target, kind, times);
  }

  /** Fails the next `times` calls of a wire operation (`GET /accounts/{id}/subscriptions`, …, or `*`) with `kind`. */
  injectWireFault(operation: string, kind: FaultKind, times = 1): void {
    this.faults.add({ cloud: CLOUDFLARE_CLOUD, operation, kind, times });
  }

  /** Every live resource of the Cloudflare account (see `CloudflareEmulator.inventory`). */
  inventory(): CloudflareInventoryItem[] {
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
