// Which credentials a manifest POSTed to the Google Cloud API may name: only Secret Manager secrets of the runtime's
// own Google project whose id starts with the manifest project's prefix (`kubeplane-providers-<project>-…`). The step
// function runs as one service account for every tenant, so an `env` or `file` reference would hand it its own
// environment or files, and any other secret another project's credentials or the engine's own (`kubeplane-…`).
// The same rule as aws/secret-refs.ts, for Secret Manager's names.
import { gcpSecretVersionName } from '@kubeplane/sdk/internal';
import type { Manifest, SecretRef } from '@kubeplane/sdk';
import type { SecretRefRefusal } from '../aws/secret-refs.js';

/** The default of KUBEPLANE_PROVIDER_SECRET_PREFIX on Google Cloud (secret ids allow no '/'). */
export const GCP_PROVIDER_SECRET_PREFIX = 'kubeplane-providers-';

/** Why the runtime refuses a secretRef (undefined: it may be read); `prefix` is the manifest project's own id prefix. */
export function refusedGcpSecretRef(ref: SecretRef, path: string, prefix: string, googleProject: string): SecretRefRefusal | undefined {
  const only =
    `the serverless API reads credentials only from Secret Manager secrets of project ${googleProject} ` +
    `whose id starts with ${prefix}: use secretRef.gcpSecretManager.secret ${prefix}<name>`;
  if (ref.env)
    return {
      status: 400,
      severity: 'error',
      path: `${path}.env`,
      message: `environment variables are refused: the step function would read its own environment; ${only}`,
    };
  if (ref.file)
    return { status: 400, severity: 'error', path: `${path}.file`, message: `files are refused: the step function would read its own files; ${only}` };
  const gcp = ref.gcpSecretManager;
  if (!gcp)
    return {
      status: 400,
      severity: 'error',
      path: ref.awsSecretsManager ? path : `${path}.name`,
      message: ref.awsSecretsManager
        ? `an AWS Secrets Manager secret is refused: this runtime cannot read it; ${only}`
        : `a Kubernetes Secret (${ref.namespace ?? '?'}/${ref.name ?? '?'}) is refused: the serverless runtime names no cluster to read it from ` +
          `(the CLI and the SDK read it from a named kubeconfig context, --secrets-context); ${only}`,
    };
  const [, project = '', , id = ''] = gcpSecretVersionName(gcp, googleProject).split('/');
  if (project !== googleProject) {
    return {
      status: 403,
      severity: 'error',
      path: `${path}.gcpSecretManager`,
      message: `secret ${gcp.secret} is in project ${project}, not this runtime's (${googleProject}); ${only}`,
    };
  }
  if (!id.startsWith(prefix) || id.length === prefix.length) {
    return {
      status: 403,
      severity: 'error',
      path: `${path}.gcpSecretManager.secret`,
      message: `secret ${id} is not this project's: a manifest may name only secrets whose id starts with ${prefix}`,
    };
  }
  return undefined;
}

/** Every secretRef of the manifest (providers, static nodes, add-ons) that the API refuses, with its path. */
export function refusedGcpSecretRefs(manifest: Manifest, googleProject: string, providerSecretPrefix = GCP_PROVIDER_SECRET_PREFIX): SecretRefRefusal[] {
  const prefix = `${providerSecretPrefix}${manifest.name}-`;
  const refused: SecretRefRefusal[] = [];
  const check = (ref: SecretRef, path: string) => {
    const r = refusedGcpSecretRef(ref, path, prefix, googleProject);
    if (r) refused.push(r);
  };
  for (const [i, p] of manifest.providers.entries()) check(p.secretRef, `providers[${i}].secretRef`);
  for (const [i, pool] of manifest.nodePools.static.entries()) {
    for (const [j, node] of pool.nodes.entries()) check(node.secretRef, `nodePools.static[${i}].nodes[${j}].secretRef`);
  }
  for (const [i, cluster] of manifest.kubernetes.clusters.entries()) {
    for (const [j, addon] of (cluster.addons ?? []).entries()) {
      if (!addon.secretRef || addon.secretRef.fromProvider !== undefined) continue;
      check(addon.secretRef, `kubernetes.clusters[${i}].addons[${j}].secretRef`);
    }
  }
  return refused;
}
