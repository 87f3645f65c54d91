// Dead letters for the Cloud Tasks runtime, which has no dead-letter queue: a task that reaches its last attempt is
// recorded here (pending) before its step runs. If the step returns, the record goes; if it throws, the cluster is
// marked ERROR and the record kept ('failed'); if the function crashed or timed out, the record stays pending and
// the watchdog marks the cluster once the dispatch deadline has passed ('expired'). Kept records are for people:
// the message, the reason, when — the same thing SQS's kept dead-letter queue holds on AWS.
import { createHash } from 'node:crypto';
import type { Firestore } from '@google-cloud/firestore';
import type { StepEvent } from '@kubeplane/sdk';
import { firestoreClient, googleStatus } from './google-clients.js';
import type { FirestoreOptions } from './firestore-state-store.js';

/** Where a dead letter stands: awaiting its last attempt, failed, expired or not a step message. */
export type DeadLetterStatus = 'pending' | 'failed' | 'expired' | 'invalid';

/** A step message on its last attempt, recorded before its step runs. */
export interface DeadLetter {
  id: string;
  /** The task's full name (or the request's, for a message that was not a step event). */
  task: string;
  status: DeadLetterStatus;
  /** The message as received (JSON text). */
  body: string;
  event?: StepEvent;
  reason?: string;
  /** ms */
  recordedAt: number;
  /** ms: when a pending record's delivery can no longer be running (its dispatch deadline). */
  deadlineAt: number;
}

/** Dead letters of the Cloud Tasks runtime in Firestore, which stands in for a dead-letter queue. */
export class FirestoreDeadLetters {
  readonly firestore: Firestore;
  readonly collection: string;

  constructor(options: FirestoreOptions) {
    this.firestore = options.firestore ?? firestoreClient(options);
    this.collection = options.collection ?? 'kubeplane-dead-letters';
  }

  /** One record per task (ids are a hash: task names hold '/'); a retried last attempt overwrites its own. */
  idOf(task: string): string {
    return createHash('sha256').update(task).digest('hex').slice(0, 40);
  }

  /** Records a dead letter (one per task; a retried last attempt overwrites its own). */
  async record(letter: Omit<DeadLetter, 'id'>): Promise<DeadLetter> {
    const id = this.idOf(letter.task);
    const doc = Object.fromEntries(Object.entries({ ...letter, id }).filter(([, v]) => v !== undefined));
    await this.firestore.collection(this.collection).doc(id).set(doc);
    return { ...letter, id };
  }

  /** Sets a record's status and reason; false when it is gone (its delivery finished after all and removed it). */
  async update(id: string, status: DeadLetterStatus, reason: string): Promise<boolean> {
    try {
      await this.firestore.collection(this.collection).doc(id).update({ status, reason });
      return true;
    } catch (e) {
      if (googleStatus(e) === 'NOT_FOUND') return false;
      throw e;
    }
  }

  /** Removes a dead letter. */
  async remove(id: string): Promise<void> {
    await this.firestore.collection(this.collection).doc(id).delete();
  }

  /** The dead letter of this id, or null. */
  async get(id: string): Promise<DeadLetter | null> {
    const snap = await this.firestore.collection(this.collection).doc(id).get();
    return snap.exists ? (snap.data() as DeadLetter) : null;
  }

  /** Pending records whose deadline is before `now` (the deliveries that crashed or timed out on their last attempt). */
  async overdue(now: number): Promise<DeadLetter[]> {
    const page = await this.firestore.collection(this.collection).where('status', '==', 'pending').get();
    return page.docs.map((d) => d.data() as DeadLetter).filter((d) => d.deadlineAt < now);
  }

  /** Every dead letter. */
  async list(): Promise<DeadLetter[]> {
    const page = await this.firestore.collection(this.collection).get();
    return page.docs.map((d) => d.data() as DeadLetter).sort((a, b) => a.recordedAt - b.recordedAt);
  }
}
