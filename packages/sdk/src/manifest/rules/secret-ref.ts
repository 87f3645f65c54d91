// secretRef: where a provider's credentials or a static machine's SSH key come from (providers, static pools, add-ons).
import { checkGcpSecretManagerRef } from '../gcp-secret-name.js';
import type { IssueCollector, Path } from '../issues.js';
import { credentialRequired, type CredentialKey } from '../provider-types.js';
import type { SecretRef } from '../schema.js';

const ENV_VAR = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One form only; a Kubernetes Secret needs name and namespace; an env map names exactly the provider's keys. */
export function checkSecretRef(out: IssueCollector, path: Path, ref: SecretRef, keys: readonly CredentialKey[]): void {
  const forms = [
    ref.name !== undefined || ref.namespace !== undefined ? 'name/namespace' : null,
    ref.env !== undefined ? 'env' : null,
    ref.file !== undefined ? 'file' : null,
    ref.awsSecretsManager !== undefined ? 'awsSecretsManager' : null,
    ref.gcpSecretManager !== undefined ? 'gcpSecretManager' : null,
  ].filter((f): f is string => f !== null);
  if (forms.length === 0) {
    out.error(path, 'secretRef needs one of: name and namespace (a Kubernetes Secret), env, file, awsSecretsManager, gcpSecretManager');
    return;
  }
  if (forms.length > 1) {
    out.error(path, `secretRef mixes ${forms.join(' and ')}; use exactly one form`);
    return;
  }
  if (forms[0] === 'name/namespace') {
    if (!ref.name) out.error([...path, 'name'], 'secretRef.name is required with secretRef.namespace');
    if (!ref.namespace) out.error([...path, 'namespace'], 'secretRef.namespace is required with secretRef.name');
  }
  if (ref.file !== undefined && ref.file.trim() === '') out.error([...path, 'file'], 'secretRef.file must be a path');
  if (ref.gcpSecretManager) {
    for (const issue of checkGcpSecretManagerRef(ref.gcpSecretManager)) out.error([...path, 'gcpSecretManager', issue.field], issue.message);
  }
  if (ref.env) {
    const allowed = keys.map((k) => k.key);
    for (const [key, variable] of Object.entries(ref.env)) {
      if (!allowed.includes(key)) out.error([...path, 'env', key], `"${key}" is not a credential key here; expected ${allowed.join(', ')}`);
      if (!ENV_VAR.test(variable)) out.error([...path, 'env', key], `"${variable}" is not an environment variable name`);
    }
    const unknownKeys = Object.keys(ref.env).some((key) => !allowed.includes(key));
    for (const k of keys) {
      // An unknown key is usually a misspelt required one: its message already lists what is expected.
      if (credentialRequired(k, (key) => key in (ref.env ?? {})) && !unknownKeys && !(k.key in ref.env)) {
        out.error(
          [...path, 'env'],
          `credential key "${k.key}" is missing; name the environment variable that holds it${k.requiredUnless ? ` (or give ${k.requiredUnless})` : ''}`,
        );
      }
    }
  }
}
