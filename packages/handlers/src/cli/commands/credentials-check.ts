// Resolves every provider's credentials of the manifests before a real-cloud apply records anything, so a missing
// HCLOUD_TOKEN or an unreadable credentials file is one line naming the provider, the variable or file and the
// secretRef's file:line — not an ERROR at a later step, after the project was recorded.
import { isKubeplaneError, type ProviderDef, type ValidationIssue, type ValidationResult } from '@kubeplane/sdk';
import { resolveCredentials } from '../../runtime/credentials.js';

/** Where in the manifest the failing part of a secretRef is: the env entry naming the variable, the file, or the ref. */
function pathOf(def: ProviderDef, index: number, resource: string | undefined): string {
  const base = `providers[${index}].secretRef`;
  const ref = def.secretRef;
  if (ref.env) {
    const key = Object.entries(ref.env).find(([, variable]) => variable === resource)?.[0];
    return key ? `${base}.env.${key}` : `${base}.env`;
  }
  if (ref.file) return `${base}.file`;
  if (ref.awsSecretsManager) return `${base}.awsSecretsManager`;
  if (ref.gcpSecretManager) return `${base}.gcpSecretManager`;
  return base;
}

/** One error per provider whose credentials do not resolve here (env and cwd as the runtime will read them). */
export async function checkCredentials(validated: ValidationResult, env: NodeJS.ProcessEnv, cwd: string): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  for (const manifest of validated.manifests) {
    const found: Array<Omit<ValidationIssue, 'file' | 'line' | 'column'>> = [];
    for (const [index, def] of manifest.providers.entries()) {
      try {
        await resolveCredentials(def, env, cwd);
      } catch (e) {
        if (!isKubeplaneError(e)) throw e;
        const message = e.message.startsWith(`provider ${def.name}`) ? e.message : `provider ${def.name}: ${e.message}`;
        found.push({ severity: 'error', path: pathOf(def, index, e.details.resource), message: `${def.providerType} ${message}` });
      }
    }
    issues.push(...validated.locate(manifest, found));
  }
  return issues;
}
