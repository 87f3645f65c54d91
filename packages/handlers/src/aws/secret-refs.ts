// Which credentials a manifest POSTed to the serverless API may name: only AWS Secrets Manager secrets under its own
// project's prefix (`kubeplane-providers/<project>/…`). The step function runs as one role for every tenant, so an
// `env` or `file` reference would hand it its own environment or files (AWS_SECRET_ACCESS_KEY, /proc/self/environ),
// and any other secret id another project's credentials or the engine's own secrets (`kubeplane/<cluster>/…`).
import type { Manifest, SecretRef, ValidationIssue } from '@kubeplane/sdk';

/** The default of ApiHandlerOptions.providerSecretPrefix, as the CDK app grants it (examples/aws/stack.ts). */
export const PROVIDER_SECRET_PREFIX = 'kubeplane-providers/';

/** Why a secretRef is refused by the serverless API, at which manifest path. */
export interface SecretRefRefusal extends Omit<ValidationIssue, 'file' | 'line' | 'column'> {
  /** 400: a reference this runtime never reads; 403: a secret of another project. */
  status: 400 | 403;
}

/** A secret's name from its id, which Secrets Manager accepts as a name or an ARN (`arn:…:secret:<name>[-6 chars]`). */
export function secretName(secretId: string): string {
  const arn = /^arn:aws[a-z-]*:secretsmanager:[^:]*:[^:]*:secret:(.+)$/.exec(secretId);
  return arn?.[1] ?? secretId;
}

/** Why the serverless runtime refuses a secretRef (undefined: it may be read); `prefix` is the project's own folder. */
export function refusedSecretRef(ref: SecretRef, path: string, prefix: string): SecretRefRefusal | undefined {
  const only =
    `the serverless API reads credentials only from AWS Secrets Manager secrets under ${prefix}: ` + `use secretRef.awsSecretsManager.secretId ${prefix}<name>`;
  if (ref.env)
    return {
      status: 400,
      severity: 'error',
      path: `${path}.env`,
      message: `environment variables are refused: the step function would read its own environment; ${only}`,
    };
  if (ref.file)
    return { status: 400, severity: 'error', path: `${path}.file`, message: `files are refused: the step function would read its own files; ${only}` };
  if (ref.gcpSecretManager)
    return {
      status: 400,
      severity: 'error',
      path: `${path}.gcpSecretManager`,
      message: `a Google Secret Manager secret is refused: the AWS runtime cannot read it; ${only}`,
    };
  if (!ref.awsSecretsManager)
    return {
      status: 400,
      severity: 'error',
      path: `${path}.name`,
      message:
        `a Kubernetes Secret (${ref.namespace ?? '?'}/${ref.name ?? '?'}) is refused: the serverless runtime names no cluster to read it from ` +
        `(the CLI and the SDK read it from a named kubeconfig context, --secrets-context); ${only}`,
    };
  const name = secretName(ref.awsSecretsManager.secretId);
  if (!name.startsWith(prefix) || name.slice(prefix.length).length === 0) {
    return {
      status: 403,
      severity: 'error',
      path: `${path}.awsSecretsManager.secretId`,
      message: `secret ${name} is not this project's: a manifest may name only secrets under ${prefix}`,
    };
  }
  return undefined;
}

/** Every secretRef of the manifest (providers, static nodes, add-ons) that the API refuses, with its path. */
export function refusedSecretRefs(manifest: Manifest, providerSecretPrefix = PROVIDER_SECRET_PREFIX): SecretRefRefusal[] {
  const prefix = `${providerSecretPrefix}${manifest.name}/`;
  const refused: SecretRefRefusal[] = [];
  for (const [i, p] of manifest.providers.entries()) {
    const r = refusedSecretRef(p.secretRef, `providers[${i}].secretRef`, prefix);
    if (r) refused.push(r);
  }
  for (const [i, pool] of manifest.nodePools.static.entries()) {
    for (const [j, node] of pool.nodes.entries()) {
      const r = refusedSecretRef(node.secretRef, `nodePools.static[${i}].nodes[${j}].secretRef`, prefix);
      if (r) refused.push(r);
    }
  }
  // Add-ons' own credentials too; `fromProvider` names a provider entry, whose reference is checked above.
  for (const [i, cluster] of manifest.kubernetes.clusters.entries()) {
    for (const [j, addon] of (cluster.addons ?? []).entries()) {
      if (!addon.secretRef || addon.secretRef.fromProvider !== undefined) continue;
      const r = refusedSecretRef(addon.secretRef, `kubernetes.clusters[${i}].addons[${j}].secretRef`, prefix);
      if (r) refused.push(r);
    }
  }
  return refused;
}
