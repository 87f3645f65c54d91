// The sandbox clouds: Hetzner, EC2, Route 53, Crusoe and Cloudflare emulators behind one msw server, on one virtual
// clock, with seeded randomness, fault injection and an inventory. Real clients (got, the AWS SDK) run unmodified.
import type { HttpHandler } from 'msw';
import { interceptHttp } from './intercept.js';
import { SeededRandom, VirtualClock } from '@kubeplane/sdk';
import type { SandboxContext } from './context.js';
import { FaultInjector, type FaultRule } from './faults.js';
import type { InventoryItem } from './inventory.js';
import { SandboxStaticMachines } from './static-machines.js';
import type { SandboxManagedCluster, SandboxVm, SandboxVmSource } from './kubernetes/vm-source.js';
import { HetznerEmulator, type HetznerEmulatorOptions } from './hetzner/emulator.js';
import { Ec2Emulator, type Ec2EmulatorOptions } from './ec2/emulator.js';
import { Route53Emulator, type Route53EmulatorOptions } from './route53/emulator.js';
import { StsEmulator, type StsEmulatorOptions } from './sts/emulator.js';
import { conformanceChecked } from './openapi/conformance.js';
import { CrusoeEmulator, type CrusoeEmulatorOptions } from './crusoe/emulator.js';
import { CloudflareEmulator, type CloudflareEmulatorOptions } from './cloudflare/emulator.js';
import { KubernetesEmulator } from './kubernetes/emulator.js';
import { asSandboxSnapshot, SANDBOX_SNAPSHOT_VERSION, type SandboxSnapshot } from './snapshot.js';
import { SANDBOX_CLOUDFLARE_ZONES, SANDBOX_CREDENTIALS } from './accounts.js';
import type { AwsCallListener } from './aws-calls.js';
import { refuseUnserved } from './sealed.js';
import { GoogleCloudEmulators } from './gcp/index.js';
import { CRUSOE_SANDBOX_CLOUD } from './crusoe/cloud.js';
import { HETZNER_SANDBOX_CLOUD } from './hetzner/cloud.js';

export { SANDBOX_CREDENTIALS };

export interface SandboxOptions {
  seed?: number;
  clock?: VirtualClock;
  hetzner?: Partial<HetznerEmulatorOptions>;
  ec2?: Partial<Ec2EmulatorOptions>;
  route53?: Partial<Route53EmulatorOptions>;
  sts?: Partial<StsEmulatorOptions>;
  /** The Crusoe project (default: SANDBOX_CREDENTIALS' key and project). */
  crusoe?: Partial<CrusoeEmulatorOptions>;
  /** The Cloudflare account (default: SANDBOX_CREDENTIALS' token and account, with Load Balancing, owning SANDBOX_CLOUDFLARE_ZONES). */
  cloudflare?: Partial<CloudflareEmulatorOptions>;
  /** EC2 regions served, each with its own state as on AWS (default: the common US and EU regions). */
  ec2Regions?: string[];
  /**
   * A world to continue from (`sandbox.snapshot()`): its time, randomness, regions, zones, rate limits, Crusoe
   * project, Cloudflare account and every resource replace `seed`, `ec2Regions` and the emulators' non-credential
   * options. A `clock` given with it must
   * not be ahead of the snapshot; it is moved to the snapshot's time.
   */
  snapshot?: SandboxSnapshot;
  /** The user's machines of static pools: real sshd machines where they can run (`auto`, the default), or not. */
  staticMachines?: 'auto' | 'openssh' | 'in-process';
  /** Where the static machines are kept between processes (a state directory's); see SandboxStaticMachinesOptions. */
  staticMachinesDir?: string;
}

/** What may be given with a snapshot: the clock to use, and the credentials the emulators accept. */
export type SandboxRestoreOptions = Pick<SandboxOptions, 'clock' | 'staticMachines' | 'staticMachinesDir'> & {
  hetzner?: { token?: string };
  ec2?: { accessKeyId?: string; secretAccessKey?: string };
  route53?: { accessKeyId?: string; secretAccessKey?: string };
  crusoe?: { keys?: Record<string, string> };
  cloudflare?: { apiToken?: string };
};

export const SANDBOX_EC2_REGIONS = ['eu-central-1', 'eu-central-2', 'eu-west-1', 'eu-north-1', 'us-east-1', 'us-east-2', 'us-west-2', 'ap-southeast-1'];

/**
 * Machine states that are not billed: Hetzner `deleting`/`off`, EC2 `shutting-down`/`terminated`, and Crusoe
 * `STATE_DELETING` (a deleted Crusoe VM leaves the inventory; STATE_DELETED is the API's name, should it stay).
 */
const NOT_LIVE = new Set(['shutting-down', 'terminated', 'deleting', 'off', 'STATE_DELETING', 'STATE_DELETED']);

export class Sandbox implements SandboxVmSource {
  readonly clock: VirtualClock;
  /** The seeded generator behind `random`; its state is part of a snapshot. */
  readonly rng: SeededRandom;
  readonly random: () => number;
  readonly faults: FaultInjector;
  readonly context: SandboxContext;
  readonly hetzner: HetznerEmulator;
  /** EC2 in eu-central-1 (or the first region given). */
  readonly ec2: Ec2Emulator;
  /** EC2 per region. */
  readonly ec2Regions: ReadonlyMap<string, Ec2Emulator>;
  readonly route53: Route53Emulator;
  /** The AWS account's STS: roles to assume (kubeplane-provider by default), and the keys EC2 and Route 53 accept. */
  readonly sts: StsEmulator;
  /** One Crusoe project: VMs, VPC networking, InfiniBand, CMK clusters and node pools. */
  readonly crusoe: CrusoeEmulator;
  /** One Cloudflare account: zones, DNS records, Load Balancing. */
  readonly cloudflare: CloudflareEmulator;
  /** The Kubernetes API of every cluster whose machines boot in these clouds, with simulated kubelets. */
  readonly kubernetes: KubernetesEmulator;
  /** Google Cloud (project SANDBOX_GOOGLE_PROJECT): Cloud Tasks, Firestore, Secret Manager and ID tokens. Not in snapshots. */
  readonly google: GoogleCloudEmulators;
  /** The user's own machines (static pools): SSH servers on loopback (real sshd where it can run), started on first contact. */
  readonly staticMachines: SandboxStaticMachines;
  readonly #server: ReturnType<typeof interceptHttp>;
  #listening = false;

  constructor(options: SandboxOptions = {}) {
    const snapshot = options.snapshot === undefined ? undefined : asSandboxSnapshot(options.snapshot);
    if (snapshot && options.clock && options.clock.now() > snapshot.clockMs) {
      throw new RangeError(
        `the clock (${new Date(options.clock.now()).toISOString()}) is ahead of the sandbox ` +
          `snapshot (${new Date(snapshot.clockMs).toISOString()}); time never goes back`,
      );
    }
    this.clock = options.clock ?? new VirtualClock(snapshot?.clockMs);
    if (snapshot) this.clock.advanceTo(snapshot.clockMs);
    this.rng = new SeededRandom(snapshot ? snapshot.random : (options.seed ?? 1));
    this.random = () => this.rng.next();
    this.faults = new FaultInjector(this.random);
    this.context = { clock: this.clock, random: this.random, faults: this.faults, calls: new Map(snapshot?.calls) };
    this.hetzner = new HetznerEmulator(this.context, {
      token: SANDBOX_CREDENTIALS.hetznerToken,
      macSeed: options.seed ?? 1,
      ...options.hetzner,
      ...(snapshot ? { rateLimit: snapshot.hetzner.rateLimit } : {}),
    });
    this.sts = new StsEmulator(this.context, {
      accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId,
      secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey,
      ...options.sts,
    });
    const keyring = this.sts;
    const regions = snapshot ? snapshot.ec2.map((e) => e.region) : (options.ec2Regions ?? (options.ec2?.region ? [options.ec2.region] : SANDBOX_EC2_REGIONS));
    this.ec2Regions = new Map(
      regions.map((region) => [
        region,
        new Ec2Emulator(this.context, {
          accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId,
          secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey,
          zones: [`${region}a`, `${region}b`, `${region}c`],
          accountRegions: regions,
          keyring,
          ...options.ec2,
          region,
        }),
      ]),
    );
    this.ec2 = this.ec2Regions.get(regions[0] ?? 'eu-central-1') as Ec2Emulator;
    this.route53 = new Route53Emulator(this.context, {
      accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId,
      secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey,
      keyring,
      ...options.route53,
    });
    this.staticMachines = new SandboxStaticMachines(this.clock, {
      use: options.staticMachines ?? 'auto',
      ...(options.staticMachinesDir !== undefined ? { saveDir: options.staticMachinesDir } : {}),
    });
    this.crusoe = new CrusoeEmulator(this.context, {
      keys: { [SANDBOX_CREDENTIALS.crusoeAccessKeyId]: SANDBOX_CREDENTIALS.crusoeSecretKey },
      projectId: SANDBOX_CREDENTIALS.crusoeProjectId,
      ...options.crusoe,
      ...(snapshot ? { projectId: snapshot.crusoe.projectId } : {}),
    });
    this.cloudflare = new CloudflareEmulator(this.context, {
      apiToken: SANDBOX_CREDENTIALS.cloudflareApiToken,
      accountId: SANDBOX_CREDENTIALS.cloudflareAccountId,
      zones: [...SANDBOX_CLOUDFLARE_ZONES],
      loadBalancing: true,
      ...options.cloudflare,
      ...(snapshot ? { accountId: snapshot.cloudflare.accountId, rateLimit: snapshot.cloudflare.rateLimit } : {}),
    });
    this.kubernetes = new KubernetesEmulator(this.context, { vms: this });
    this.google = new GoogleCloudEmulators({ clock: this.clock });
    if (snapshot) {
      this.faults.restore(snapshot.faults);
      this.hetzner.restore(snapshot.hetzner);
      for (const state of snapshot.ec2) this.ec2Regions.get(state.region)?.restore(state);
      this.route53.restore(snapshot.route53);
      if (snapshot.sts) this.sts.restore(snapshot.sts);
      this.crusoe.restore(snapshot.crusoe);
      this.cloudflare.restore(snapshot.cloudflare);
      this.kubernetes.restore(snapshot.kubernetes);
    }
    this.#server = interceptHttp(...this.handlers());
  }

  /** What to tell a client that called an AWS endpoint the sandbox does not emulate (another Region, say). */
  #unservedHint(url: URL): string | undefined {
    if (url.hostname.endsWith('.googleapis.com'))
      return "the sandbox emulates Google Cloud Tasks, Firestore and Secret Manager (and Google's OAuth certs), not this API";
    const region = /^ec2\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1];
    if (region === undefined) return undefined;
    // EC2 takes Query requests by GET or POST (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/Query-Requests.html);
    // the sandbox serves POST / only, which is what the SDKs and the CLI send.
    if (this.ec2Regions.has(region)) return 'the sandbox serves EC2 Query requests as POST / only';
    return `the sandbox emulates EC2 in ${[...this.ec2Regions.keys()].join(', ')}, not in ${region}`;
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
      hetzner: this.hetzner.state(),
      ec2: [...this.ec2Regions.values()].map((e) => e.state()),
      route53: this.route53.state(),
      sts: this.sts.state(),
      crusoe: this.crusoe.state(),
      cloudflare: this.cloudflare.state(),
      kubernetes: this.kubernetes.state(),
    };
  }

  /** Every emulator's request handlers, in the order the sandbox's msw server tries them. */
  handlers(): HttpHandler[] {
    return [
      ...conformanceChecked(HETZNER_SANDBOX_CLOUD, this.hetzner.handlers()),
      ...[...this.ec2Regions.values()].flatMap((e) => e.handlers()),
      ...this.route53.handlers(),
      ...this.sts.handlers(),
      ...conformanceChecked(CRUSOE_SANDBOX_CLOUD, this.crusoe.handlers()),
      ...this.cloudflare.handlers(),
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
      // Emulators claim their own hosts (Hetzner, Crusoe, Cloudflare and Route 53 answer every path there, unknown ones
      // with their 404); what none claims, another host, an EC2 Region not emulated, a path EC2 or STS do not take, fails.
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
    const stops = [...[...this.ec2Regions.values()].map((e) => e.onCall(listener)), this.route53.onCall(listener)];
    return () => {
      for (const stop of stops) stop();
    };
  }

  injectFault(rule: FaultRule): void {
    this.faults.add(rule);
  }

  /** Every live resource in every sandbox cloud. */
  inventory(): InventoryItem[] {
    return [
      ...this.hetzner.inventory(),
      ...[...this.ec2Regions.values()].flatMap((e) => e.inventory()),
      ...this.route53.inventory(),
      ...this.crusoe.inventory(),
      ...this.cloudflare.inventory(),
    ];
  }

  /** Machines that are up (not shutting down or gone), across the clouds: what a user would be billed for. */
  liveMachines(): InventoryItem[] {
    return this.inventory().filter((i) => i.kind === 'node' && !NOT_LIVE.has(i.state ?? ''));
  }

  /** Every machine of every cloud, with its user-data, for the simulated kubelets. Not part of the inventory. */
  listVms(): SandboxVm[] {
    return [
      ...this.hetzner.listVms(),
      ...[...this.ec2Regions.values()].flatMap((e) => e.listVms()),
      ...this.crusoe.listVms(),
      ...this.staticMachines.listVms(),
    ];
  }

  /** The control planes the clouds run themselves (Crusoe CMK), for the Kubernetes emulator. */
  listManagedClusters(): SandboxManagedCluster[] {
    return this.crusoe.listManagedClusters();
  }

  /** Wire requests per `<cloud> <operation>`. */
  calls(): Record<string, number> {
    return Object.fromEntries([...this.context.calls.entries()].sort());
  }

  totalCalls(filter?: (key: string) => boolean): number {
    let total = 0;
    for (const [key, n] of this.context.calls) if (!filter || filter(key)) total += n;
    return total;
  }
}
