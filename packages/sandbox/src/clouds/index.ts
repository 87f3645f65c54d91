// The sandbox-cloud registry: every cloud the sandbox emulates, by its descriptor (clouds/descriptor.ts, one in each
// cloud's folder). The Sandbox builds, snapshots, serves and inventories them in this order; adding a cloud is adding
// its descriptor here (docs/provider-contract.md, "Adding a cloud").
import type { ProviderType } from '@kubeplane/sdk';
import { CLOUDFLARE_SANDBOX_CLOUD } from '../cloudflare/cloud.js';
import { CRUSOE_SANDBOX_CLOUD } from '../crusoe/cloud.js';
import { EC2_SANDBOX_CLOUD } from '../ec2/cloud.js';
import { HETZNER_SANDBOX_CLOUD } from '../hetzner/cloud.js';
import { ROUTE53_SANDBOX_CLOUD } from '../route53/cloud.js';
import { STS_SANDBOX_CLOUD } from '../sts/cloud.js';
import type { SandboxCloud, SandboxCloudDns, SandboxCloudProvider, SandboxCloudServe, ServedAs, WithFloor } from './descriptor.js';

/** Every sandbox cloud, in build, handler, inventory and machine order. */
export const SANDBOX_CLOUD_REGISTRY = [
  HETZNER_SANDBOX_CLOUD,
  EC2_SANDBOX_CLOUD,
  ROUTE53_SANDBOX_CLOUD,
  STS_SANDBOX_CLOUD,
  CRUSOE_SANDBOX_CLOUD,
  CLOUDFLARE_SANDBOX_CLOUD,
] as const;

type Registered = (typeof SANDBOX_CLOUD_REGISTRY)[number];
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every registered cloud, as the sandbox iterates them: in build, handler, inventory and machine order. */
export const SANDBOX_CLOUDS: readonly SandboxCloud[] = SANDBOX_CLOUD_REGISTRY;

/** A registered cloud's name (each descriptor's `name`). */
export type SandboxCloudName = Registered['name'];

/** The Sandbox's fields for its clouds (`sandbox.hetzner`, `sandbox.ec2`, `sandbox.ec2Regions`, …), each cloud's `fields`. */
export type SandboxCloudFields = Readonly<UnionToIntersection<ReturnType<Registered['fields']>>>;

/** The SandboxOptions the clouds read (`options.hetzner`, `options.ec2Regions`, …), each cloud's `O`. */
export type SandboxCloudOptions = UnionToIntersection<Parameters<Registered['build']>[0]['options']>;

/** A snapshot's `clouds`: each cloud's state by its name. A snapshot may lack a cloud (one that joined later), which restores empty. */
export type SandboxCloudStates = { [C in Registered as C['name']]?: ReturnType<C['state']> };

/** The keys of the served APIs' endpoints (served.json), each served cloud's `serve.key`. */
export type ServedApiKey = Extract<Registered, ServedAs<string>>['serve']['key'];

/** The clouds whose machines the latency model has a floor for. */
export type FloorCloud = Extract<Registered, WithFloor>['name'];

// Every registered cloud takes faults, counts calls and lists its inventory under its name. faults.ts declares the
// names' interface and the registry fills it: the emulators import faults.ts, so it cannot import the registry. (An
// incremental `tsc -b` does not recheck files that read these names without importing the registry: after the
// registry changes, an error it keeps there goes with a clean build.)
declare module '../faults.js' {
  interface FaultClouds extends Record<SandboxCloudName, true> {}
}

/** The registered cloud of this name. */
export function sandboxCloud(name: string): SandboxCloud | undefined {
  return SANDBOX_CLOUDS.find((c) => c.name === name);
}

/** The clouds that hold a provider type's resources (AWS: EC2 and Route 53), in registry order. */
export function sandboxCloudsOf(type: string): SandboxCloud[] {
  return SANDBOX_CLOUDS.filter((c) => c.providerType === type);
}

/** The cloud that is a provider type's sandbox, with its provider side (for AWS, EC2); undefined when the sandbox has none. */
export function providerCloudOf(type: string): (SandboxCloud & { provider: SandboxCloudProvider<unknown> }) | undefined {
  return sandboxCloudsOf(type).find((c): c is SandboxCloud & { provider: SandboxCloudProvider<unknown> } => c.provider !== undefined);
}

/** The provider types the sandbox has a cloud for, sorted. */
export const SANDBOX_PROVIDER_TYPES: readonly ProviderType[] = SANDBOX_CLOUDS.flatMap((c) => (c.provider && c.providerType ? [c.providerType] : [])).sort();

/** The cloud that holds a provider type's DNS zones (AWS: Route 53); undefined when it has none in the sandbox. */
export function dnsCloudOf(type: string): (SandboxCloud & { dns: SandboxCloudDns<unknown> }) | undefined {
  return sandboxCloudsOf(type).find((c): c is SandboxCloud & { dns: SandboxCloudDns<unknown> } => c.dns !== undefined);
}

/** The clouds `kubeplane sandbox serve` serves, in port order. */
export function servedClouds(): Array<SandboxCloud & { serve: SandboxCloudServe<unknown> }> {
  return SANDBOX_CLOUDS.filter((c): c is SandboxCloud & { serve: SandboxCloudServe<unknown> } => c.serve !== undefined).sort(
    (a, b) => a.serve.port - b.serve.port,
  );
}

/**
 * The cloud a machine's cloud name or provider type names (EC2 for either): the cloud of that name, or the provider
 * type's cloud with machines.
 */
export function machineCloudOf(cloudOrType: string): SandboxCloud | undefined {
  return sandboxCloud(cloudOrType) ?? sandboxCloudsOf(cloudOrType).find((c) => c.listVms !== undefined);
}

export type { ContractOperation, NodeGpus, SandboxCloud, SandboxCloudBuild, SandboxCloudDns, SandboxCloudProvider, SandboxCloudServe } from './descriptor.js';
