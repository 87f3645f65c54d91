// Two invocations of one step can overlap: a holder whose lease ran out mid-step (a slow Lambda, a paused container)
// still runs while the next holder of the lease runs the same step. Fencing keeps its record write out, not its
// other effects; what must be issued once (the cluster's PKI) has to be the same for both.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterKey, type ClusterRecord } from '@kubeplane/sdk/internal';
import { Engine, KubeplaneError, MemoryLease, MemorySecretStore, type ProviderFactory, type Redacted } from '@kubeplane/sdk';
import { sandboxProviders, type Sandbox } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

/**
 * A SecretStore interleaving two invocations that issue a PKI, while `meet` is set: both read the PKI before either
 * stores one; then one store waits until the other has stored (or tried to): the first to arrive, or the second.
 */
class SecretsInterleaved extends MemorySecretStore {
  meet = false;
  constructor(private readonly waits: 'first' | 'second') {
    super();
  }
  readonly #reads: Array<() => void> = [];
  readonly #writes: Array<() => void> = [];
  override async get(name: string): Promise<Redacted<string> | null> {
    if (this.meet && name.endsWith('/pki') && this.#reads.length < 2) await this.#together(this.#reads);
    return super.get(name);
  }
  override async put(name: string, value: Redacted<string>, labels?: Record<string, string>): Promise<void> {
    await this.#secondFirst(name);
    return super.put(name, value, labels);
  }
  override async create(name: string, value: Redacted<string>, labels?: Record<string, string>): Promise<boolean> {
    await this.#secondFirst(name);
    return super.create(name, value, labels);
  }
  async #together(waiting: Array<() => void>): Promise<void> {
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length === 2) for (const go of waiting) go();
    });
  }
  async #secondFirst(name: string): Promise<void> {
    if (!this.meet || !name.endsWith('/pki') || this.#writes.length >= 2) return;
    const waits = (this.#writes.length === 0) === (this.waits === 'first');
    return this.#together(this.#writes).then(() => (waits ? new Promise((r) => setTimeout(r, 10)) : undefined));
  }
}

/** The sandbox's providers, refusing worker creates (a throttled API) while `refuse.workers` is set. */
function workersRefused(sb: Sandbox, refuse: { workers: boolean }): ProviderFactory {
  const real = sandboxProviders(sb);
  const wrapped = new WeakSet<object>();
  return async (def, region) => {
    const provider = await real(def, region);
    const compute = provider.compute;
    if (compute && !wrapped.has(compute)) {
      wrapped.add(compute);
      const create = compute.createNode.bind(compute);
      compute.createNode = (request, context) => {
        if (refuse.workers && request.name.includes('workers'))
          return Promise.reject(new KubeplaneError('throttled', 'rate limit exceeded', { retryAfterSeconds: 5 }));
        return create(request, context);
      };
    }
    return provider;
  };
}

async function recordOf(w: World, project: string): Promise<ClusterRecord> {
  const id = (await w.kp.status(project)).clusters[project]?.id ?? '';
  const r = await w.options.state.get<ClusterRecord>(clusterKey(id));
  if (!r) throw new Error(`no record for ${project}`);
  return r.value;
}

describe('two overlapping invocations of the step that creates the machines', () => {
  it.each(['first', 'second'] as const)(
    'issue one PKI between them: workers created after them join the cluster their control plane formed (the %s to store waits)',
    async (waits) => {
      // While set, a live holder's lease counts as run out: the next contender gets it at once.
      const lease = { runOut: false };
      const secrets = new SecretsInterleaved(waits);
      // The overlapping invocations create the control plane only; the workers come in a later invocation, rendered
      // from the stored PKI, so they join only if it is the one the control plane was created with.
      const refuse = { workers: true };
      const w = sandboxWorld(41, (sb) => ({
        lease: new MemoryLease(sb.clock, { runsOut: () => lease.runOut }),
        secrets,
        providers: workersRefused(sb, refuse),
      }));
      sandbox = w.sandbox;
      await w.kp.apply(manifestOf(minimal));
      let r = await recordOf(w, 'minimal');
      for (let i = 0; i < 100 && r.step.name !== 'create-nodes'; i++) {
        await w.kp.run({ maxMessages: 1 });
        r = await recordOf(w, 'minimal');
      }
      expect(r.step.name).toBe('create-nodes');

      // Both find no PKI yet and both issue one; each creates machines with what it holds.
      lease.runOut = true;
      secrets.meet = true;
      const late = new Engine({ ...w.options, workerId: 'late-holder' });
      const event = w.kp.engine.eventOf(r);
      await Promise.all([late.handle(event), w.kp.engine.handle(event)]);
      lease.runOut = false;
      secrets.meet = false;
      refuse.workers = false;

      await w.kp.run();
      const status = await w.kp.status('minimal');
      expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
      const ready = w.sandbox.kubernetes
        .inventory()
        .clusters.flatMap((c) => c.nodes)
        .filter((n) => n.ready)
        .map((n) => n.name.replace(/^.*-(\w+-\d+)$/, '$1'))
        .sort();
      expect(ready).toEqual(['control-01', 'workers-01', 'workers-02']);
    },
  );
});
