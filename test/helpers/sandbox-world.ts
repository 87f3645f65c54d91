// A kubeplane engine on the sandbox clouds with in-memory ports, for lifecycle tests.
import { expect } from 'vitest';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, validateManifestText, type EngineEvent, type EngineOptions, type Manifest, type StepEvent } from '@kubeplane/sdk';
import { Sandbox, sandboxKubernetes, sandboxProviders } from '@kubeplane/providers';

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
  return sandbox.liveMachines().map((i) => i.name ?? i.id).sort();
}
