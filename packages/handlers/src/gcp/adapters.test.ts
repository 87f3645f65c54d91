// The Google Cloud adapters pass the engine's port suite on the sandbox's emulators, through the real clients in REST
// mode: Firestore (state, lease) and Secret Manager (secrets). The queue part of the suite tests pull queues (receive,
// ack, release); Cloud Tasks v2 has no pull — it pushes each task to the step function — so CloudTasksQueue is a
// QueueSender, tested on its own (cloud-tasks-queue.test.ts), and the suite's queue tests are left out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { OAuth2Client } from 'google-auth-library';
import { describePortSuite } from '@kubeplane/sdk/port-suite';
import { isKubeplaneError } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { FirestoreEmulator } from '@kubeplane/sandbox';
import { GoogleSecretManagerEmulator } from '@kubeplane/sandbox';
import { FirestoreStateStore } from './firestore-state-store.js';
import { FirestoreLease } from './firestore-lease.js';
import { FirestoreBucketStore } from './firestore-rate-budget.js';
import { SecretManagerStore } from './secret-manager-store.js';
import { firestoreClient, secretManagerClient } from './google-clients.js';

const projectId = 'kubeplane-sandbox';
const firestoreEmulator = new FirestoreEmulator({ clock: new VirtualClock() });
const secretsEmulator = new GoogleSecretManagerEmulator({ clock: new VirtualClock() });
const server = setupServer(firestoreEmulator.handler(), secretsEmulator.handler());
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });
const firestore = firestoreClient({ projectId, authClient });
const secrets = secretManagerClient({ projectId, authClient });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

let n = 0;
// Each test on fresh collections / a fresh id prefix, as each AWS test on a fresh table.
const fresh = () => `t${++n}`;

describePortSuite('Google Cloud (Firestore, Secret Manager)', {
  async stateStore() {
    return new FirestoreStateStore({ projectId, firestore, collection: `${fresh()}-state` });
  },
  async secretStore() {
    return new SecretManagerStore({ projectId, client: secrets, idPrefix: `${fresh()}-`, settleMs: 1000 });
  },
  async lease(clock) {
    return new FirestoreLease({ projectId, firestore, collection: `${fresh()}-leases`, clock });
  },
});

describe('FirestoreStateStore', () => {
  it('keeps a record larger than a Firestore document may be by compressing it', async () => {
    const store = new FirestoreStateStore({ projectId, firestore, collection: `${fresh()}-state` });
    const machines = Array.from({ length: 20000 }, (_, i) => ({
      name: `hybrid-htz-worker-${i}`,
      id: `srv-${i * 7919}`,
      address: `10.${i % 250}.${i % 7}.${i % 13}`,
      state: 'running',
    }));
    expect(JSON.stringify(machines).length).toBeGreaterThan(1024 * 1024);
    await store.put('clusters/big', { machines }, 0);
    expect((await store.get<{ machines: unknown[] }>('clusters/big'))?.value.machines).toEqual(machines);
  });

  it('stores keys with slashes as single documents whose ids decode back to the key', async () => {
    const collection = `${fresh()}-state`;
    const store = new FirestoreStateStore({ projectId, firestore, collection });
    await store.put('projects/a.b/clusters/c', 1, 0);
    const docs = await firestore.collection(collection).listDocuments();
    expect(docs.map((d) => d.id)).toEqual(['projects%2Fa.b%2Fclusters%2Fc']);
    expect(await store.list('projects/')).toEqual(['projects/a.b/clusters/c']);
  });

  it('lists a prefix across pages, leaving deleted keys out', async () => {
    const store = new FirestoreStateStore({ projectId, firestore, collection: `${fresh()}-state`, listPageSize: 3 });
    const keys = Array.from({ length: 8 }, (_, i) => `clusters/c${i}`);
    for (const k of keys) await store.put(k, 1, 0);
    await store.put('projects/p', 1, 0);
    await store.delete('clusters/c3', 1);
    await store.delete('clusters/c6', 1);
    expect(await store.list('clusters/')).toEqual(keys.filter((k) => k !== 'clusters/c3' && k !== 'clusters/c6'));
    expect(await store.list('')).toHaveLength(7);
  });

  it('of concurrent writers on one revision, exactly one wins and the rest get a conflict', async () => {
    const store = new FirestoreStateStore({ projectId, firestore, collection: `${fresh()}-state` });
    await store.put('clusters/c', 0, 0);
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((v) => store.put('clusters/c', v, 1)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      results
        .filter((r) => r.status === 'rejected')
        .every((r) => isKubeplaneError((r as PromiseRejectedResult).reason) && ((r as PromiseRejectedResult).reason as { kind: string }).kind === 'conflict'),
    ).toBe(true);
    expect((await store.get('clusters/c'))?.revision).toBe(2);
  });
});

describe('FirestoreStateStore reads', () => {
  it('writes on the version it just read or wrote without reading the document again, and still refuses a write another store made in between', async () => {
    const collection = `${fresh()}-state`;
    const store = new FirestoreStateStore({ projectId, firestore, collection });
    const other = new FirestoreStateStore({ projectId, firestore, collection });
    const reads = () => firestoreEmulator.counts().reads;
    await store.put('clusters/c', { step: 1 }, 0);
    const got = await store.get<{ step: number }>('clusters/c');
    const before = reads();
    // The engine's pattern: read, then write on that revision, then write again on the one it wrote.
    expect(await store.put('clusters/c', { step: 2 }, got?.revision ?? -1, { fence: 3 })).toBe(2);
    expect(await store.put('clusters/c', { step: 3 }, 2, { fence: 3 })).toBe(3);
    await store.delete('clusters/c', 3, { fence: 3 });
    expect(reads() - before).toBe(0);
    // Another writer moves the key on; this store's remembered version is stale, and the precondition says so.
    expect(await other.put('clusters/c', { step: 'other' }, 0, { fence: 4 })).toBe(4);
    await expect(store.put('clusters/c', { step: 5 }, 0, { fence: 3 })).rejects.toSatisfy((e: unknown) => isKubeplaneError(e) && e.details.code === 'Fenced');
    await expect(store.put('clusters/c', { step: 5 }, 3, { fence: 4 })).rejects.toSatisfy(
      (e: unknown) => isKubeplaneError(e) && e.details.code === 'RevisionConflict',
    );
    expect(await store.get('clusters/c')).toEqual({ value: { step: 'other' }, revision: 4 });
  });
});

describe('FirestoreLease', () => {
  it('gives one of concurrent acquirers the lease, with a token above every earlier one', async () => {
    const clock = new VirtualClock();
    const lease = new FirestoreLease({ projectId, firestore, collection: `${fresh()}-leases`, clock });
    const first = await lease.acquire('clusters/c', 'w0', 60);
    clock.advance(61_000);
    const grants = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((w) => lease.acquire('clusters/c', w, 60)));
    const won = grants.filter((g) => g !== null);
    expect(won).toHaveLength(1);
    expect(won[0]!.token).toBeGreaterThan(first!.token);
  });
});

describe('FirestoreBucketStore', () => {
  it('grants takes while the bucket has room and refuses past its slack, one document per budget', async () => {
    const collection = `${fresh()}-budgets`;
    const store = new FirestoreBucketStore({ projectId, firestore, collection });
    expect(await store.take('hetzner:p', 1000, 100, 250, null)).toEqual({ granted: true, fullAt: 1100 });
    expect(await store.take('hetzner:p', 1000, 100, 250, 1100)).toEqual({ granted: true, fullAt: 1200 });
    expect(await store.take('hetzner:p', 1000, 100, 250, 1200)).toEqual({ granted: true, fullAt: 1300 });
    expect(await store.take('hetzner:p', 1000, 100, 250, 1300)).toEqual({ granted: false, fullAt: 1300 });
    // Concurrent takers: at most what the slack allows (3 of 100 ms within 250), and each grant counted once.
    const results = await Promise.all(Array.from({ length: 6 }, () => store.take('aws:1:eu-west-1', 5000, 100, 250, null)));
    const granted = results.filter((r) => r.granted).length;
    expect(granted).toBeGreaterThanOrEqual(1);
    expect(granted).toBeLessThanOrEqual(3);
    expect((await firestore.collection(collection).doc('aws:1:eu-west-1').get()).get('fullAt')).toBe(5000 + 100 * granted);
  });
});
