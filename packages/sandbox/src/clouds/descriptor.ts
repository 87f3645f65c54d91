// A sandbox cloud as one unit: what the sandbox, its snapshots, `sandbox serve`, the conformance harness, DNS, the
// inventory and the simulated kubelets need to know about one emulated cloud. Each cloud's descriptor lives in the
// cloud's own folder (`<cloud>/cloud.ts`); clouds/index.ts gathers them, and everything else iterates that registry
// instead of naming clouds (docs/provider-contract.md, "Adding a cloud").
import type { HttpHandler } from 'msw';
import type { ProviderType } from '@kubeplane/sdk';
import type { FaultTarget } from '@kubeplane/sdk/conformance';
import type { AwsCallListener } from '../aws-calls.js';
import type { SandboxContext } from '../context.js';
import type { InventoryItem } from '../inventory.js';
import type { SandboxManagedCluster, SandboxVm } from '../kubernetes/vm-source.js';
import type { VendorDocument } from '../openapi/conformance.js';
import type { Target } from '../serve/routes.js';

/** What a cloud's `build` is given. */
export interface SandboxCloudBuild<Options, State> {
  readonly context: SandboxContext;
  /** The sandbox's seed (SandboxOptions.seed, 1 by default). */
  readonly seed: number;
  /** The sandbox's options, of which the cloud reads its own part (`options.hetzner`; `options.ec2` and `options.ec2Regions`). */
  readonly options: Options;
  /**
   * The cloud's state in the snapshot the sandbox continues from: what `state()` returned, after JSON. Undefined for a
   * new world, and for a snapshot written before the cloud joined the sandbox, which restores the cloud empty.
   */
  readonly saved: State | undefined;
  /** Another cloud's emulator, built first if it is not yet (EC2 and Route 53 check signatures with STS's keyring). */
  use<E>(cloud: SandboxCloud<string, E>): E;
}

/** The conformance suite's operations on machines (runProviderConformance's fault targets). */
export type ContractOperation = Exclude<FaultTarget, 'any'>;

/** The NVIDIA GPUs of a machine type, as a cloud's catalog gives them. */
export interface NodeGpus {
  /** 0 for a machine without GPUs (or a type no catalog knows). */
  count: number;
  /** As the catalog names it (`H100-SXM-80GB`, `NVIDIA A10G`); empty without GPUs. */
  model: string;
}

/**
 * The provider side of a cloud: set on the cloud that holds a provider type's machines (for AWS, EC2) or on its only
 * cloud. What `sandboxProviders` hands `buildProvider`, what the conformance harness maps the contract to, and what
 * the lifecycle's autoscale stage refuses with.
 */
export interface SandboxCloudProvider<E> {
  /** A manifest entry's secretRef keys as the sandbox cloud accepts them (what `buildProvider` reads). */
  credentials(emulator: E): Record<string, string>;
  /** The keys a cloud's own add-on (a CSI driver) gets from the sandbox, as its Secret holds them; absent: none. */
  readonly addonCredentials?: Readonly<Record<string, string>>;
  /** The wire operation of each contract operation; absent: every fault target means any call (a DNS-only cloud). */
  readonly contract?: Readonly<Record<ContractOperation, string>>;
  /** The wire operation a `capacity` fault is put on to make the cloud refuse new machines (`*`: every call). */
  readonly capacityOperation?: string;
  /** Whether an inventory item is the cluster's; by default, when its `clusterId` is the cluster's id. */
  owns?(item: InventoryItem, clusterId: string): boolean;
}

/** A cloud that holds DNS zones: `holdManifestDnsZones` adds a manifest's zones to it, the netns mode resolves in it. */
export interface SandboxCloudDns<E> {
  /** How many zones it holds. */
  zoneCount(emulator: E): number;
  /** Adds a zone the account's owner made, unless one of that name exists. */
  addZone(emulator: E, zone: string): void;
  /** The records of `name` (lower case, no trailing dot) in every zone, as type and value. */
  records(emulator: E, name: string): Array<{ type: string; value: string }>;
}

/** A cloud's API as `kubeplane sandbox serve` serves it: one loopback port, and what real clients are told about it. */
export interface SandboxCloudServe<E> {
  /** Its key in the served endpoints (served.json): EC2's is `aws`, as the port serves all of AWS. */
  readonly key: string;
  /** Its port, as an offset from --port-base; the clusters' ports follow the highest. */
  readonly port: number;
  /** The path a client's base URL ends in (`/v1`; empty for AWS, whose clients take the origin). */
  readonly path: string;
  /** How the serve printout names it (`Hetzner Cloud API`). */
  title(emulator: E): string;
  /** Where a request to its port goes: a URL on the cloud's real host (which the emulators answer), or a refusal. */
  route(emulator: E, request: { url: string; authorization: string | undefined }): Target;
  /** The environment its clients read (endpoint, credentials), with `secret` around each secret value. */
  env(emulator: E, url: string, secret: (value: string) => string): Array<[string, string]>;
  /** Called once when serving starts (real clients sign with the machine's clock, say). */
  start?(emulator: E): void;
}

/**
 * One sandbox cloud. `N` is its name, `E` what `build` makes (an emulator, or EC2's emulator per region), `S` its
 * snapshot state, `O` the part of SandboxOptions it reads, and `F` the fields it gives the Sandbox (`sandbox.hetzner`).
 */
// biome-ignore lint/suspicious/noExplicitAny: the registry's view of every cloud takes any emulator, state and options.
export interface SandboxCloud<N extends string = string, E = any, S = any, O = any, F = any> {
  /**
   * The cloud's name: its key in SandboxOptions and in a snapshot's `clouds`, and the name it counts calls, takes
   * faults (FaultRule.cloud) and lists its inventory and machines under.
   */
  readonly name: N;
  /** The cloud as people call it (`Hetzner Cloud`). */
  readonly title: string;
  /** The manifest provider type whose resources it holds (AWS for EC2 and Route 53); absent for an account's service (STS). */
  readonly providerType?: ProviderType;
  /** Its emulator(s), from the sandbox's options, or from a snapshot's state when `saved` is given. */
  build(build: SandboxCloudBuild<O, S>): E;
  /** Its whole state as plain JSON data, a deep copy (a snapshot's `clouds[name]`). */
  state(emulator: E): S;
  /** What the Sandbox exposes of it, by field name (`{ hetzner: emulator }`). */
  fields(emulator: E): F;
  /** Its msw request handlers. */
  handlers(emulator: E): HttpHandler[];
  /** The vendor's API document its responses are checked against when conformance is on (openapi/conformance.ts). */
  readonly document?: VendorDocument;
  /** Every live resource (the sandbox's inventory). */
  inventory?(emulator: E): InventoryItem[];
  /** Its machines, for the simulated kubelets. */
  listVms?(emulator: E): SandboxVm[];
  /** The states of its machines (inventory `node` items) that are not billed: shutting down, off, being deleted. */
  readonly unbilledStates?: readonly string[];
  /** The control planes it runs itself (Crusoe CMK), for the Kubernetes emulator. */
  listManagedClusters?(emulator: E): SandboxManagedCluster[];
  /** Why a request to a host of this cloud is not served, when it can say more than "no cloud there". */
  unservedHint?(emulator: E, url: URL): string | undefined;
  /** Tells `listener` of every signed AWS request (EC2, Route 53); returns the functions that stop it. */
  onAwsCall?(emulator: E, listener: AwsCallListener): Array<() => void>;
  readonly provider?: SandboxCloudProvider<E>;
  readonly dns?: SandboxCloudDns<E>;
  readonly serve?: SandboxCloudServe<E>;
  /**
   * The owners it asks public addresses for (`sandboxPublicAddress(owner, n)`: its name, or `<name>:<region>`). Each must
   * have a block of its own in 198.18.0.0/15; clouds/index.test.ts checks that no two clouds share one.
   */
  readonly publicAddressOwners?: readonly string[];
  /** The latency model's floor for creating machines (latency-model.md, "The floor"). */
  readonly floor?: {
    /** Virtual ms from the first create call until `nodes` machines created at once are running. */
    nodeCreationMs(nodes: number): number;
  };
  /** The NVIDIA GPUs of one of its machine types. */
  gpus?(machineType: string): NodeGpus;
  /** The label prefix of the Nodes its managed node pools register (`crusoe.ai/`), which names the cloud of such a Node. */
  readonly managedNodeLabelPrefix?: string;
}

/**
 * For a descriptor's type annotation: the key it serves its API under. (Descriptors are declared with their type, not
 * inferred, since the registry's names feed FaultRule's and InventoryItem's cloud types, which the descriptors use.)
 */
export type ServedAs<K extends string> = { readonly serve: { readonly key: K } };

/** For a descriptor's type annotation: it has a latency floor. */
export type WithFloor = { readonly floor: object };

/** A DNS name as zones compare it: lower case, without the trailing dot. */
export const canonicalName = (name: string): string => name.toLowerCase().replace(/\.$/, '');
