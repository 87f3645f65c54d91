// Runs the Crusoe emulator on its own msw server with a virtual clock, fault injection and an inventory, and
// adapts it to the conformance suite. (Sandbox registration of the emulator is the sandbox owner's; see docs.)
import { setupServer } from 'msw/node';
import { VirtualClock, seededRandom } from '@kubeplane/sdk';
import type { ConformanceSandbox, FaultKind, FaultTarget } from '@kubeplane/sdk/conformance';
import type { SandboxContext } from '../context.js';
import { FaultInjector, type CloudName } from '../faults.js';
import { CRUSOE_CLOUD, CrusoeEmulator, type CrusoeEmulatorOptions, type CrusoeInventoryItem } from './emulator.js';

/** Fake credentials the Crusoe sandbox accepts (treated as secrets all the same). */
export const CRUSOE_SANDBOX_CREDENTIALS = {
  accessKeyId: 'CRUSOESANDBOXKEY0001',
  /** Unpadded base64url, as Crusoe issues secret keys. */
  secretKey: Buffer.from('sandbox-crusoe-secret-key-2f9e4b7c1d3a').toString('base64url'),
  projectId: 'a1b2c3d4-0000-4000-8000-00000000c0de',
} as const;

export const SANDBOX_SSH_PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3eC6F8mgbVf1kEXnBFqQyrm0Ae4jMX0lCezHzDdJ3X kubeplane-sandbox';

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
  readonly #server: ReturnType<typeof setupServer>;

  constructor(options: CrusoeSandboxOptions = {}) {
    this.clock = options.clock ?? new VirtualClock();
    const random = seededRandom(options.seed ?? 1);
    this.faults = new FaultInjector(random);
    this.context = { clock: this.clock, random, faults: this.faults, calls: new Map() };
    this.emulator = new CrusoeEmulator(this.context, { keys: { [CRUSOE_SANDBOX_CREDENTIALS.accessKeyId]: CRUSOE_SANDBOX_CREDENTIALS.secretKey }, projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId, ...options.emulator });
    this.#server = setupServer(...this.emulator.handlers());
    this.#server.listen({ onUnhandledRequest: 'error' });
  }

  injectFault(target: FaultTarget, kind: FaultKind, times = 1): void {
    this.faults.add({ cloud: CRUSOE_CLOUD as string as CloudName, operation: target === 'any' ? '*' : WIRE[target], kind, times });
  }

  /** Inject a fault on any wire operation (`POST /kubernetes/nodepools`, …). */
  injectWireFault(operation: string, kind: FaultKind, times = 1): void {
    this.faults.add({ cloud: CRUSOE_CLOUD as string as CloudName, operation, kind, times });
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
