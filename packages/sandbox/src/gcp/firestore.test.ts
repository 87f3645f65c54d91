import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { FieldValue, Firestore, Timestamp } from '@google-cloud/firestore';
import { OAuth2Client } from 'google-auth-library';
import { VirtualClock } from '@kubeplane/sdk';
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
    for (const [id, n, owner] of [['a', 5, 'x'], ['b', 1, 'y'], ['c', 3, 'x'], ['d', 9, 'z'], ['e', 7, 'x']] as const) await col.doc(id).set({ n, owner });
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
    await expect(db.collection('big').doc('x').set({ blob: 'x'.repeat(1_048_576) })).rejects.toThrow(/exceeds the maximum allowed size/);
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
