// The one place the Google Cloud runtime makes its API clients: Firestore, Secret Manager and Cloud Tasks, all in
// REST mode (HTTP/1.1 + JSON, the clients' `fallback`/`preferRest`), which starts faster in a function than gRPC and
// is what the sandbox's emulators serve. Credentials come from the environment (the function's service account, via
// google-auth-library's default chain) unless an authClient is given (tests: a static token).
import { Firestore } from '@google-cloud/firestore';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { CloudTasksClient } from '@google-cloud/tasks';
import type { AuthClient } from 'google-auth-library';

/** The Google project, credentials and Firestore database the runtime's clients use. */
export interface GoogleClientOptions {
  projectId: string;
  /** Default: application default credentials (the function's service account). */
  authClient?: AuthClient;
  /** Firestore database id; default `(default)`. */
  databaseId?: string;
}

// google-gax pins its own copy of google-auth-library, so the clients type authClient as that copy's AuthClient; the
// root's is the same class at runtime. Firestore's Settings do not declare the option at all, but pass their settings
// on to google-gax, which takes it (types/firestore.d.ts, Settings: "Accept other properties").
type GaxAuthClient = NonNullable<NonNullable<ConstructorParameters<typeof SecretManagerServiceClient>[0]>['authClient']>;
const auth = (o: GoogleClientOptions): { authClient?: GaxAuthClient } => (o.authClient ? { authClient: o.authClient as unknown as GaxAuthClient } : {});

/** A Firestore client in REST mode. */
export function firestoreClient(o: GoogleClientOptions): Firestore {
  return new Firestore({ projectId: o.projectId, preferRest: true, ...(o.databaseId ? { databaseId: o.databaseId } : {}), ...auth(o) });
}

/** A Secret Manager client in REST mode. */
export function secretManagerClient(o: GoogleClientOptions): SecretManagerServiceClient {
  return new SecretManagerServiceClient({ fallback: true, projectId: o.projectId, ...auth(o) });
}

/** A Cloud Tasks client in REST mode. */
export function cloudTasksClient(o: GoogleClientOptions): CloudTasksClient {
  return new CloudTasksClient({ fallback: true, projectId: o.projectId, ...auth(o) });
}

/** The google.rpc.Code names the adapters act on (https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto). */
export type GoogleStatus = 'NOT_FOUND' | 'ALREADY_EXISTS' | 'FAILED_PRECONDITION' | 'ABORTED' | 'OTHER';

const RPC_CODES: Record<number, GoogleStatus> = { 5: 'NOT_FOUND', 6: 'ALREADY_EXISTS', 9: 'FAILED_PRECONDITION', 10: 'ABORTED' };

/**
 * The canonical status of an error from any of the three clients. In REST mode the clients reject with the HTTP
 * status as `code` and Google's JSON error (`{"error":{"code":409,"status":"ALREADY_EXISTS",…}}`) as the message or
 * the response data; gRPC-style errors carry the numeric google.rpc.Code. The name decides, since one HTTP status
 * covers several codes (409: ALREADY_EXISTS and ABORTED; 400: FAILED_PRECONDITION and INVALID_ARGUMENT).
 */
export function googleStatus(e: unknown): GoogleStatus {
  const err = e as { code?: unknown; message?: unknown; status?: unknown; response?: { data?: unknown }; error?: unknown };
  const named = (v: unknown): GoogleStatus | undefined => {
    const s = typeof v === 'string' ? v : undefined;
    return s === 'NOT_FOUND' || s === 'ALREADY_EXISTS' || s === 'FAILED_PRECONDITION' || s === 'ABORTED' ? s : undefined;
  };
  const fromBody = (body: unknown): GoogleStatus | undefined => {
    let b = body;
    if (typeof b === 'string') {
      try {
        b = JSON.parse(b);
      } catch {
        return undefined;
      }
    }
    const inner = (b as { error?: { status?: unknown } } | null)?.error;
    return inner ? (named(inner.status) ?? 'OTHER') : undefined;
  };
  const found = named(err.status) ?? fromBody(err.response?.data) ?? fromBody(err.message);
  if (found) return found;
  // A gRPC-style numeric code (0-16), as google-gax's GoogleError carries when it decoded the status itself.
  if (typeof err.code === 'number' && err.code <= 16) return RPC_CODES[err.code] ?? 'OTHER';
  if (err.code === 404) return 'NOT_FOUND';
  if (err.code === 412) return 'FAILED_PRECONDITION';
  return 'OTHER';
}
