// The port test suite: every StateStore, SecretStore, Queue and Lease adapter (in-memory, file, DynamoDB,
// SQS, Secrets Manager, ...) must pass these tests, so the engine can rely on their semantics alone.
// Exported as `@kubeplane/sdk/port-suite`; it imports vitest, so it is not part of the main entry point.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../provider/clock.js';
import { isKubeplaneError } from '../../errors.js';
import { Redacted } from '../../redacted.js';
import type { Lease } from '../ports/lease.js';
import type { Queue } from '../ports/queue.js';
import type { SecretStore } from '../ports/secret-store.js';
import type { StateStore } from '../ports/state-store.js';

/** The adapters of one backend under test: a factory for each port it implements. */
export interface PortAdapters {
  /** A fresh, empty StateStore. */
  stateStore(): Promise<StateStore>;
  /** A fresh, empty SecretStore. */
  secretStore(): Promise<SecretStore>;
  /**
   * Queue with a 30 s visibility timeout, on the given clock. Omitted for a push queue (Cloud Tasks v2 has no pull: it
   * sends each task to its handler), whose adapter is a QueueSender with tests of its own; the queue tests are skipped.
   */
  queue?(clock: VirtualClock): Promise<Queue<{ n: number }>>;
  /** A fresh Lease on the given clock. */
  lease(clock: VirtualClock): Promise<Lease>;
  /** Extra checks on how a secret is kept (file modes, encryption), given its name. */
  inspectSecret?(name: string): Promise<void>;
  /**
   * `fifo` (default): one message per group in flight, in order, and deduplication ids honoured — what the
   * memory, file and SQS FIFO queues do. `standard`: neither (an SQS standard queue, which is the only SQS kind
   * with per-message delays); the engine stays correct because the cluster lease serialises a cluster's steps
   * and every message names the step it expects, so the group and deduplication rules are not checked and a
   * test of the standard behaviour takes their place.
   */
  queueSemantics?: 'fifo' | 'standard';
}

const isConflict = (e: unknown) => isKubeplaneError(e) && e.kind === 'conflict';

/** Declares the port test suite (vitest) that every StateStore, SecretStore, Queue and Lease adapter must pass. */
export function describePortSuite(name: string, adapters: PortAdapters): void {
  describe(`${name}: StateStore`, () => {
    it('creates at revision 1 and reads back what was written', async () => {
      const s = await adapters.stateStore();
      expect(await s.put('clusters/a', { x: 1 }, 0)).toBe(1);
      expect(await s.get('clusters/a')).toEqual({ value: { x: 1 }, revision: 1 });
      expect(await s.get('clusters/missing')).toBeNull();
    });

    it('rejects a write on a stale revision with a conflict and keeps the stored value', async () => {
      const s = await adapters.stateStore();
      await s.put('k', 'one', 0);
      await s.put('k', 'two', 1);
      await expect(s.put('k', 'stale', 1)).rejects.toSatisfy(isConflict);
      await expect(s.put('k', 'again', 0)).rejects.toSatisfy(isConflict);
      expect(await s.get('k')).toEqual({ value: 'two', revision: 2 });
    });

    it('lets exactly one of several concurrent writers on the same revision win', async () => {
      const s = await adapters.stateStore();
      await s.put('race', 0, 0);
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => s.put('race', i + 1, 1)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected').every((r) => isConflict((r as PromiseRejectedResult).reason))).toBe(true);
      expect((await s.get('race'))?.revision).toBe(2);
    });

    it('deletes on a matching revision only, and lists keys by prefix in order', async () => {
      const s = await adapters.stateStore();
      await s.put('p/b', 1, 0);
      await s.put('p/a', 1, 0);
      await s.put('q/a', 1, 0);
      expect(await s.list('p/')).toEqual(['p/a', 'p/b']);
      await expect(s.delete('p/a', 2)).rejects.toSatisfy(isConflict);
      await s.delete('p/a', 1);
      await s.delete('p/never', 0);
      expect(await s.list('p/')).toEqual(['p/b']);
    });

    it('refuses a write fenced by an older lease token than one written before, and writes nothing', async () => {
      const s = await adapters.stateStore();
      await s.put('clusters/f', 'by-1', 0, { fence: 1 });
      await s.put('clusters/f', 'by-3', 1, { fence: 3 });
      // The holder of token 2 lost its lease to token 3: even on the current revision its write is refused.
      const refused = await s.put('clusters/f', 'by-2', 2, { fence: 2 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isConflict(refused)).toBe(true);
      expect(isKubeplaneError(refused) && refused.details.code).toBe('Fenced');
      expect(await s.get('clusters/f')).toEqual({ value: 'by-3', revision: 2 });
      // The same token again, or a newer one, writes.
      expect(await s.put('clusters/f', 'by-3-again', 2, { fence: 3 })).toBe(3);
      expect(await s.put('clusters/f', 'by-4', 3, { fence: 4 })).toBe(4);
    });

    it("keeps a key's fence through its deletion: a holder of a deleted life cannot overwrite the key made again", async () => {
      const s = await adapters.stateStore();
      // Life 1: written unfenced (apply holds no lease), then under token 2, then deleted (destroy).
      await s.put('clusters/d', 'life-1', 0);
      await s.put('clusters/d', 'life-1-step', 1, { fence: 2 });
      await s.delete('clusters/d', 2);
      expect(await s.get('clusters/d')).toBeNull();
      expect(await s.list('clusters/')).not.toContain('clusters/d');
      // Life 2 continues the revisions (3); a holder of life 1 (token 1) writes on life 2's revision: fenced.
      expect(await s.put('clusters/d', 'life-2', 0)).toBe(3);
      const refused = await s.put('clusters/d', 'late', 3, { fence: 1 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isKubeplaneError(refused) && refused.details.code).toBe('Fenced');
      expect((await s.get<string>('clusters/d'))?.value).toBe('life-2');
      expect(await s.put('clusters/d', 'life-2-step', 3, { fence: 3 })).toBe(4);
    });

    it('keeps counting revisions across a deletion, so a revision read in an earlier life never matches (no ABA)', async () => {
      const s = await adapters.stateStore();
      // Life 1 reaches revision 2; a writer reads it there and stalls. Destroy deletes the key; apply makes it again.
      await s.put('projects/p', 'life-1', 0);
      await s.put('projects/p', 'life-1-b', 1);
      await s.delete('projects/p', 2);
      expect(await s.put('projects/p', 'life-2', 0)).toBe(3);
      expect(await s.get('projects/p')).toEqual({ value: 'life-2', revision: 3 });
      // Life 1's revisions 1 and 2 (and a delete on them) are all stale now, unfenced or not.
      await expect(s.put('projects/p', 'late', 2)).rejects.toSatisfy(isConflict);
      await expect(s.put('projects/p', 'late', 1)).rejects.toSatisfy(isConflict);
      await expect(s.delete('projects/p', 2)).rejects.toSatisfy(isConflict);
      expect(await s.put('projects/p', 'life-2-b', 3)).toBe(4);
      // A third life continues from the second.
      await s.delete('projects/p', 4);
      expect(await s.put('projects/p', 'life-3', 0)).toBe(5);
    });

    it('refuses a delete fenced by an older lease token, and deletes nothing', async () => {
      const s = await adapters.stateStore();
      await s.put('clusters/e', 'by-4', 0, { fence: 4 });
      const refused = await s.delete('clusters/e', 1, { fence: 3 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isKubeplaneError(refused) && refused.details.code).toBe('Fenced');
      expect(await s.get('clusters/e')).toEqual({ value: 'by-4', revision: 1 });
      await s.delete('clusters/e', 1, { fence: 5 });
      expect(await s.get('clusters/e')).toBeNull();
      // The deleting holder's token (5) outlives the deletion too.
      await expect(s.put('clusters/e', 'late', 0, { fence: 4 })).rejects.toSatisfy(isConflict);
      expect(await s.put('clusters/e', 'next', 0, { fence: 6 })).toBe(2);
    });

    it('keeps the stored fence through writes without one, which are checked by revision only', async () => {
      const s = await adapters.stateStore();
      await s.put('clusters/g', 'fenced', 0, { fence: 5 });
      expect(await s.put('clusters/g', 'unfenced', 1)).toBe(2);
      await expect(s.put('clusters/g', 'old-holder', 2, { fence: 4 })).rejects.toSatisfy(isConflict);
      await expect(s.put('clusters/g', 'stale', 1)).rejects.toSatisfy(isConflict);
      expect(await s.get('clusters/g')).toEqual({ value: 'unfenced', revision: 2 });
      expect(await s.put('clusters/g', 'holder', 2, { fence: 5 })).toBe(3);
    });

    it('stores and lists keys whose segments are as long as a manifest name may be (253 characters)', async () => {
      const s = await adapters.stateStore();
      const long = `projects/${'a'.repeat(120)}.${'b'.repeat(132)}`;
      const longer = `projects/${'a'.repeat(120)}.${'c'.repeat(132)}`;
      await s.put(long, { n: 1 }, 0);
      await s.put(longer, { n: 2 }, 0);
      expect(await s.get(long)).toEqual({ value: { n: 1 }, revision: 1 });
      expect(await s.get(longer)).toEqual({ value: { n: 2 }, revision: 1 });
      expect(await s.list('projects/')).toEqual([long, longer].sort());
      await s.delete(long, 1);
      expect(await s.list('projects/')).toEqual([longer]);
    });

    it('refuses keys that could escape the store', async () => {
      const s = await adapters.stateStore();
      await expect(s.put('../etc/passwd', 1, 0)).rejects.toThrow(/not a valid state key/);
    });
  });

  describe(`${name}: SecretStore`, () => {
    it('returns secrets wrapped so they print as [redacted]', async () => {
      const s = await adapters.secretStore();
      await s.put('clusters/c1/ca-key', Redacted.of('-----BEGIN PRIVATE KEY-----abc'), { cluster: 'c1' });
      const got = await s.get('clusters/c1/ca-key');
      expect(got?.reveal()).toBe('-----BEGIN PRIVATE KEY-----abc');
      expect(JSON.stringify({ got })).toBe('{"got":"[redacted]"}');
      expect(`${String(got)}`).toBe('[redacted]');
      await adapters.inspectSecret?.('clusters/c1/ca-key');
    });

    it('lists by labels, replaces on put and deletes idempotently', async () => {
      const s = await adapters.secretStore();
      await s.put('a', Redacted.of('1'), { cluster: 'c1', output: 'kubeconfig' });
      await s.put('b', Redacted.of('2'), { cluster: 'c2' });
      await s.put('a', Redacted.of('3'), { cluster: 'c1', output: 'kubeconfig' });
      expect((await s.list({ cluster: 'c1' })).map((e) => e.name)).toEqual(['a']);
      expect((await s.get('a'))?.reveal()).toBe('3');
      await s.delete('a');
      await s.delete('a');
      expect(await s.get('a')).toBeNull();
      expect((await s.list()).map((e) => e.name)).toEqual(['b']);
    });
  });

  describe(`${name}: SecretStore create`, () => {
    it('creates a secret once: a second create of the name leaves the first value and says it did not create', async () => {
      const s = await adapters.secretStore();
      expect(await s.create('clusters/c1/pki', Redacted.of('first'), { cluster: 'c1' })).toBe(true);
      expect(await s.create('clusters/c1/pki', Redacted.of('second'), { cluster: 'c1' })).toBe(false);
      expect((await s.get('clusters/c1/pki'))?.reveal()).toBe('first');
      expect((await s.list({ cluster: 'c1' })).map((e) => e.name)).toEqual(['clusters/c1/pki']);
    });

    it('lets exactly one of concurrent creators win, and every one reads the winner', async () => {
      const s = await adapters.secretStore();
      const won = await Promise.all(['a', 'b', 'c', 'd'].map((v) => s.create('clusters/c2/pki', Redacted.of(v))));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect((await s.get('clusters/c2/pki'))?.reveal()).toBe(['a', 'b', 'c', 'd'][won.indexOf(true)]);
    });
  });

  const queue = adapters.queue?.bind(adapters);
  if (queue)
    describe(`${name}: Queue`, () => {
      it('holds a delayed message until its delay has passed', async () => {
        const clock = new VirtualClock();
        const q = await queue(clock);
        await q.send({ n: 1 }, { groupId: 'g', delaySeconds: 60 });
        expect(await q.receive(10)).toEqual([]);
        expect(await q.nextVisibleAt()).toBe(clock.now() + 60_000);
        clock.advance(60_000);
        expect((await q.receive(10)).map((m) => m.body)).toEqual([{ n: 1 }]);
      });

      it('delivers an unacknowledged message again after the visibility timeout (at least once)', async () => {
        const clock = new VirtualClock();
        const q = await queue(clock);
        await q.send({ n: 1 }, { groupId: 'g' });
        const [first] = await q.receive(1);
        expect(first?.receiveCount).toBe(1);
        expect(await q.receive(1)).toEqual([]);
        clock.advance(30_001);
        const [again] = await q.receive(1);
        expect(again?.receiveCount).toBe(2);
        await q.ack(first?.receipt ?? ''); // a stale receipt changes nothing
        expect(await q.size()).toBe(1);
        await q.ack(again?.receipt ?? '');
        expect(await q.size()).toBe(0);
      });

      const fifo = (adapters.queueSemantics ?? 'fifo') === 'fifo';
      if (!fifo) {
        it('delivers every due message, even of a group with a message in flight, and keeps each until acknowledged (standard queue)', async () => {
          const clock = new VirtualClock();
          const q = await queue(clock);
          await q.send({ n: 1 }, { groupId: 'a' });
          await q.send({ n: 2 }, { groupId: 'a' });
          await q.send({ n: 3 }, { groupId: 'b', deduplicationId: 'x' });
          await q.send({ n: 3 }, { groupId: 'b', deduplicationId: 'x' });
          const batch = await q.receive(10);
          expect(batch.map((m) => m.body.n).sort()).toEqual([1, 2, 3, 3]);
          for (const m of batch) await q.ack(m.receipt);
          expect(await q.size()).toBe(0);
          expect(await q.nextVisibleAt()).toBeNull();
        });
      }

      if (fifo)
        it('delivers one message per group at a time, in order, while other groups proceed', async () => {
          const clock = new VirtualClock();
          const q = await queue(clock);
          await q.send({ n: 1 }, { groupId: 'a' });
          await q.send({ n: 2 }, { groupId: 'a' });
          await q.send({ n: 3 }, { groupId: 'b' });
          const batch = await q.receive(10);
          expect(batch.map((m) => m.body.n).sort()).toEqual([1, 3]);
          expect(await q.receive(10)).toEqual([]);
          await q.ack(batch.find((m) => m.body.n === 1)?.receipt ?? '');
          expect((await q.receive(10)).map((m) => m.body.n)).toEqual([2]);
        });

      it('does not hold a due message back behind a delayed older one of its group', async () => {
        const clock = new VirtualClock();
        const q = await queue(clock);
        await q.send({ n: 1 }, { groupId: 'g', delaySeconds: 30 });
        await q.send({ n: 2 }, { groupId: 'g' });
        expect(await q.nextVisibleAt()).toBe(clock.now());
        expect((await q.receive(10)).map((m) => m.body.n)).toEqual([2]);
      });

      if (fifo)
        it('reports the next delivery of a group with a message in flight as when that message times out', async () => {
          const clock = new VirtualClock();
          const q = await queue(clock);
          await q.send({ n: 1 }, { groupId: 'g' });
          await q.send({ n: 2 }, { groupId: 'g', delaySeconds: 5 });
          await q.receive(1);
          expect(await q.nextVisibleAt()).toBe(clock.now() + 30_000);
          clock.advance(30_000);
          expect((await q.receive(10)).map((m) => m.body.n)).toEqual([1]);
        });

      if (fifo)
        it('drops a duplicate sent with the same deduplication id', async () => {
          const q = await queue(new VirtualClock());
          await q.send({ n: 1 }, { groupId: 'g', deduplicationId: 'step-1' });
          await q.send({ n: 1 }, { groupId: 'g', deduplicationId: 'step-1' });
          await q.send({ n: 2 }, { groupId: 'g', deduplicationId: 'step-2' });
          expect(await q.size()).toBe(2);
        });

      it('makes a released message visible again after the given delay', async () => {
        const clock = new VirtualClock();
        const q = await queue(clock);
        await q.send({ n: 1 }, { groupId: 'g' });
        const [m] = await q.receive(1);
        await q.release(m?.receipt ?? '', 5);
        expect(await q.receive(1)).toEqual([]);
        clock.advance(5000);
        expect((await q.receive(1))[0]?.receiveCount).toBe(2);
      });
    });

  describe(`${name}: Lease`, () => {
    it('is held by one owner at a time', async () => {
      const clock = new VirtualClock();
      const l = await adapters.lease(clock);
      const a = await l.acquire('cluster/c1', 'a', 60);
      expect(a?.owner).toBe('a');
      expect(await l.acquire('cluster/c1', 'b', 60)).toBeNull();
      expect((await l.acquire('cluster/c2', 'b', 60))?.owner).toBe('b');
    });

    it('expires, so another owner takes over without a manual unlock, with a larger fencing token', async () => {
      const clock = new VirtualClock();
      const l = await adapters.lease(clock);
      const a = await l.acquire('c', 'a', 60);
      clock.advance(60_001);
      const b = await l.acquire('c', 'b', 60);
      expect(b?.owner).toBe('b');
      expect(b?.token).toBeGreaterThan(a?.token ?? Infinity);
      expect(await l.renew(a!, 60)).toBeNull();
      expect((await l.renew(b!, 120))?.expiresAt).toBe(clock.now() + 120_000);
    });

    it('grants one of several concurrent acquirers', async () => {
      const l = await adapters.lease(new VirtualClock());
      const grants = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((o) => l.acquire('c', o, 60)));
      expect(grants.filter((g) => g !== null)).toHaveLength(1);
    });

    it('can be released for the next owner, whose token still grows', async () => {
      const l = await adapters.lease(new VirtualClock());
      const a = await l.acquire('c', 'a', 60);
      await l.release(a!);
      const b = await l.acquire('c', 'b', 60);
      expect(b?.token).toBeGreaterThan(a!.token);
    });
  });
}
