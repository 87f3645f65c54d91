// The engine's Lease port on Firestore: one document per key in `<prefix>-leases`, and the SDK's ConditionalLease
// algorithm over it. A grant is a compare-and-swap on the document as read (update-time precondition, or `create`
// for a key never leased), so of concurrent acquirers exactly one commits; renewing and releasing read the document
// and update its expiry on the update time read, if it still holds the grant's owner and token.
import type { DocumentReference, Firestore, Timestamp } from '@google-cloud/firestore';
import { ConditionalLease, type LeaseRecord, type LeaseTable } from '@kubeplane/sdk/internal';
import { systemClock, type Clock } from '@kubeplane/sdk';
import { firestoreClient, googleStatus } from './google-clients.js';
import { encodeDocumentId, type FirestoreOptions } from './firestore-state-store.js';

/** The Firestore leases' collection, and the clock expiry is judged on. */
export interface FirestoreLeaseOptions extends FirestoreOptions {
  /** Expiry is judged on this clock (the functions' clocks must agree to within a lease's margin). */
  clock?: Clock;
}

/** The engine's Lease port on Firestore, through writes conditional on the document's update time. */
export class FirestoreLease extends ConditionalLease<Timestamp> {
  readonly firestore: Firestore;
  readonly collection: string;

  constructor(options: FirestoreLeaseOptions) {
    const firestore = options.firestore ?? firestoreClient(options);
    const collection = options.collection ?? 'kubeplane-leases';
    super(
      firestoreLeaseTable((key) => firestore.collection(collection).doc(encodeDocumentId(key))),
      options.clock ?? systemClock,
    );
    this.firestore = firestore;
    this.collection = collection;
  }
}

/** Lease records as documents; the version a write is conditioned on is the document's update time. */
function firestoreLeaseTable(ref: (key: string) => DocumentReference): LeaseTable<Timestamp> {
  const read = async (key: string): Promise<{ record: LeaseRecord; version: Timestamp } | null> => {
    const snap = await ref(key).get();
    const record = snap.data() as LeaseRecord | undefined;
    return record && snap.updateTime ? { record, version: snap.updateTime } : null;
  };
  /** Runs a conditional write: false when the document changed (or was made) since it was read. */
  const conditional = async (write: () => Promise<unknown>): Promise<boolean> => {
    try {
      await write();
      return true;
    } catch (e) {
      if (lostRace(e)) return false;
      throw e;
    }
  };
  return {
    read,
    replace(key, record, version) {
      return conditional(() => (version === null ? ref(key).create({ ...record }) : ref(key).update({ ...record }, { lastUpdateTime: version })));
    },
    async extend(key, held, expiresAt) {
      const current = await read(key);
      if (!current || current.record.owner !== held.owner || current.record.token !== held.token) return false;
      return conditional(() => ref(key).update({ expiresAt }, { lastUpdateTime: current.version }));
    },
  };
}

/** The document changed (or was made) between the read and the commit: another acquirer won. */
export function lostRace(e: unknown): boolean {
  const code = googleStatus(e);
  return code === 'ALREADY_EXISTS' || code === 'FAILED_PRECONDITION';
}
