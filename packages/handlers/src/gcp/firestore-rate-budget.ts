// The shared rate budgets on Firestore: one document per budget key in `<prefix>-budgets` holding the bucket's
// `fullAt` (see shared-rate-budget.ts in the sdk), as dynamodb-rate-budget.ts keeps it on DynamoDB. Firestore has no
// conditional update expression, so a take is a read and a commit with an update-time precondition; a lost race
// re-reads and tries again (three rounds, then the caller waits a token's time). Firestore sustains about one write
// per second per document as a soft limit (https://cloud.google.com/firestore/docs/best-practices#high_read_write_and_delete_rates),
// well above what one provider account's budget is taken at in practice (a step makes a handful of calls), and the
// in-process hint decides most refused takes without a call.
import type { Firestore } from '@google-cloud/firestore';
import { SharedRateBudgets, type BucketStore, type BucketTakeResult, type SharedRateBudgetsOptions } from '@kubeplane/sdk/provider';
import { systemClock, type Clock } from '@kubeplane/sdk';
import { firestoreClient } from './google-clients.js';
import { lostRace } from './firestore-lease.js';
import { encodeDocumentId, type FirestoreOptions } from './firestore-state-store.js';

export class FirestoreBucketStore implements BucketStore {
  readonly firestore: Firestore;
  readonly collection: string;

  constructor(options: FirestoreOptions) {
    this.firestore = options.firestore ?? firestoreClient(options);
    this.collection = options.collection ?? 'kubeplane-budgets';
  }

  #ref(key: string) {
    // Budget keys hold ':' (`aws:<account>:<region>`), which document ids allow; '/' is encoded as for state keys.
    return this.firestore.collection(this.collection).doc(encodeDocumentId(key));
  }

  async take(key: string, now: number, addMs: number, slackMs: number, _hint: number | null): Promise<BucketTakeResult> {
    let stored: number | null = null;
    for (let round = 0; round < 3; round++) {
      const snap = await this.#ref(key).get();
      const fullAt = snap.data()?.fullAt as number | undefined;
      stored = fullAt ?? null;
      // A full bucket (fullAt in the past) restarts from now; a draining one grows by the cost, up to the slack.
      const base = fullAt === undefined || fullAt < now ? now : fullAt;
      if (base - now > slackMs + 1e-6) return { granted: false, fullAt: base };
      const next = base + addMs;
      try {
        if (snap.exists) await this.#ref(key).update({ fullAt: next }, { lastUpdateTime: snap.updateTime! });
        else await this.#ref(key).create({ fullAt: next });
        return { granted: true, fullAt: next };
      } catch (e) {
        if (!lostRace(e)) throw e;
      }
    }
    // Three lost races in a row: the bucket is busy; the caller waits a token's time.
    return { granted: false, fullAt: stored };
  }

  async raise(key: string, to: number, ifBelow: number): Promise<void> {
    for (let round = 0; round < 3; round++) {
      const snap = await this.#ref(key).get();
      const fullAt = snap.data()?.fullAt as number | undefined;
      if (fullAt !== undefined && fullAt >= ifBelow) return;
      try {
        if (snap.exists) await this.#ref(key).update({ fullAt: to }, { lastUpdateTime: snap.updateTime! });
        else await this.#ref(key).create({ fullAt: to });
        return;
      } catch (e) {
        if (!lostRace(e)) throw e;
      }
    }
  }
}

/** Where the Firestore rate budgets live and how they allow for requests in flight. */
export interface FirestoreRateBudgetsOptions extends FirestoreOptions, SharedRateBudgetsOptions {
  clock?: Clock;
}

/** The rate budgets every function instance of the deployment shares, in the runtime's budgets collection. */
export function firestoreRateBudgets(options: FirestoreRateBudgetsOptions): SharedRateBudgets {
  return new SharedRateBudgets(
    new FirestoreBucketStore(options),
    options.clock ?? systemClock,
    options.inFlightAllowance === undefined ? {} : { inFlightAllowance: options.inFlightAllowance },
  );
}
