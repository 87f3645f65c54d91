// Runs the Cloudflare emulator on its own msw server, on a virtual clock with faults and an inventory, and
// adapts it to the conformance suite. `Sandbox` runs the same emulator beside the other clouds.
import { interceptHttp } from '../intercept.js';
import { VirtualClock, seededRandom } from '@kubeplane/sdk';
import type { ConformanceSandbox, FaultKind, FaultTarget } from '@kubeplane/sdk/conformance';
import type { SandboxContext } from '../context.js';
import { FaultInjector } from '../faults.js';
import { refuseUnserved } from '../sealed.js';
import { SANDBOX_CLOUDFLARE_ZONE, SANDBOX_CREDENTIALS } from '../accounts.js';
import { CLOUDFLARE_CLOUD, CloudflareEmulator, type CloudflareEmulatorOptions, type CloudflareInventoryItem } from './emulator.js';

/** The Sandbox's Cloudflare credentials (SANDBOX_CREDENTIALS) and its own zone, the one this harness serves. */
export const CLOUDFLARE_SANDBOX_CREDENTIALS = {
  apiToken: SANDBOX_CREDENTIALS.cloudflareApiToken,
  accountId: SANDBOX_CREDENTIALS.cloudflareAccountId,
  zone: SANDBOX_CLOUDFLARE_ZONE,
} as const;

export interface CloudflareSandboxOptions {
  seed?: number;
  clock?: VirtualClock;
  loadBalancing?: boolean;
  emulator?: Partial<CloudflareEmulatorOptions>;
}

export class CloudflareSandbox implements ConformanceSandbox {
  readonly clock: VirtualClock;
  readonly context: SandboxContext;
  readonly faults: FaultInjector;
  readonly emulator: CloudflareEmulator;
  readonly #server: ReturnType<typeof interceptHttp>;

  constructor(options: CloudflareSandboxOptions = {}) {
    this.clock = options.clock ?? new VirtualClock();
    const random = seededRandom(options.seed ?? 1);
    this.faults = new FaultInjector(random);
    this.context = { clock: this.clock, random, faults: this.faults, calls: new Map() };
    this.emulator = new CloudflareEmulator(this.context, {
      apiToken: CLOUDFLARE_SANDBOX_CREDENTIALS.apiToken,
      accountId: CLOUDFLARE_SANDBOX_CREDENTIALS.accountId,
      zones: [CLOUDFLARE_SANDBOX_CREDENTIALS.zone],
      loadBalancing: options.loadBalancing ?? true,
      ...options.emulator,
    });
    this.#server = interceptHttp(...this.emulator.handlers());
    // Sealed as the Sandbox is: anything else fails at once, naming its host and path.
    this.#server.listen({ onUnhandledRequest: refuseUnserved() });
  }

  /** DNS has no node operations: every target means any Cloudflare call. */
  injectFault(_target: FaultTarget, kind: FaultKind, times = 1): void {
    this.faults.add({ cloud: CLOUDFLARE_CLOUD, operation: '*', kind, times });
  }

  injectWireFault(operation: string, kind: FaultKind, times = 1): void {
    this.faults.add({ cloud: CLOUDFLARE_CLOUD, operation, kind, times });
  }

  inventory(): CloudflareInventoryItem[] {
    return this.emulator.inventory();
  }

  liveResources(clusterId: string): Array<{ kind: string; id: string; name?: string }> {
    return this.inventory()
      .filter((i) => i.clusterId === clusterId)
      .map((i) => ({ kind: i.kind, id: i.id, ...(i.name !== undefined ? { name: i.name } : {}) }));
  }

  inventoryDump(): string {
    return JSON.stringify(this.inventory());
  }

  requestCount(): number {
    let total = 0;
    for (const [key, n] of this.context.calls) if (key.startsWith(`${CLOUDFLARE_CLOUD} `)) total += n;
    return total;
  }

  stop(): void {
    this.#server.close();
  }
}
