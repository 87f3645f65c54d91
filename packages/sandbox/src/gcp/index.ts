// The sandbox's Google Cloud: Cloud Tasks v2, Firestore v1 and Secret Manager v1 emulators behind their real hosts,
// and Google's ID tokens, for one project and location, on the sandbox's virtual clock.
import type { HttpHandler } from 'msw';
import type { VirtualClock } from '@kubeplane/sdk/provider';
import { CloudTasksEmulator } from './cloud-tasks.js';
import { FirestoreEmulator } from './firestore.js';
import { GoogleIdentityEmulator } from './identity.js';
import { GoogleSecretManagerEmulator } from './secret-manager.js';

/** The Google Cloud project id the sandbox's Google emulators stand for by default. */
export const SANDBOX_GOOGLE_PROJECT = 'kubeplane-sandbox';
/** The Google Cloud location (Cloud Tasks' queues) the sandbox's Google emulators stand for by default. */
export const SANDBOX_GOOGLE_LOCATION = 'europe-west1';

/**
 * What the Google emulators served, as Google bills it: tasks created and dispatched, Firestore reads, writes and
 * deletes, Secret Manager accesses.
 */
export interface GoogleApiCounts {
  tasks: { created: number; duplicates: number; dispatched: number };
  firestore: { requests: number; reads: number; writes: number; deletes: number };
  secretManager: { requests: number; accesses: number };
}

/**
 * The sandbox's Google Cloud, as `sandbox.google`: Cloud Tasks v2, Firestore v1 and Secret Manager v1 at their real
 * hosts, and Google's ID tokens, for one project and location on the virtual clock. Not part of sandbox snapshots.
 */
export class GoogleCloudEmulators {
  readonly project: string;
  readonly location: string;
  readonly identity: GoogleIdentityEmulator;
  readonly tasks: CloudTasksEmulator;
  readonly firestore: FirestoreEmulator;
  readonly secrets: GoogleSecretManagerEmulator;

  constructor(options: { clock: VirtualClock; project?: string; location?: string; firestoreLockWaitMs?: number }) {
    this.project = options.project ?? SANDBOX_GOOGLE_PROJECT;
    this.location = options.location ?? SANDBOX_GOOGLE_LOCATION;
    this.identity = new GoogleIdentityEmulator({ clock: options.clock });
    this.tasks = new CloudTasksEmulator({ clock: options.clock, identity: this.identity });
    this.firestore = new FirestoreEmulator({
      clock: options.clock,
      ...(options.firestoreLockWaitMs !== undefined ? { lockWaitMs: options.firestoreLockWaitMs } : {}),
    });
    this.secrets = new GoogleSecretManagerEmulator({ clock: options.clock });
  }

  /** msw handlers for cloudtasks, firestore, secretmanager.googleapis.com and Google's certs at www.googleapis.com. */
  handlers(): HttpHandler[] {
    return [this.tasks.handler(), this.firestore.handler(), this.secrets.handler(), ...this.identity.handlers()];
  }

  /** Requests and billed operations of each Google API so far. */
  counts(): GoogleApiCounts {
    const f = this.firestore.counts();
    const s = this.secrets.counts();
    return {
      tasks: this.tasks.counts(),
      firestore: { requests: f.requests, reads: f.reads, writes: f.writes, deletes: f.deletes },
      secretManager: { requests: s.requests, accesses: s.accesses },
    };
  }
}

export {
  CloudTasksEmulator,
  retryDelaySeconds,
  CLOUD_TASKS_HOST,
  type TaskDispatch,
  type TaskOutcome,
  type QueueRetry,
  type CloudTasksCounts,
} from './cloud-tasks.js';
export { FirestoreEmulator, FIRESTORE_HOST, type FirestoreCounts } from './firestore.js';
export { GoogleSecretManagerEmulator, SECRET_MANAGER_HOST, type SecretManagerCounts } from './secret-manager.js';
export { GoogleIdentityEmulator, GOOGLE_ISSUER } from './identity.js';
export { GoogleApiError, type GoogleRpcStatus } from './api.js';
