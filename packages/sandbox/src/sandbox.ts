// The sandbox clouds (the registry's: clouds/index.ts) behind one msw server, on one virtual clock, with seeded
// randomness, fault injection and an inventory. Real clients (got, the AWS SDK) run unmodified.
import type { HttpHandler } from 'msw';
import { interceptHttp } from './intercept.js';
import { SeededRandom, VirtualClock } from '@kubeplane/sdk/provider';
import type { SandboxContext } from './context.js';
import { FaultInjector, type FaultRule } from './faults.js';
import type { InventoryItem } from './inventory.js';
import { SandboxStaticMachines } from './static-machines.js';
import type { SandboxManagedCluster, SandboxVm, SandboxVmSource } from './kubernetes/vm-source.js';
import { conformanceChecked } from './openapi/conformance.js';
import { KubernetesEmulator } from './kubernetes/emulator.js';
import { UserDataTransformer, type UserDataTransform } from './user-data-transform.js';
import { asSandboxSnapshot, SANDBOX_SNAPSHOT_VERSION, type SandboxSnapshot } from './snapshot.js';
import { SANDBOX_CREDENTIALS } from './accounts.js';
import type { AwsCallListener } from './aws-calls.js';
import { refuseUnserved } from './sealed.js';
import { GoogleCloudEmulators } from './gcp/index.js';
import { SANDBOX_CLOUDS, type SandboxCloud, type SandboxCloudFields, type SandboxCloudOptions, type SandboxCloudStates } from './clouds/index.js';

export { SANDBOX_CREDENTIALS };
export { SANDBOX_EC2_REGIONS } from './ec2/cloud.js';

/**
 * A Sandbox's options: its own, and each cloud's (SandboxCloudOptions: `options.hetzner`, `options.ec2Regions`, …; see
 * each cloud's descriptor, `<cloud>/cloud.ts`).
 */
export type SandboxOptions = SandboxCloudOptions & {
  seed?: number;
  clock?: VirtualClock;
  /**
   * A world to continue from (`sandbox.snapshot()`): its time, randomness, regions, zones, rate limits, Crusoe
   * project, Cloudflare account and every resource replace `seed`, `ec2Regions` and the emulators' non-credential
   * options (of each cloud the snapshot has). A `clock` given with it must not be ahead of the snapshot; it is moved to
   * the snapshot's time.
   */
  snapshot?: SandboxSnapshot;
  /** The user's machines of static pools: real sshd machines where they can run (`auto`, the default), or not. */
  staticMachines?: 'auto' | 'openssh' | 'in-process';
  /** Where the static machines are kept between processes (a state directory's); see SandboxStaticMachinesOptions. */
  staticMachinesDir?: string;
  /**
   * Whether the responses of the clouds with a vendor document are checked against it when the run asks for it
   * (openapi/conformance.ts; default true). The single-cloud test harnesses turn it off: their tests inject faults
   * on operations whose real API never answers with them.
   */
  conformance?: boolean;
  /**
   * Applied to every cloud machine's user-data before the machine boots from it, in both modes (the seam for defects
   * and customisations: user-data-transform.ts). The clouds' APIs keep the user-data the engine sent.
   */
  userDataTransform?: UserDataTransform;
};

/**
 * What may be given with a snapshot: the clock to use, and the credentials the emulators accept (a cloud's other
 * options are the snapshot's, for each cloud it has).
 */
export type SandboxRestoreOptions = Pick<SandboxOptions, 'clock' | 'staticMachines' | 'staticMachinesDir' | 'userDataTransform'> & SandboxCloudOptions;

/** A registered cloud and what it built (its emulator, or EC2's emulator per region). */
export interface SandboxBuiltCloud {
  readonly cloud: SandboxCloud;
  readonly emulator: unknown;
}

/** Builds every registered cloud, in registry order; a cloud that uses another gets it built first. */
function buildClouds(context: SandboxContext, seed: number, options: SandboxOptions, saved: SandboxCloudStates | undefined): SandboxBuiltCloud[] {
  const built = new Map<SandboxCloud, unknown>();
  const building = new Set<SandboxCloud>();
  const use = <E>(cloud: SandboxCloud<string, E>): E => {
    if (!built.has(cloud)) {
      if (building.has(cloud)) throw new Error(`the sandbox cloud ${cloud.name} needs itself to be built first`);
      building.add(cloud);
      const state = (saved as Record<string, unknown> | undefined)?.[cloud.name];
      built.set(cloud, cloud.build({ context, seed, options, saved: state, use }));
    }
    return built.get(cloud) as E;
  };
  return SANDBOX_CLOUDS.map((cloud) => ({ cloud, emulator: use(cloud) }));
}

/**
 * The base of Sandbox that carries its clouds' fields (`sandbox.hetzner`, `sandbox.ec2Regions`: each cloud's
 * `fields`), typed from the registry.
 */
export const SandboxCloudFieldsBase = class {
  constructor(fields: object) {
    for (const [name, value] of Object.entries(fields)) Object.defineProperty(this, name, { value, enumerable: true });
  }
} as new (
  fields: object,
) => SandboxCloudFields;

/**
 * The sandbox clouds in one process: every emulator behind one msw interceptor on one virtual clock, with seeded
 * randomness, fault injection, call counts, an inventory and snapshots. Real clients run unmodified once `listen()` is
 * called; call `close()` when done, as it also ends the static machines' sshd processes.
 */
export class Sandbox extends SandboxCloudFieldsBase implements SandboxVmSource {
  readonly clock: VirtualClock;
  /** The seeded generator behind `random`; its state is part of a snapshot. */
  readonly rng: SeededRandom;
  /**
   * Draws the next number in [0, 1) from the seeded generator: use it wherever a test needs randomness that replays with
   * the seed.
   */
  readonly random: () => number;
  readonly faults: FaultInjector;
  readonly context: SandboxContext;
  /** Every registered cloud with its emulator(s), in registry order. */
  readonly clouds: readonly SandboxBuiltCloud[];
  /** The Kubernetes API of every cluster whose machines boot in these clouds, with simulated kubelets. */
  readonly kubernetes: KubernetesEmulator;
  /** Google Cloud (project SANDBOX_GOOGLE_PROJECT): Cloud Tasks, Firestore, Secret Manager and ID tokens. Not in snapshots. */
  readonly google: GoogleCloudEmulators;
  /** The user's own machines (static pools): SSH servers on loopback (real sshd where it can run), started on first contact. */
  readonly staticMachines: SandboxStaticMachines;
  readonly #server: ReturnType<typeof interceptHttp>;
  readonly #conformance: boolean;
  readonly #userData: UserDataTransformer | undefined;
  #listening = false;

  constructor(options: SandboxOptions = {}) {
    const snapshot = options.snapshot === undefined ? undefined : asSandboxSnapshot(options.snapshot);
    if (snapshot && options.clock && options.clock.now() > snapshot.clockMs) {
      throw new RangeError(
        `the clock (${new Date(options.clock.now()).toISOString()}) is ahead of the sandbox ` +
          `snapshot (${new Date(snapshot.clockMs).toISOString()}); time never goes back`,
      );
    }
    const clock = options.clock ?? new VirtualClock(snapshot?.clockMs);
    if (snapshot) clock.advanceTo(snapshot.clockMs);
    const rng = new SeededRandom(snapshot ? snapshot.random : (options.seed ?? 1));
    const random = () => rng.next();
    const faults = new FaultInjector(random);
    if (snapshot) faults.restore(snapshot.faults);
    const context: SandboxContext = { clock, random, faults, calls: new Map(snapshot?.calls) };
    const clouds = buildClouds(context, options.seed ?? 1, options, snapshot?.clouds);
    super(Object.assign({}, ...clouds.map(({ cloud, emulator }) => cloud.fields(emulator))));
    this.clock = clock;
    this.rng = rng;
    this.random = random;
    this.faults = faults;
    this.context = context;
    this.clouds = clouds;
    this.#conformance = options.conformance ?? true;
    this.#userData = options.userDataTransform ? new UserDataTransformer(options.userDataTransform) : undefined;
    this.staticMachines = new SandboxStaticMachines(this.clock, {
      use: options.staticMachines ?? 'auto',
      ...(options.staticMachinesDir !== undefined ? { saveDir: options.staticMachinesDir } : {}),
    });
    this.kubernetes = new KubernetesEmulator(this.context, { vms: this });
    this.google = new GoogleCloudEmulators({ clock: this.clock });
    if (snapshot) this.kubernetes.restore(snapshot.kubernetes);
    this.#server = interceptHttp(...this.handlers());
  }

  /** What to tell a client that called an endpoint the sandbox does not emulate (an EC2 Region it has not, say). */
  #unservedHint(url: URL): string | undefined {
    if (url.hostname.endsWith('.googleapis.com'))
      return "the sandbox emulates Google Cloud Tasks, Firestore and Secret Manager (and Google's OAuth certs), not this API";
    for (const { cloud, emulator } of this.clouds) {
      const hint = cloud.unservedHint?.(emulator, url);
      if (hint !== undefined) return hint;
    }
    return undefined;
  }

  /** What `cloud` built in this sandbox (its emulator, or EC2's emulator per region); undefined for a cloud not registered. */
  emulatorOf(cloud: SandboxCloud): unknown {
    return this.clouds.find((c) => c.cloud === cloud)?.emulator;
  }

  /** A new sandbox that continues from `snapshot` as this world would have continued (see SandboxOptions.snapshot). */
  static fromSnapshot(snapshot: SandboxSnapshot, options: SandboxRestoreOptions = {}): Sandbox {
    return new Sandbox({ ...options, snapshot });
  }

  /**
   * The whole world as a plain JSON value, a deep copy (see SandboxSnapshot). It holds the machines' user-data and
   * startup scripts, and with them cluster private keys: write it with mode 0600, never log it.
   */
  snapshot(): SandboxSnapshot {
    return {
      v: SANDBOX_SNAPSHOT_VERSION,
      clockMs: this.clock.now(),
      random: this.rng.state,
      calls: [...this.context.calls.entries()],
      faults: this.faults.state(),
      clouds: Object.fromEntries(this.clouds.map(({ cloud, emulator }) => [cloud.name, cloud.state(emulator)])),
      kubernetes: this.kubernetes.state(),
    };
  }

  /** Every emulator's request handlers, in the order the sandbox's msw server tries them. */
  handlers(): HttpHandler[] {
    return [
      ...this.clouds.flatMap(({ cloud, emulator }) => (this.#conformance ? conformanceChecked(cloud, cloud.handlers(emulator)) : cloud.handlers(emulator))),
      ...this.kubernetes.handlers(),
      ...this.google.handlers(),
    ];
  }

  /**
   * Starts intercepting HTTP. Any request no emulator serves fails at once with a SandboxUnservedRequestError naming
   * its host and path: there is no network.
   */
  listen(): this {
    if (!this.#listening) {
      // Emulators claim their own hosts (most answer every path there, unknown ones with their 404); what none claims,
      // another host, an EC2 Region not emulated, a path EC2 or STS do not take, fails.
      this.#server.listen({ onUnhandledRequest: refuseUnserved((url) => this.#unservedHint(url)) });
      this.#listening = true;
    }
    return this;
  }

  /** Stops intercepting HTTP and ends the static machines (their sshd processes, namespaces and directories). */
  async close(): Promise<void> {
    if (this.#listening) {
      this.#server.close();
      this.#listening = false;
    }
    await this.staticMachines.close();
  }

  /**
   * Tells `listener` of every signed request to the EC2 (any Region) and Route 53 emulators, with the resources it
   * names and their tags, before it is served: what an IAM policy test evaluates. Returns the function that stops it.
   */
  onAwsCall(listener: AwsCallListener): () => void {
    const stops = this.clouds.flatMap(({ cloud, emulator }) => cloud.onAwsCall?.(emulator, listener) ?? []);
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** Adds a fault rule to `faults`; matching calls then fail in their cloud's wire format (see FaultRule). */
  injectFault(rule: FaultRule): void {
    this.faults.add(rule);
  }

  /** Every live resource in every sandbox cloud. */
  inventory(): InventoryItem[] {
    return this.clouds.flatMap(({ cloud, emulator }) => cloud.inventory?.(emulator) ?? []);
  }

  /** Machines that are up (not shutting down or gone), across the clouds: what a user would be billed for. */
  liveMachines(): InventoryItem[] {
    return this.clouds.flatMap(({ cloud, emulator }) =>
      (cloud.inventory?.(emulator) ?? []).filter((i) => i.kind === 'node' && !cloud.unbilledStates?.includes(i.state ?? '')),
    );
  }

  /** Every machine of every cloud, with its user-data, for the simulated kubelets. Not part of the inventory. */
  listVms(): SandboxVm[] {
    const transform = this.#userData;
    const vms = this.clouds.flatMap(({ cloud, emulator }) => cloud.listVms?.(emulator) ?? []);
    return [...(transform ? vms.map((vm) => transform.apply(vm)) : vms), ...this.staticMachines.listVms()];
  }

  /** The control planes the clouds run themselves (Crusoe CMK), for the Kubernetes emulator. */
  listManagedClusters(): SandboxManagedCluster[] {
    return this.clouds.flatMap(({ cloud, emulator }) => cloud.listManagedClusters?.(emulator) ?? []);
  }

  /** Wire requests per `<cloud> <operation>`. */
  calls(): Record<string, number> {
    return Object.fromEntries([...this.context.calls.entries()].sort());
  }

  /** Wire requests served so far, over every `<cloud> <operation>` key that `filter` keeps (all when absent). */
  totalCalls(filter?: (key: string) => boolean): number {
    let total = 0;
    for (const [key, n] of this.context.calls) if (!filter || filter(key)) total += n;
    return total;
  }
}
