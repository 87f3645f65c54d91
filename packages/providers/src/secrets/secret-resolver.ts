// Resolves a provider's secretRef to credentials wrapped in Redacted: from the environment or a file here, from a
// Kubernetes Secret in kubernetes-secret-resolver.ts. Errors name where the secret was looked for, never what it contains.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { KubeplaneError, Redacted } from '@kubeplane/sdk';

/** Where a secret value is found: an environment variable, a file, or a key of a Kubernetes Secret. */
export type SecretRef =
  /** An environment variable holding the value. */
  | { source: 'env'; name: string }
  /** A file holding the value (trimmed), or a YAML or JSON mapping whose `key` holds it. */
  | { source: 'file'; path: string; key?: string }
  /** A key of a Kubernetes Secret (Claudie's form), read from the cluster the user names (KubernetesSecretResolver). */
  | { source: 'kubernetes'; namespace: string; name: string; key: string };

/** Resolves a SecretRef to its value, wrapped in Redacted. */
export interface SecretResolver {
  /** The value a secretRef points at, redacted. */
  resolve(ref: SecretRef): Promise<Redacted<string>>;
}

function describe(ref: SecretRef): string {
  if (ref.source === 'kubernetes') return `key ${ref.key} of Secret ${ref.namespace}/${ref.name}`;
  return ref.source === 'env' ? `environment variable ${ref.name}` : `file ${ref.path}${ref.key ? ` (key ${ref.key})` : ''}`;
}

/** Resolves secretRefs to environment variables and files. */
export class EnvFileSecretResolver implements SecretResolver {
  readonly #env: Readonly<Record<string, string | undefined>>;

  constructor(env: Readonly<Record<string, string | undefined>> = process.env) {
    this.#env = env;
  }

  /** What the resolver shows of itself in logs: never the environment. */
  toJSON(): Record<string, string> {
    return { resolver: 'env+file' };
  }

  /** The value of an `env` or `file` secretRef; an error naming where it looked when it is not there. */
  async resolve(ref: SecretRef): Promise<Redacted<string>> {
    if (ref.source === 'kubernetes')
      throw new KubeplaneError('invalid', `${describe(ref)} is read from a cluster (KubernetesSecretResolver), not from the environment or a file`);
    if (ref.source === 'env') {
      const value = this.#env[ref.name];
      if (value === undefined || value.trim() === '')
        throw new KubeplaneError('auth', `secret not found: ${describe(ref)} is not set; export it or point secretRef elsewhere`, {
          code: 'SecretNotFound',
          resource: ref.name,
        });
      return Redacted.of(value.trim());
    }
    let text: string;
    try {
      text = await readFile(ref.path, 'utf8');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new KubeplaneError('auth', `secret not readable: ${describe(ref)} (${typeof code === 'string' ? code : 'read error'})`, {
        code: 'SecretNotFound',
        resource: ref.path,
      });
    }
    if (ref.key === undefined) {
      if (text.trim() === '') throw new KubeplaneError('auth', `secret is empty: ${describe(ref)}`, { code: 'SecretEmpty', resource: ref.path });
      return Redacted.of(text.trim());
    }
    // YAML 1.2 is a superset of JSON (https://yaml.org/spec/1.2.2/#12-yaml-history), so one parser reads both forms.
    let parsed: unknown;
    try {
      parsed = parseYaml(text, { uniqueKeys: false, maxAliasCount: 0 });
    } catch {
      // Never echo the parser's message: it quotes the file's content.
      throw new KubeplaneError('invalid', `secret file is neither a YAML nor a JSON mapping: ${describe(ref)}`, {
        code: 'SecretMalformed',
        resource: ref.path,
      });
    }
    const value = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)[ref.key] : undefined;
    if (typeof value !== 'string' || value.trim() === '')
      throw new KubeplaneError('auth', `secret not found: ${describe(ref)} has no string value`, { code: 'SecretNotFound', resource: ref.path });
    return Redacted.of(value.trim());
  }
}
