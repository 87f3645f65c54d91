// The engine's Lease port on Firestore: one document per key in `<prefix>-leases`. A grant is a compare-and-swap on
// the document as read (update-time precondition, or `exists: false` for a key never leased), so of concurrent
// acquirers exactly one commits; the expiry is judged on the injected clock, so a crashed holder needs no unlock;
// the fencing token grows with every new grant and survives releases (a release only expires the document).
import type { Firestore, Precondition } from '@google-cloud/firestore';
import { systemClock, type Clock, type Lease, type LeaseGrant } from '@kubeplane/sdk';
import { firestoreClient, googleStatus } from './google-clients.js';
import { encodeDocumentId, type FirestoreOptions } from './firestore-state-store.js';

export interface FirestoreLeaseOptions extends FirestoreOptions {
  /** Expiry is judged on this clock (the functions' clocks must agree to within a lease's margin). */
  clock?: Clock;
}

interface LeaseDoc {
  owner: string;
  token: number;
  expiresAt: number;
}

export class FirestoreLease implements Lease {
  readonly firestore: Firestore;
  readonly collection: string;
  readonly #clock: Clock;

  constructor(options: FirestoreLeaseOptions) {
    this.firestore = options.firestore ?? firestoreClient(options);
    this.collection = options.collection ?? 'kubeplane-leases';
    this.#clock = options.clock ?? systemClock;
  }

  #ref(key: string) {
    return this.firestore.collection(this.collection).doc(encodeDocumentId(key));
  }

  async acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null> {
    const now = this.#clock.now();
    const snap = await this.#ref(key).get();
    const held = snap.data() as LeaseDoc | undefined;
    if (held && held.expiresAt > now) {
      if (held.owner !== owner) return null;
      return this.renew({ key, ...held }, ttlSeconds);
    }
    const grant: LeaseGrant = { key, owner, token: (held?.token ?? 0) + 1, expiresAt: now + ttlSeconds * 1000 };
    const doc: LeaseDoc = { owner, token: grant.token, expiresAt: grant.expiresAt };
    try {
      if (snap.exists) await this.#ref(key).update({ ...doc }, { lastUpdateTime: snap.updateTime! });
      else await this.#ref(key).create(doc);
      return grant;
    } catch (e) {
      if (lostRace(e)) return null;
      throw e;
    }
  }

  async renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null> {
    const expiresAt = this.#clock.now() + ttlSeconds * 1000;
    return (await this.#update(grant, expiresAt)) ? { ...grant, expiresAt } : null;
  }

  async release(grant: LeaseGrant): Promise<void> {
    await this.#update(grant, 0);
  }

  /** Sets the expiry while the document still holds this grant (owner and token), as read. */
  async #update(grant: LeaseGrant, expiresAt: number): Promise<boolean> {
    const snap = await this.#ref(grant.key).get();
    const held = snap.data() as LeaseDoc | undefined;
    if (!held || held.owner !== grant.owner || held.token !== grant.token) return false;
    const precondition: Precondition = { lastUpdateTime: snap.updateTime! };
    try {
      await this.#ref(grant.key).update({ expiresAt }, precondition);
      return true;
    } catch (e) {
      if (lostRace(e)) return false;
      throw e;
    }
  }
}

/** The document changed (or was made) between the read and the commit: another acquirer won. */
export function lostRace(e: unknown): boolean {
  const code = googleStatus(e);
  return code === 'ALREADY_EXISTS' || code === 'FAILED_PRECONDITION';
}
