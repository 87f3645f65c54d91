// Runs the Crusoe emulator on its own msw server with a virtual clock, fault injection and an inventory, and
// adapts it to the conformance suite. `Sandbox` runs the same emulator beside the other clouds.
import { interceptHttp } from '../intercept.js';
import { VirtualClock, seededRandom } from '@kubeplane/sdk';
import type { ConformanceSandbox, FaultKind, FaultTarget } from '@kubeplane/sdk/conformance';
import type { SandboxContext } from '../context.js';
import { FaultInjector } from '../faults.js';
import { refuseUnserved } from '../sealed.js';
import { SANDBOX_CREDENTIALS } from '../accounts.js';
import { CRUSOE_CLOUD, CrusoeEmulator, type CrusoeEmulatorOptions, type CrusoeInventoryItem } from './emulator.js';

export { SANDBOX_SSH_PUBLIC_KEY } from '../accounts.js';

/** Fake credentials the Crusoe sandbox accepts (treated as secrets all the same): the Sandbox's (SANDBOX_CREDENTIALS). */
export const CRUSOE_SANDBOX_CREDENTIALS = {
  accessKeyId: SANDBOX_CREDENTIALS.crusoeAccessKeyId,
  /** Unpadded base64url, as Crusoe issues secret keys. */
  secretKey: SANDBOX_CREDENTIALS.crusoeSecretKey,
  projectId: SANDBOX_CREDENTIALS.crusoeProjectId,
} as const;

const WIRE: Record<Exclude<FaultTarget, 'any'>, string> = {
  'create-node': 'POST /compute/vms/instances',
  'list-nodes': 'GET /compute/vms/instances',
  'delete-node': 'DELETE /compute/vms/instances/{id}',
};

export interface CrusoeSandboxOptions {
  seed?: number;
  clock?: VirtualClock;
  emulator?: Partial<CrusoeEmulatorOptions>;
}

export class CrusoeSandbox implements ConformanceSandbox {
  readonly clock: VirtualClock;
  readonly context: SandboxContext;
  readonly faults: FaultInjector;
  readonly emulator: CrusoeEmulator;
  readonly #server: ReturnType<typeof interceptHttp>;

  constructor(options: CrusoeSandboxOptions = {}) {
    this.clock = options.clock ?? new VirtualClock();
    const random = seededRandom(options.seed ?? 1);
    this.faults = new FaultInjector(random);
    this.context = { clock: this.clock, random, faults: this.faults, calls: new Map() };
    this.emulator = new CrusoeEmulator(this.context, {
      keys: { [CRUSOE_SANDBOX_CREDENTIALS.accessKeyId]: CRUSOE_SANDBOX_CREDENTIALS.secretKey },
      projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
      ...options.emulator,
    });
    this.#server = interceptHttp(...this.emulator.handlers());
    // Sealed as the Sandbox is: anything else fails at once, naming its host and path.
    this.#server.listen({ onUnhandledRequest: refuseUnserved() });
  }

  injectFault(target: FaultTarget, kind: FaultKind, times = 1): void {
    this.faults.add({ cloud: CRUSOE_CLOUD, operation: target === 'any' ? '*' : WIRE[target], kind, times });
  }

  /** Inject a fault on any wire operation (`POST /kubernetes/nodepools`, …). */
  injectWireFault(operation: string, kind: FaultKind, times = 1): void {
    this.faults.add({ cloud: CRUSOE_CLOUD, operation, kind, times });
  }

  inventory(): CrusoeInventoryItem[] {
    return this.emulator.inventory();
  }

  liveResources(clusterId: string): Array<{ kind: string; id: string; name?: string }> {
    return this.inventory()
      .filter((i) => i.owner === clusterId || i.owner.startsWith(`${clusterId}-`))
      .map((i) => ({ kind: i.kind, id: i.id, ...(i.name !== undefined ? { name: i.name } : {}) }));
  }

  inventoryDump(): string {
    return JSON.stringify(this.inventory());
  }

  requestCount(): number {
    let total = 0;
    for (const [key, n] of this.context.calls) if (key.startsWith(`${CRUSOE_CLOUD} `)) total += n;
    return total;
  }

  stop(): void {
    this.#server.close();
  }
}
