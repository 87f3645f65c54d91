// Resolves every credential of the manifests before a real-cloud apply records anything, so a missing HCLOUD_TOKEN,
// an unreadable credentials file or a Kubernetes Secret the named cluster does not hold is one line naming the
// provider, node or add-on, where it was looked for and the secretRef's file:line — not an ERROR at a later step,
// after the project was recorded.
import { isKubeplaneError, type ProviderDef, type SecretRef, type ValidationIssue, type ValidationResult } from '@kubeplane/sdk';
import { kubernetesSecretOf, resolveAddonCredentials, resolveCredentials, resolveStaticKey, type CredentialSources } from '../../runtime/credentials.js';

/** Where in the manifest the failing part of a secretRef is: the env entry naming the variable, the file, or the ref. */
function pathOf(ref: SecretRef, base: string, resource: string | undefined): string {
  if (ref.env) {
    const key = Object.entries(ref.env).find(([, variable]) => variable === resource)?.[0];
    return key ? `${base}.env.${key}` : `${base}.env`;
  }
  if (ref.file) return `${base}.file`;
  if (ref.awsSecretsManager) return `${base}.awsSecretsManager`;
  if (ref.gcpSecretManager) return `${base}.gcpSecretManager`;
  return base;
}

export interface CheckOptions {
  /** Only Kubernetes-Secret secretRefs (a sandbox apply with a secrets cluster named: the rest are the sandbox's). */
  kubernetesOnly?: boolean;
}

/**
 * One error per provider, static node and add-on whose secretRef does not resolve here (env, cwd and the secrets
 * cluster as the runtime will read them). Add-ons' Kubernetes Secrets are checked for being readable; their keys are
 * checked by the add-on step, which knows which it needs.
 */
export async function checkCredentials(validated: ValidationResult, sources: CredentialSources, options: CheckOptions = {}): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const wanted = (ref: SecretRef) => !options.kubernetesOnly || kubernetesSecretOf(ref) !== undefined;
  for (const manifest of validated.manifests) {
    const found: Array<Omit<ValidationIssue, 'file' | 'line' | 'column'>> = [];
    const attempt = async (ref: SecretRef, base: string, prefix: (message: string) => string, read: () => Promise<unknown>) => {
      if (!wanted(ref)) return;
      try {
        await read();
      } catch (e) {
        if (!isKubeplaneError(e)) throw e;
        found.push({ severity: 'error', path: pathOf(ref, base, e.details.resource), message: prefix(e.message) });
      }
    };
    for (const [index, def] of manifest.providers.entries()) {
      const prefix = (m: string) => `${def.providerType} ${m.startsWith(`provider ${def.name}`) ? m : `provider ${def.name}: ${m}`}`;
      await attempt(def.secretRef, `providers[${index}].secretRef`, prefix, () => resolveCredentials(def as ProviderDef, sources));
    }
    for (const [i, pool] of manifest.nodePools.static.entries()) {
      for (const [j, node] of pool.nodes.entries()) {
        const name = `${pool.name} (${node.endpoint})`;
        await attempt(
          node.secretRef,
          `nodePools.static[${i}].nodes[${j}].secretRef`,
          (m) => m,
          () => resolveStaticKey(name, node.secretRef, sources),
        );
      }
    }
    for (const [i, cluster] of manifest.kubernetes.clusters.entries()) {
      for (const [j, addon] of (cluster.addons ?? []).entries()) {
        const ref = addon.secretRef;
        if (!ref || ref.fromProvider !== undefined || !kubernetesSecretOf(ref)) continue;
        // No keys asked: the Secret exists and may be read.
        await attempt(
          ref,
          `kubernetes.clusters[${i}].addons[${j}].secretRef`,
          (m) => m,
          () => resolveAddonCredentials(ref, [], `add-on ${addon.name}`, sources),
        );
      }
    }
    issues.push(...validated.locate(manifest, found));
  }
  return issues;
}
