// Contention on the AWS runtime (SQS on fauxqs, DynamoDB on dynalite, the step handler through the event source
// mapping stand-in): one step delivered twice in one batch, or to two invocations of one container at once, runs
// once; a message that finds its cluster held by a crashed invocation backs off instead of knocking every 2 s.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Lease } from '@kubeplane/sdk';
import { manifestOf } from '../helpers/sandbox-world.js';
import { LIFECYCLE_TIMEOUT, useAwsWorlds, type AwsWorld } from '../helpers/aws-world.js';
import { runEventSourceMapping } from '../helpers/lambda-simulator.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const worlds = useAwsWorlds();

/**
 * Lease acquisitions one after the other, as DynamoDB orders conditional writes on one item: a second delivery
 * asks for the lease after the first got it, which is the case a per-process holder let through (two records
 * started at the very same moment both read "free" and one loses the conditional put either way).
 */
function acquisitionsInTurn(l: Lease): Lease {
  let last: Promise<unknown> = Promise.resolve();
  return {
    acquire(key, owner, ttl) {
      const p = last.then(() => l.acquire(key, owner, ttl));
      last = p.catch(() => undefined);
      return p;
    },
    renew: (g, ttl) => l.renew(g, ttl),
    release: (g) => l.release(g),
  };
}

type HandledLine = { message?: string; step?: string; outcome?: string; messageId?: string; resends?: number; delaySeconds?: number };
const handled = (w: AwsWorld) => w.logs.map((l) => JSON.parse(l) as HandledLine).filter((l) => l.message === 'step handled');
const secretWrites = () => worlds.emulators.secretsEmulator.calls.filter((c) => /CreateSecret|PutSecretValue/.test(c)).length;

describe('two deliveries of one step in one Lambda container', { timeout: LIFECYCLE_TIMEOUT }, () => {
  it('run it once when one batch holds its message twice: the second copy waits for the first and finds it done', async () => {
    const world = await worlds.open({ seed: 3, wrapLease: acquisitionsInTurn });
    const [writesBefore, secretsBefore] = [secretWrites(), worlds.emulators.secretsEmulator.secrets.size];
    await world.kp.apply(manifestOf(minimal));
    const doubled = new Set<string>();
    // The steps that write the PKI and other secrets, create the network and the machines.
    const twice = ['prepare', 'networks', 'create-nodes'];
    const run = await runEventSourceMapping({
      queue: world.queue,
      handlers: [world.handler],
      clock: world.sandbox.clock,
      maxDeliveries: 2000,
      onMessage: (body) => (twice.includes(body.step) && !doubled.has(body.step) && doubled.add(body.step) ? 'twice' : undefined),
    });
    expect(run.stopped).toBe('idle');
    expect((await world.kp.status('minimal')).clusters.minimal?.state).toBe('DONE');
    const copies = handled(world).filter((l) => l.messageId?.endsWith('#2'));
    expect(copies.map((l) => [l.step, l.outcome])).toEqual(twice.map((s) => [s, 'stale']));
    // Every secret of the cluster written once, three machines created once each.
    expect(secretWrites() - writesBefore).toBe(worlds.emulators.secretsEmulator.secrets.size - secretsBefore);
    expect(world.sandbox.calls()['hetzner POST /servers']).toBe(3);
  });

  it('run it once when two invocations of one container get the same batch at the same time', async () => {
    const world = await worlds.open({ seed: 4, wrapLease: acquisitionsInTurn });
    const [writesBefore, secretsBefore] = [secretWrites(), worlds.emulators.secretsEmulator.secrets.size];
    await world.kp.apply(manifestOf(minimal));
    // The same handler (one engine, one worker id) invoked twice at once with each of the first batches
    // (prepare, networks, create-nodes and the copies they cause).
    const run = await runEventSourceMapping({
      queue: world.queue,
      handlers: [world.handler, world.handler],
      duplicateUntil: 12,
      clock: world.sandbox.clock,
      maxDeliveries: 2000,
    });
    expect(run.stopped).toBe('idle');
    expect((await world.kp.status('minimal')).clusters.minimal?.state).toBe('DONE');
    expect(secretWrites() - writesBefore).toBe(worlds.emulators.secretsEmulator.secrets.size - secretsBefore);
    expect(world.sandbox.calls()['hetzner POST /servers']).toBe(3);
    // The second invocation found the cluster held by the first (a holder is an invocation, not a container).
    expect(handled(world).filter((l) => l.outcome === 'busy').length).toBeGreaterThan(0);
  });
});

describe('a step message whose cluster is held by a crashed invocation', { timeout: LIFECYCLE_TIMEOUT }, () => {
  it("is re-sent after 2, 4, 8 … s, so the crashed holder's 120 s lease costs a handful of invocations, not one every 2 s", async () => {
    const world = await worlds.open({ seed: 5 });
    await world.kp.apply(manifestOf(minimal));
    const id = (await world.kp.status('minimal')).clusters.minimal?.id ?? '';
    // An invocation took the lease and died: nobody releases it; it runs out after the lease time (120 s here).
    expect(await world.kp.engine.options.lease.acquire(`clusters/${id}`, 'crashed-invocation', world.kp.engine.leaseSeconds)).not.toBeNull();
    const run = await runEventSourceMapping({ queue: world.queue, handlers: [world.handler], clock: world.sandbox.clock, maxDeliveries: 2000 });
    expect(run.stopped).toBe('idle');
    expect((await world.kp.status('minimal')).clusters.minimal?.state).toBe('DONE');
    const busy = handled(world).filter((l) => l.outcome === 'busy');
    expect(busy.map((l) => [l.resends, l.delaySeconds])).toEqual([
      [1, 2],
      [2, 4],
      [3, 8],
      [4, 16],
      [5, 32],
      [6, 64],
    ]);
    process.stdout.write(`crashed lease holder (120 s lease): ${busy.length} busy invocations (every 2 s: about 60)\n`);
  });
});
