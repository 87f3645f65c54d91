// A kubeplane engine on the sandbox clouds with in-memory ports, for lifecycle tests.
import { expect } from 'vitest';
import { ClusterSecrets, MESH_BUNDLE_KEY, parseMeshBundle, type MeshBundle } from '@kubeplane/sdk/internal';
import {
  Kubeplane,
  MemoryLease,
  MemoryQueue,
  MemorySecretStore,
  MemoryStateStore,
  validateManifestText,
  type EngineEvent,
  type EngineOptions,
  type Manifest,
  type Redacted,
  type StepEvent,
} from '@kubeplane/sdk';
import { Sandbox, sandboxAddonCredentials, sandboxKubernetes, sandboxProviders } from '@kubeplane/sandbox';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export function manifestOf(text: string): Manifest {
  const r = validateManifestText(text);
  expect(r.errors).toEqual([]);
  return r.manifests[0] as Manifest;
}

export interface World {
  sandbox: Sandbox;
  kp: Kubeplane;
  events: EngineEvent[];
  options: EngineOptions;
  queue: MemoryQueue<StepEvent>;
}

export function sandboxWorld(seed = 1, overrides: Partial<EngineOptions> | ((sandbox: Sandbox) => Partial<EngineOptions>) = {}): World {
  const sandbox = new Sandbox({ seed }).listen();
  const queue = new MemoryQueue<StepEvent>({ clock: sandbox.clock, visibilityTimeoutSeconds: 120 });
  const options: EngineOptions = {
    state: new MemoryStateStore(),
    secrets: new MemorySecretStore(),
    queue,
    lease: new MemoryLease(sandbox.clock),
    clock: sandbox.clock,
    providers: sandboxProviders(sandbox),
    kubernetes: sandboxKubernetes(sandbox),
    addonCredentials: sandboxAddonCredentials(),
    ...(typeof overrides === 'function' ? overrides(sandbox) : overrides),
  };
  const kp = new Kubeplane(options);
  const events: EngineEvent[] = [];
  kp.on((e) => events.push(e));
  if (process.env.KP_TRACE) kp.on((e) => console.log(JSON.stringify(e).slice(0, 300)));
  return { sandbox, kp, events, options, queue };
}

/** Names of the machines that are up, across all sandbox clouds. */
export function liveMachines(sandbox: Sandbox): string[] {
  return sandbox
    .liveMachines()
    .map((i) => i.name ?? i.id)
    .sort();
}

/** The mesh bundle in a mesh ConfigMap's data, read without its signature (what the engine published), if any. */
export function meshBundleOf(data: Record<string, string> | null | undefined): MeshBundle | undefined {
  const encoded = data?.[MESH_BUNDLE_KEY];
  if (!encoded) return undefined;
  const parsed = parseMeshBundle(Buffer.from(encoded, 'base64').toString('utf8'));
  return parsed.ok ? parsed.bundle : undefined;
}

/** The cluster's mesh signing key pair from the engine's SecretStore: what only the engine holds. */
export async function meshSigningKey(world: World, cluster: string, project = cluster): Promise<{ publicKeyPem: string; privateKeyPem: Redacted<string> }> {
  const id = (await world.kp.status(project)).clusters[cluster]?.id ?? '';
  const keys = await new ClusterSecrets(world.options.secrets, id, {}).keys();
  if (!keys?.meshSigning) throw new Error(`cluster ${cluster} has no mesh signing key`);
  return keys.meshSigning;
}
