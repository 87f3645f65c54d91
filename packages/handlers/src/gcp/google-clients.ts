// The one place the Google Cloud runtime makes its API clients: Firestore, Secret Manager and Cloud Tasks, all in
// REST mode (HTTP/1.1 + JSON, the clients' `fallback`/`preferRest`), which starts faster in a function than gRPC and
// is what the sandbox's emulators serve. Credentials come from the environment (the function's service account, via
// google-auth-library's default chain) unless an authClient is given (tests: a static token).
import { Firestore } from '@google-cloud/firestore';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { CloudTasksClient } from '@google-cloud/tasks';
import type { AuthClient } from 'google-auth-library';

export interface GoogleClientOptions {
  projectId: string;
  /** Default: application default credentials (the function's service account). */
  authClient?: AuthClient;
  /** Firestore database id; default `(default)`. */
  databaseId?: string;
}

// The generated clients type authClient as their own copy of google-auth-library's AuthClient; the shapes agree.
type ClientAuth = { authClient?: never };
const auth = (o: GoogleClientOptions): ClientAuth => (o.authClient ? ({ authClient: o.authClient } as unknown as ClientAuth) : {});

export function firestoreClient(o: GoogleClientOptions): Firestore {
  return new Firestore({ projectId: o.projectId, preferRest: true, ...(o.databaseId ? { databaseId: o.databaseId } : {}), ...auth(o) });
}

export function secretManagerClient(o: GoogleClientOptions): SecretManagerServiceClient {
  return new SecretManagerServiceClient({ fallback: true, projectId: o.projectId, ...auth(o) });
}

export function cloudTasksClient(o: GoogleClientOptions): CloudTasksClient {
  return new CloudTasksClient({ fallback: true, projectId: o.projectId, ...auth(o) });
}

/** A gRPC status code carried by an error from any of the three clients (REST errors carry it too), or undefined. */
export function grpcCode(e: unknown): number | undefined {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/** google.rpc.Code values the adapters act on (https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto). */
export const GrpcCode = { NOT_FOUND: 5, ALREADY_EXISTS: 6, FAILED_PRECONDITION: 9, ABORTED: 10 } as const;
