import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { FieldValue, Firestore, Timestamp } from '@google-cloud/firestore';
import { OAuth2Client } from 'google-auth-library';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { FirestoreEmulator } from './firestore.js';

const projectId = 'kubeplane-sandbox';
const clock = new VirtualClock();
const emulator = new FirestoreEmulator({ clock });
const server = setupServer(emulator.handler());
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });
type FirestoreAuth = NonNullable<ConstructorParameters<typeof Firestore>[0]>['authClient'];
const db = new Firestore({ projectId, preferRest: true, authClient: authClient as unknown as FirestoreAuth });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(async () => {
  await db.terminate();
  server.close();
});

describe('Firestore emulator through the real client (preferRest)', () => {
  it('sets, gets, updates with preconditions and deletes a document', async () => {
    const ref = db.collection('kubeplane-state').doc('c1');
    const missing = await ref.get();
    expect(missing.exists).toBe(false);
    const created = await ref.create({ phase: 'Pending', generation: 1, spec: { pools: ['a'] } });
    await expect(ref.create({ phase: 'x' })).rejects.toThrow(/already exists/i);
    const snap = await ref.get();
    expect(snap.data()).toEqual({ phase: 'Pending', generation: 1, spec: { pools: ['a'] } });
    expect(snap.updateTime?.isEqual(created.writeTime)).toBe(true);
    clock.advance(1000);
    const updated = await ref.update({ phase: 'Ready', generation: FieldValue.increment(1) }, { lastUpdateTime: snap.updateTime as Timestamp });
    await expect(ref.update({ phase: 'Stale' }, { lastUpdateTime: snap.updateTime as Timestamp })).rejects.toThrow(/does not match the required base version/);
    expect((await ref.get()).data()).toEqual({ phase: 'Ready', generation: 2, spec: { pools: ['a'] } });
    const merged = await ref.set({ extra: true }, { merge: true });
    expect((await ref.get()).get('extra')).toBe(true);
    await expect(db.collection('kubeplane-state').doc('nope').update({ a: 1 })).rejects.toThrow(/No document to update/);
    await expect(ref.delete({ lastUpdateTime: snap.updateTime as Timestamp })).rejects.toThrow(/base version/);
    expect(merged.writeTime > updated.writeTime).toBe(true);
    await ref.delete({ lastUpdateTime: merged.writeTime });
    expect((await ref.get()).exists).toBe(false);
    expect(emulator.counts().deletes).toBe(1);
  });

  it('gives unique, increasing update times within one clock millisecond', async () => {
    const a = await db.collection('t').doc('a').set({ n: 1 });
    const b = await db.collection('t').doc('b').set({ n: 2 });
    expect(b.writeTime.toMillis()).toBe(a.writeTime.toMillis());
    expect(b.writeTime > a.writeTime).toBe(true);
  });

  it('runs where/orderBy/limit/cursor queries', async () => {
    const col = db.collection('kubeplane-leases');
    for (const [id, n, owner] of [
      ['a', 5, 'x'],
      ['b', 1, 'y'],
      ['c', 3, 'x'],
      ['d', 9, 'z'],
      ['e', 7, 'x'],
    ] as const)
      await col.doc(id).set({ n, owner });
    const ids = async (q: FirebaseFirestore.Query): Promise<string[]> => (await q.get()).docs.map((d) => d.id);
    expect(await ids(col.where('owner', '==', 'x').orderBy('n', 'desc'))).toEqual(['e', 'a', 'c']);
    expect(await ids(col.where('n', '>=', 3).where('n', '<', 9).orderBy('n').limit(2))).toEqual(['c', 'a']);
    expect(await ids(col.where('owner', 'in', ['y', 'z']))).toEqual(['b', 'd']);
    expect(await ids(col.orderBy('n').startAfter(5))).toEqual(['e', 'd']);
    expect(await ids(col.where('n', '<=', 1))).toEqual(['b']);
    expect(await ids(col.where('n', '>', 100))).toEqual([]);
  });

  it('runs concurrent read-modify-write transactions one after another: what a transaction read is locked', async () => {
    const ref = db.collection('kubeplane-budgets').doc('hetzner');
    await ref.set({ used: 0 });
    let attempts = 0;
    const spend = (): Promise<void> =>
      db.runTransaction(async (tx) => {
        attempts += 1;
        const used = ((await tx.get(ref)).get('used') as number) ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 5));
        tx.update(ref, { used: used + 1 });
      });
    await Promise.all([spend(), spend(), spend()]);
    expect((await ref.get()).get('used')).toBe(3);
    // Each waited for the lock of the one before instead of aborting (a REST client backs off 60 s on ABORTED).
    expect(attempts).toBe(3);
  });

  it('holds a plain write until the transaction that read the document ends', async () => {
    const ref = db.collection('kubeplane-budgets').doc('locked');
    await ref.set({ v: 'before' });
    const order: string[] = [];
    let write: Promise<unknown> | undefined;
    await db.runTransaction(async (tx) => {
      await tx.get(ref);
      write = ref.set({ v: 'plain' }).then(() => order.push('plain'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      tx.set(ref, { v: 'transaction' });
      order.push('transaction');
    });
    await write;
    expect(order).toEqual(['transaction', 'plain']);
    expect((await ref.get()).get('v')).toBe('plain');
  });

  it('refuses a document over 1 MiB and serves a named database', async () => {
    await expect(
      db
        .collection('big')
        .doc('x')
        .set({ blob: 'x'.repeat(1_048_576) }),
    ).rejects.toThrow(/exceeds the maximum allowed size/);
    const named = new Firestore({ projectId, databaseId: 'kp', preferRest: true, authClient: authClient as unknown as FirestoreAuth });
    await named.collection('c').doc('d').set({ v: 1 });
    expect(emulator.documentNames(`projects/${projectId}/databases/kp/`)).toEqual([`projects/${projectId}/databases/kp/documents/c/d`]);
    expect((await db.collection('c').doc('d').get()).exists).toBe(false);
    await named.terminate();
  });

  it('counts reads the billed way', async () => {
    const before = emulator.counts();
    await db.collection('kubeplane-leases').where('owner', '==', 'nobody').get();
    await db.collection('kubeplane-leases').where('owner', '==', 'x').get();
    const after = emulator.counts();
    expect(after.reads - before.reads).toBe(1 + 3);
  });
});

describe('Firestore values and transforms through the real client', () => {
  it('keeps nulls, timestamps, bytes, nested maps and arrays, and applies server timestamps, increments and array unions', async () => {
    const ref = db.collection('kubeplane-dead-letters').doc('v');
    const at = Timestamp.fromMillis(clock.now() + 5000);
    await ref.set({ none: null, at, raw: Buffer.from([1, 2, 3]), nested: { list: [1, 'two', { three: 3.5 }] }, n: 1, tags: ['a'] });
    await ref.update({ stamped: FieldValue.serverTimestamp(), n: FieldValue.increment(2), tags: FieldValue.arrayUnion('a', 'b'), none: null });
    const data = (await ref.get()).data() as Record<string, unknown>;
    expect(data).toMatchObject({ none: null, nested: { list: [1, 'two', { three: 3.5 }] }, n: 3, tags: ['a', 'b'] });
    expect((data.at as Timestamp).isEqual(at)).toBe(true);
    expect(Buffer.from(data.raw as Uint8Array)).toEqual(Buffer.from([1, 2, 3]));
    expect((data.stamped as Timestamp).toMillis()).toBe(clock.now());
    const due = await db
      .collection('kubeplane-dead-letters')
      .where('at', '<', Timestamp.fromMillis(clock.now() + 10_000))
      .get();
    expect(due.docs.map((d) => d.id)).toEqual(['v']);
    expect((await db.collection('kubeplane-dead-letters').where('none', '==', null).get()).size).toBe(1);
  });

  it('queries a subcollection and a collection group', async () => {
    await db.doc('clusters/c1/events/e1').set({ n: 1 });
    await db.doc('clusters/c1/events/e2').set({ n: 2 });
    await db.doc('clusters/c2/events/e3').set({ n: 3 });
    expect((await db.collection('clusters/c1/events').orderBy('n', 'desc').get()).docs.map((d) => d.id)).toEqual(['e2', 'e1']);
    expect((await db.collectionGroup('events').where('n', '>=', 2).get()).docs.map((d) => d.ref.path)).toEqual([
      'clusters/c1/events/e2',
      'clusters/c2/events/e3',
    ]);
  });

  it('lists documents and reads several at once', async () => {
    const docs = await db.collection('kubeplane-leases').listDocuments();
    expect(docs.map((d) => d.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const got = await db.getAll(db.doc('kubeplane-leases/a'), db.doc('kubeplane-leases/zz'));
    expect(got.map((s) => s.exists)).toEqual([true, false]);
  });
});

describe('Firestore transactions that are left open', () => {
  it('lose their locks once idle for 60 s on the clock (a crashed function), so others proceed', async () => {
    const ref = db.collection('kubeplane-leases').doc('abandoned');
    await ref.set({ owner: 'none' });
    const database = `projects/${projectId}/databases/(default)`;
    const begun = await fetch(`https://firestore.googleapis.com/v1/${database}/documents:batchGet`, {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: JSON.stringify({ documents: [`${database}/documents/kubeplane-leases/abandoned`], newTransaction: { readWrite: {} } }),
    });
    expect(begun.status).toBe(200);
    clock.advance(61_000);
    const started = Date.now();
    await ref.set({ owner: 'next' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await ref.get()).get('owner')).toBe('next');
  });

  it('abort a plain write that waited longer than the lock wait, naming the lock timeout', async () => {
    const strict = new FirestoreEmulator({ clock, lockWaitMs: 50 });
    const database = 'projects/p/databases/(default)';
    const call = (path: string, body: unknown): Promise<Response> =>
      strict.handle(
        new Request(`https://firestore.googleapis.com/v1/${database}/documents:${path}`, {
          method: 'POST',
          headers: { authorization: 'Bearer t' },
          body: JSON.stringify(body),
        }),
      );
    await call('commit', { writes: [{ update: { name: `${database}/documents/c/d`, fields: {} } }] });
    expect((await call('batchGet', { documents: [`${database}/documents/c/d`], newTransaction: { readWrite: {} } })).status).toBe(200);
    const blocked = await call('commit', { writes: [{ update: { name: `${database}/documents/c/d`, fields: { v: { integerValue: '1' } } } }] });
    expect(blocked.status).toBe(409);
    expect(await blocked.json()).toEqual({ error: { code: 409, message: 'Transaction lock timeout. Please try again.', status: 'ABORTED' } });
  });
});
