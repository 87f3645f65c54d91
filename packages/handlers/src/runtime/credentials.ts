// Resolves a manifest provider's secretRef to its credential keys, each Redacted, and checks their formats
// (AWS 20/40 characters, Hetzner 64) so a wrong credential fails before any cloud call. Messages name the
// variable, file or Kubernetes Secret, never a value.
import { resolve } from 'node:path';
import { credentialRequired, PROVIDER_TYPE_INFO, type CredentialKey } from '@kubeplane/sdk/internal';
import { KubeplaneError, type ProviderDef, type Redacted, type SecretRef } from '@kubeplane/sdk';
import { EnvFileSecretResolver, kubeconfigFiles, KubernetesSecretResolver } from '@kubeplane/providers';

/** Credential values by key, each redacted. */
export type Credentials = Record<string, Redacted<string>>;

/** Where the local runtime reads secretRefs from: the environment, files (relative to `cwd`), and the secrets cluster. */
export interface CredentialSources {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The cluster Kubernetes-Secret secretRefs are read from, when the user named one (`--secrets-context`). */
  kubernetes?: KubernetesSecretResolver | undefined;
}

/** The secrets cluster's options, as createKubeplane and the CLI take them. */
export interface SecretsClusterOptions {
  /** The kubeconfig context of the cluster Kubernetes-Secret secretRefs are read from; default KUBEPLANE_SECRETS_CONTEXT. */
  secretsContext?: string | undefined;
  /** The kubeconfig file holding it; default KUBEPLANE_SECRETS_KUBECONFIG, then $KUBECONFIG's files, then ~/.kube/config. */
  secretsKubeconfig?: string | undefined;
}

/** The resolver of the cluster the user named (option, else environment); none when no context is named. */
export function secretsClusterResolver(options: SecretsClusterOptions, env: NodeJS.ProcessEnv, cwd: string): KubernetesSecretResolver | undefined {
  const context = options.secretsContext ?? (env['KUBEPLANE_SECRETS_CONTEXT'] || undefined);
  const kubeconfig = options.secretsKubeconfig ?? (env['KUBEPLANE_SECRETS_KUBECONFIG'] || undefined);
  if (context === undefined) {
    if (kubeconfig !== undefined)
      throw new KubeplaneError('invalid', `a secrets kubeconfig (${kubeconfig}) is given without a context: name the context too (${SECRETS_CONTEXT_HOW})`, {
        code: 'SecretsContextMissing',
      });
    return undefined;
  }
  if (context.trim() === '')
    throw new KubeplaneError('invalid', 'the secrets context is empty: name a context of your kubeconfig', { code: 'SecretsContextMissing' });
  return new KubernetesSecretResolver({ context, files: kubeconfigFiles({ context, kubeconfig }, env, cwd) });
}

/** How to name the secrets cluster, for the message that refuses a Kubernetes Secret without one. */
export const SECRETS_CONTEXT_HOW =
  'pass --secrets-context NAME (a context of your kubeconfig; --secrets-kubeconfig FILE for another file than $KUBECONFIG or ~/.kube/config), ' +
  'set KUBEPLANE_SECRETS_CONTEXT, or give createKubeplane({ secretsContext }) in the SDK';

/** A Kubernetes-Secret secretRef (Claudie's form), with both of its names. */
export function kubernetesSecretOf(ref: SecretRef): { namespace: string; name: string } | undefined {
  if (ref.env || ref.file || ref.awsSecretsManager || ref.gcpSecretManager) return undefined;
  return ref.name && ref.namespace ? { namespace: ref.namespace, name: ref.name } : undefined;
}

/** The Kubernetes Secret's keys asked for, read from the named cluster; without one, the error says how to name it. */
async function readSecret(
  what: string,
  resource: string,
  secret: { namespace: string; name: string },
  sources: CredentialSources,
): Promise<Record<string, Redacted<string>>> {
  if (!sources.kubernetes)
    throw new KubeplaneError(
      'invalid',
      `${what}: secretRef names the Kubernetes Secret ${secret.namespace}/${secret.name}, which kubeplane reads from a cluster you name, ` +
        `never from the current context: ${SECRETS_CONTEXT_HOW}`,
      { resource, code: 'SecretsContextMissing' },
    );
  try {
    return await sources.kubernetes.read(secret.namespace, secret.name);
  } catch (e) {
    if (e instanceof KubeplaneError) throw new KubeplaneError(e.kind, `${what}: secretRef: ${e.message}`, { ...e.details, resource });
    throw e;
  }
}

/**
 * The keys of a secretRef read locally (env, file or a Kubernetes Secret), and why a key could not be read (reported
 * only if it turns out to be required). `what` names whose credential it is in messages (`provider aws-1`, `add-on hcloud_csi`).
 */
async function readKeys(
  what: string,
  resource: string,
  ref: SecretRef,
  keys: readonly CredentialKey[],
  sources: CredentialSources,
): Promise<{ out: Credentials; unread: Record<string, unknown> }> {
  const resolver = new EnvFileSecretResolver(sources.env);
  const out: Credentials = {};
  const unread: Record<string, unknown> = {};
  const secret = kubernetesSecretOf(ref);
  if (ref.env) {
    for (const k of keys) {
      const variable = ref.env[k.key];
      if (!variable) continue;
      out[k.key] = await resolver.resolve({ source: 'env', name: variable });
    }
  } else if (ref.file) {
    const path = resolve(sources.cwd, ref.file);
    for (const k of keys) {
      try {
        out[k.key] = await resolver.resolve({ source: 'file', path, key: k.key });
      } catch (e) {
        unread[k.key] = e;
      }
    }
  } else if (ref.awsSecretsManager) {
    throw new KubeplaneError('invalid', `${what}: awsSecretsManager credentials are read by the AWS runtime; locally use secretRef.env or secretRef.file`, {
      resource,
    });
  } else if (ref.gcpSecretManager) {
    throw new KubeplaneError(
      'invalid',
      `${what}: gcpSecretManager credentials are read by the Google Cloud runtime; locally use secretRef.env or secretRef.file`,
      { resource },
    );
  } else if (secret) {
    const data = await readSecret(what, resource, secret, sources);
    for (const k of keys) {
      const value = data[k.key];
      if (value && value.reveal().trim() !== '') out[k.key] = value;
      else
        unread[k.key] = new KubeplaneError(
          'auth',
          `${what}: secretRef: ${sources.kubernetes?.missingKey(secret.namespace, secret.name, k.key, data).message ?? `key ${k.key} is missing`}`,
          { resource, code: 'SecretKeyMissing' },
        );
    }
  } else {
    throw new KubeplaneError('invalid', `${what}: secretRef names no source`, { resource });
  }
  return { out, unread };
}

export async function resolveCredentials(def: ProviderDef, sources: CredentialSources): Promise<Credentials> {
  const keys = PROVIDER_TYPE_INFO[def.providerType].credentials;
  const { out, unread } = await readKeys(`provider ${def.name}`, def.name, def.secretRef, keys, sources);
  for (const k of keys) {
    const value = out[k.key];
    if (!value) {
      if (credentialRequired(k, (key) => out[key] !== undefined))
        throw (
          unread[k.key] ??
          new KubeplaneError('auth', `provider ${def.name}: credential "${k.key}" is missing${k.requiredUnless ? ` (or give ${k.requiredUnless})` : ''}`, {
            resource: def.name,
          })
        );
      continue;
    }
    if (k.format && !k.format.pattern.test(value.reveal())) {
      throw new KubeplaneError('auth', `provider ${def.name}: credential "${k.key}" is not ${k.format.description}`, {
        resource: def.name,
        code: 'MalformedCredential',
      });
    }
  }
  return out;
}

/**
 * An add-on's credential keys from its secretRef (env, file or a Kubernetes Secret, as providers' are read locally);
 * messages name the add-on and where the key was looked for, never a value. Required keys that are missing are refused here.
 */
export async function resolveAddonCredentials(ref: SecretRef, keys: readonly CredentialKey[], what: string, sources: CredentialSources): Promise<Credentials> {
  const { out, unread } = await readKeys(what, what, ref, keys, sources);
  for (const k of keys) {
    if (!out[k.key] && credentialRequired(k, (key) => out[key] !== undefined))
      throw unread[k.key] ?? new KubeplaneError('auth', `${what}: credential "${k.key}" is missing`, { resource: what });
  }
  return out;
}

/**
 * A static node's SSH private key: its secretRef's `privatekey`, from an environment variable, a YAML/JSON file (a
 * relative path resolves against `cwd`, as providers' files do) or a Kubernetes Secret (Claudie's form).
 */
export async function resolveStaticKey(node: string, ref: SecretRef, sources: CredentialSources): Promise<Redacted<string>> {
  const resolver = new EnvFileSecretResolver(sources.env);
  if (ref.env?.['privatekey']) return resolver.resolve({ source: 'env', name: ref.env['privatekey'] });
  if (ref.file) return resolver.resolve({ source: 'file', path: resolve(sources.cwd, ref.file), key: 'privatekey' });
  const secret = kubernetesSecretOf(ref);
  if (secret) {
    const { out, unread } = await readKeys(`static node ${node}`, node, ref, [{ key: 'privatekey', required: true }], sources);
    const key = out['privatekey'];
    if (!key) throw unread['privatekey'];
    return key;
  }
  throw new KubeplaneError(
    'invalid',
    `static node ${node}: its SSH key is read locally from secretRef.env.privatekey, secretRef.file or a Kubernetes Secret; ` +
      `${ref.awsSecretsManager ? 'awsSecretsManager' : 'gcpSecretManager'} is not read by this runtime`,
    { resource: node },
  );
}
