// The engine's SecretStore port on AWS Secrets Manager: one secret per name under a prefix, labels as tags,
// values in and out only as Redacted. Deletes skip the recovery window, so a cluster created again under the
// same id can reuse its names at once.
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  TagResourceCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-secrets-manager';
import { labelsMatch, Redacted, type SecretEntry, type SecretStore } from '@kubeplane/sdk';
import { awsClientConfig, type AwsClientOptions } from './client-config.js';

export interface SecretsManagerStoreOptions extends AwsClientOptions {
  /** Every secret's name starts with this (default `kubeplane/`); IAM policies can be scoped to it. */
  namePrefix?: string;
  /** A customer-managed KMS key for new secrets; the account's default key when absent. */
  kmsKeyId?: string;
  client?: SecretsManagerClient;
}

export class SecretsManagerStore implements SecretStore {
  readonly client: SecretsManagerClient;
  readonly #prefix: string;
  readonly #kmsKeyId: string | undefined;

  constructor(options: SecretsManagerStoreOptions) {
    this.client = options.client ?? new SecretsManagerClient(awsClientConfig(options));
    this.#prefix = options.namePrefix ?? 'kubeplane/';
    this.#kmsKeyId = options.kmsKeyId;
  }

  async put(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<void> {
    const id = this.#prefix + name;
    const tags = Object.entries(labels).map(([Key, Value]) => ({ Key, Value }));
    try {
      await this.client.send(new CreateSecretCommand({ Name: id, SecretString: value.reveal(), Tags: tags, ...(this.#kmsKeyId ? { KmsKeyId: this.#kmsKeyId } : {}) }));
      return;
    } catch (e) {
      if (errorName(e) !== 'ResourceExistsException') throw e;
    }
    await this.client.send(new PutSecretValueCommand({ SecretId: id, SecretString: value.reveal() }));
    const current = await this.client.send(new DescribeSecretCommand({ SecretId: id }));
    const stale = (current.Tags ?? []).map((t) => t.Key ?? '').filter((k) => k !== '' && !(k in labels));
    if (stale.length > 0) await this.client.send(new UntagResourceCommand({ SecretId: id, TagKeys: stale }));
    const unchanged = tags.every((t) => current.Tags?.some((c) => c.Key === t.Key && c.Value === t.Value));
    if (tags.length > 0 && !unchanged) await this.client.send(new TagResourceCommand({ SecretId: id, Tags: tags }));
  }

  async create(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<boolean> {
    const tags = Object.entries(labels).map(([Key, Value]) => ({ Key, Value }));
    try {
      // CreateSecret is the atomic check: of concurrent creators of one name, the others get ResourceExistsException.
      await this.client.send(new CreateSecretCommand({ Name: this.#prefix + name, SecretString: value.reveal(), Tags: tags, ...(this.#kmsKeyId ? { KmsKeyId: this.#kmsKeyId } : {}) }));
      return true;
    } catch (e) {
      if (errorName(e) === 'ResourceExistsException') return false;
      throw e;
    }
  }

  async get(name: string): Promise<Redacted<string> | null> {
    try {
      const out = await this.client.send(new GetSecretValueCommand({ SecretId: this.#prefix + name }));
      return out.SecretString === undefined ? null : Redacted.of(out.SecretString);
    } catch (e) {
      if (errorName(e) === 'ResourceNotFoundException') return null;
      throw e;
    }
  }

  async delete(name: string): Promise<void> {
    try {
      await this.client.send(new DeleteSecretCommand({ SecretId: this.#prefix + name, ForceDeleteWithoutRecovery: true }));
    } catch (e) {
      if (errorName(e) !== 'ResourceNotFoundException') throw e;
    }
  }

  async list(labels?: Record<string, string>): Promise<SecretEntry[]> {
    const entries: SecretEntry[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [this.#prefix] }], MaxResults: 100, ...(token ? { NextToken: token } : {}) }));
      for (const s of out.SecretList ?? []) {
        if (!s.Name?.startsWith(this.#prefix) || s.DeletedDate) continue;
        const have = Object.fromEntries((s.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
        if (labelsMatch(have, labels)) entries.push({ name: s.Name.slice(this.#prefix.length), labels: have });
      }
      token = out.NextToken;
    } while (token);
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

function errorName(e: unknown): string {
  const name = (e as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}
