// The engine's SecretStore port on AWS Secrets Manager: one secret per name under a prefix, labels as tags,
// values in and out only as Redacted. A deleted secret keeps Secrets Manager's recovery window (7 days by default:
// a cluster's CA key destroyed by mistake can be restored); a cluster created again under the same id (ids are
// deterministic) restores the name and writes its new value over it.
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  PutSecretValueCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
  TagResourceCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-secrets-manager';
import { labelsMatch } from '@kubeplane/sdk/internal';
import { Redacted, type SecretEntry, type SecretStore } from '@kubeplane/sdk';
import { awsClientConfig, type AwsClientOptions } from './client-config.js';

/** Where the Secrets Manager store keeps its secrets: the name prefix, the KMS key and the AWS client options. */
export interface SecretsManagerStoreOptions extends AwsClientOptions {
  /** Every secret's name starts with this (default `kubeplane/`); IAM policies can be scoped to it. */
  namePrefix?: string;
  /** A customer-managed KMS key for new secrets; the account's default key when absent. */
  kmsKeyId?: string;
  /** Days a deleted secret can be restored (7 to 30, Secrets Manager's range; default 7); 0 deletes at once. */
  recoveryWindowDays?: number;
  client?: SecretsManagerClient;
}

/** Secrets Manager's answer for a name whose secret is scheduled for deletion (InvalidRequestException). */
const SCHEDULED_FOR_DELETION = /(scheduled|marked) for deletion/;

/** The engine's SecretStore port on AWS Secrets Manager. */
export class SecretsManagerStore implements SecretStore {
  readonly client: SecretsManagerClient;
  readonly #prefix: string;
  readonly #kmsKeyId: string | undefined;
  readonly #recoveryDays: number;

  constructor(options: SecretsManagerStoreOptions) {
    this.client = options.client ?? new SecretsManagerClient(awsClientConfig(options));
    this.#prefix = options.namePrefix ?? 'kubeplane/';
    this.#kmsKeyId = options.kmsKeyId;
    const days = options.recoveryWindowDays ?? 7;
    if (days !== 0 && (!Number.isInteger(days) || days < 7 || days > 30))
      throw new RangeError(`recoveryWindowDays must be 0 or 7 to 30 (Secrets Manager's range), not ${days}`);
    this.#recoveryDays = days;
  }

  /** CreateSecret, or RestoreSecret of a secret of that name scheduled for deletion; 'exists' when one exists already. */
  async #create(id: string, value: Redacted<string>, tags: Array<{ Key: string; Value: string }>): Promise<'created' | 'exists' | 'restored'> {
    try {
      await this.client.send(
        new CreateSecretCommand({ Name: id, SecretString: value.reveal(), Tags: tags, ...(this.#kmsKeyId ? { KmsKeyId: this.#kmsKeyId } : {}) }),
      );
      return 'created';
    } catch (e) {
      if (errorName(e) === 'ResourceExistsException') return 'exists';
      if (!isScheduledForDeletion(e)) throw e;
    }
    await this.client.send(new RestoreSecretCommand({ SecretId: id }));
    return 'restored';
  }

  async put(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<void> {
    const id = this.#prefix + name;
    const tags = Object.entries(labels).map(([Key, Value]) => ({ Key, Value }));
    if ((await this.#create(id, value, tags)) === 'created') return;
    await this.#overwrite(id, value, labels, tags);
  }

  /** The value and labels of an existing secret replaced (tags it no longer has removed). */
  async #overwrite(id: string, value: Redacted<string>, labels: Record<string, string>, tags: Array<{ Key: string; Value: string }>): Promise<void> {
    await this.client.send(new PutSecretValueCommand({ SecretId: id, SecretString: value.reveal() }));
    const current = await this.client.send(new DescribeSecretCommand({ SecretId: id }));
    const stale = (current.Tags ?? []).map((t) => t.Key ?? '').filter((k) => k !== '' && !(k in labels));
    if (stale.length > 0) await this.client.send(new UntagResourceCommand({ SecretId: id, TagKeys: stale }));
    const unchanged = tags.every((t) => current.Tags?.some((c) => c.Key === t.Key && c.Value === t.Value));
    if (tags.length > 0 && !unchanged) await this.client.send(new TagResourceCommand({ SecretId: id, Tags: tags }));
  }

  async create(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<boolean> {
    const id = this.#prefix + name;
    const tags = Object.entries(labels).map(([Key, Value]) => ({ Key, Value }));
    // CreateSecret is the atomic check: of concurrent creators of one name, the others get ResourceExistsException.
    // A name whose secret was deleted (within its recovery window) is this cluster's again: its new value goes over
    // the old one. Two creators racing through a restore would both win; a cluster's steps never overlap (its lease).
    const made = await this.#create(id, value, tags);
    if (made === 'restored') await this.#overwrite(id, value, labels, tags);
    return made !== 'exists';
  }

  /** The value of a secret, or null when there is none. */
  async get(name: string): Promise<Redacted<string> | null> {
    try {
      const out = await this.client.send(new GetSecretValueCommand({ SecretId: this.#prefix + name }));
      return out.SecretString === undefined ? null : Redacted.of(out.SecretString);
    } catch (e) {
      if (errorName(e) === 'ResourceNotFoundException' || isScheduledForDeletion(e)) return null;
      throw e;
    }
  }

  async delete(name: string): Promise<void> {
    try {
      const window = this.#recoveryDays === 0 ? { ForceDeleteWithoutRecovery: true } : { RecoveryWindowInDays: this.#recoveryDays };
      await this.client.send(new DeleteSecretCommand({ SecretId: this.#prefix + name, ...window }));
    } catch (e) {
      if (errorName(e) !== 'ResourceNotFoundException' && !isScheduledForDeletion(e)) throw e;
    }
  }

  async list(labels?: Record<string, string>): Promise<SecretEntry[]> {
    const entries: SecretEntry[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(
        new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [this.#prefix] }], MaxResults: 100, ...(token ? { NextToken: token } : {}) }),
      );
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

function isScheduledForDeletion(e: unknown): boolean {
  return errorName(e) === 'InvalidRequestException' && SCHEDULED_FOR_DELETION.test(String((e as { message?: unknown }).message));
}

function errorName(e: unknown): string {
  const name = (e as { name?: unknown }).name;
  return typeof name === 'string' ? name : '';
}
