// The names a manifest's `secretRef.gcpSecretManager` may hold, as Google Cloud defines them, and the one resource
// name a runtime reads: `projects/<project>/secrets/<id>/versions/<version>`. Checks return a sentence or null.

/**
 * A secret id: at most 255 letters, digits, '-' and '_' (CreateSecretRequest.secret_id,
 * https://cloud.google.com/python/docs/reference/secretmanager/latest/google.cloud.secretmanager_v1.types.CreateSecretRequest).
 */
const SECRET_ID = /^[A-Za-z0-9_-]{1,255}$/;
/**
 * A project id (6-30 lower-case letters, digits and hyphens, starting with a letter and not ending with a hyphen:
 * https://cloud.google.com/resource-manager/docs/creating-managing-projects) or a project number.
 */
const PROJECT = /^([a-z][a-z0-9-]{4,28}[a-z0-9]|[0-9]{1,20})$/;
/**
 * A version: its number, or an alias (`latest`, or one the user assigned: a letter, then up to 62 letters, digits,
 * '-' and '_': https://cloud.google.com/secret-manager/docs/assign-alias-to-secret-version).
 */
const VERSION = /^([1-9][0-9]*|[A-Za-z][A-Za-z0-9_-]{0,62})$/;
const FULL_NAME = new RegExp(`^projects/(${PROJECT.source.slice(1, -1)})/secrets/(${SECRET_ID.source.slice(1, -1)})$`);

/** The same rules as JSON Schema patterns, for the editor schema (json-schema.ts). */
export const GCP_SECRET_PATTERNS = {
  secret: `^(projects/${PROJECT.source.slice(1, -1)}/secrets/)?${SECRET_ID.source.slice(1)}`,
  version: VERSION.source,
  project: PROJECT.source,
} as const;

/** A Google Secret Manager secret as a manifest names it: secret, version and project. */
export interface GcpSecretManagerRef {
  secret: string;
  version?: string | undefined;
  project?: string | undefined;
}

/** What is wrong with each field of a reference, by field; empty when it is fine. */
export function checkGcpSecretManagerRef(ref: GcpSecretManagerRef): Array<{ field: keyof GcpSecretManagerRef; message: string }> {
  const out: Array<{ field: keyof GcpSecretManagerRef; message: string }> = [];
  const full = FULL_NAME.exec(ref.secret);
  if (!full && !SECRET_ID.test(ref.secret)) {
    out.push({
      field: 'secret',
      message: `"${ref.secret}" is neither a Secret Manager secret id (at most 255 letters, digits, '-' and '_') nor a name projects/<project>/secrets/<id>`,
    });
  }
  if (full && ref.project !== undefined && ref.project !== full[1]) {
    out.push({ field: 'project', message: `project "${ref.project}" differs from the project in the secret's name (${full[1]}); give one or the other` });
  }
  if (ref.project !== undefined && !PROJECT.test(ref.project)) {
    out.push({
      field: 'project',
      message: `"${ref.project}" is not a Google Cloud project id (6-30 lower-case letters, digits and '-', starting with a letter) or number`,
    });
  }
  if (ref.version !== undefined && !VERSION.test(ref.version)) {
    out.push({ field: 'version', message: `"${ref.version}" is not a secret version: a number, or an alias such as latest` });
  }
  return out;
}

/**
 * The version's full resource name, as AccessSecretVersion takes it; `defaultProject` when the reference names
 * none. Assumes a reference checkGcpSecretManagerRef accepted.
 */
export function gcpSecretVersionName(ref: GcpSecretManagerRef, defaultProject: string): string {
  const secret = FULL_NAME.test(ref.secret) ? ref.secret : `projects/${ref.project ?? defaultProject}/secrets/${ref.secret}`;
  return `${secret}/versions/${ref.version ?? 'latest'}`;
}
