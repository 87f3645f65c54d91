// Resolves a manifest provider's secretRef to its credential keys, each Redacted, and checks their formats
// (AWS 20/40 characters, Hetzner 64) so a wrong credential fails before any cloud call. Messages name the
// variable or file, never a value.
import { resolve } from 'node:path';
import { credentialRequired, KubeplaneError, PROVIDER_TYPE_INFO, type CredentialKey, type ProviderDef, type Redacted, type SecretRef } from '@kubeplane/sdk';
import { EnvFileSecretResolver } from '@kubeplane/providers';

export type Credentials = Record<string, Redacted<string>>;

/**
 * The keys of a secretRef read locally (env or file), and why a key could not be read from a file (reported only if it
 * turns out to be required). `what` names whose credential it is in messages (`provider aws-1`, `add-on hcloud_csi`).
 */
async function readKeys(
  what: string,
  resource: string,
  ref: SecretRef,
  keys: readonly CredentialKey[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ out: Credentials; unread: Record<string, unknown> }> {
  const resolver = new EnvFileSecretResolver(env);
  const out: Credentials = {};
  const unread: Record<string, unknown> = {};
  if (ref.env) {
    for (const k of keys) {
      const variable = ref.env[k.key];
      if (!variable) continue;
      out[k.key] = await resolver.resolve({ source: 'env', name: variable });
    }
  } else if (ref.file) {
    const path = resolve(cwd, ref.file);
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
  } else {
    throw new KubeplaneError(
      'invalid',
      `${what}: a Kubernetes Secret (${ref.namespace ?? '?'}/${ref.name ?? '?'}) needs a cluster to read it from; locally use secretRef.env or secretRef.file`,
      { resource },
    );
  }
  return { out, unread };
}

export async function resolveCredentials(def: ProviderDef, env: NodeJS.ProcessEnv, cwd: string): Promise<Credentials> {
  const keys = PROVIDER_TYPE_INFO[def.providerType].credentials;
  const { out, unread } = await readKeys(`provider ${def.name}`, def.name, def.secretRef, keys, env, cwd);
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
 * An add-on's credential keys from its secretRef (env or file, as providers' are read locally); messages name the
 * add-on and the variable or file, never a value. Required keys that are missing are refused here.
 */
export async function resolveAddonCredentials(
  ref: SecretRef,
  keys: readonly CredentialKey[],
  what: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<Credentials> {
  const { out, unread } = await readKeys(what, what, ref, keys, env, cwd);
  for (const k of keys) {
    if (!out[k.key] && credentialRequired(k, (key) => out[key] !== undefined))
      throw unread[k.key] ?? new KubeplaneError('auth', `${what}: credential "${k.key}" is missing`, { resource: what });
  }
  return out;
}

/**
 * A static node's SSH private key: its secretRef's `privatekey`, from an environment variable or a YAML/JSON file
 * (a relative path resolves against `cwd`, as providers' files do).
 */
export async function resolveStaticKey(node: string, ref: SecretRef, env: NodeJS.ProcessEnv, cwd: string): Promise<Redacted<string>> {
  const resolver = new EnvFileSecretResolver(env);
  if (ref.env?.['privatekey']) return resolver.resolve({ source: 'env', name: ref.env['privatekey'] });
  if (ref.file) return resolver.resolve({ source: 'file', path: resolve(cwd, ref.file), key: 'privatekey' });
  throw new KubeplaneError(
    'invalid',
    `static node ${node}: its SSH key is read locally from secretRef.env.privatekey or secretRef.file; ` +
      `${ref.awsSecretsManager ? 'awsSecretsManager' : ref.gcpSecretManager ? 'gcpSecretManager' : 'a Kubernetes Secret'} is not read by this runtime`,
    { resource: node },
  );
}
