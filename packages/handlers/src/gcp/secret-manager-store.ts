// The engine's SecretStore port on Google Secret Manager: one secret per name, id `<prefix><encoded name>`, labels as
// the secret's labels (encoded to Secret Manager's label alphabet), values in and out only as Redacted. A put adds a
// version and destroys the older ones, so only the latest is live (a replaced CA key or kubeconfig is not kept).
//
// create(): CreateSecret is the atomic check — of concurrent creators of one id exactly one gets it, the others
// ALREADY_EXISTS — but the value comes in a second call (AddSecretVersion). In the window between the two the secret
// exists with no version. Losers and readers therefore wait for the first version (polling, `settleMs`, default 10 s,
// far more than the two calls take) before answering. If it never comes — the winner crashed between the calls — a
// loser adopts the name: it adds its own version, and of several adopters the one whose version is the secret's first
// live version wins; the others destroy theirs and read the winner's. So every caller ends up with one value.
// https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets/create
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { KubeplaneError, Redacted, type SecretEntry, type SecretStore } from '@kubeplane/sdk';
import { labelsMatch } from '@kubeplane/sdk/internal';
import { googleStatus, secretManagerClient, type GoogleClientOptions } from './google-clients.js';

/** Where the Secret Manager store keeps its secrets: the id prefix, how long readers wait, and the Google client options. */
export interface SecretManagerStoreOptions extends GoogleClientOptions {
  /** Every secret id starts with this (default `kubeplane-`); IAM conditions can be scoped to it. */
  idPrefix?: string;
  /** How long a reader waits for the first version of a secret being created (default 10 000 ms). */
  settleMs?: number;
  client?: SecretManagerServiceClient;
}

// Secret ids are [A-Za-z0-9_-]{1,255}; names hold '/', '.' and more. Every byte outside [A-Za-z0-9-] (and '_', the
// escape itself) becomes `_xx` (hex), which reverses exactly. https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets
/** A secret name as a Secret Manager id: bytes outside `[A-Za-z0-9-]` become `_xx`. */
export function encodeSecretName(name: string): string {
  return [...Buffer.from(name, 'utf8')]
    .map((b) => (/[A-Za-z0-9-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `_${b.toString(16).padStart(2, '0')}`))
    .join('');
}
/** A secret name from its Secret Manager id. */
export function decodeSecretName(id: string): string {
  return Buffer.from(
    id.replace(/_([0-9a-f]{2})|./gs, (m, hex: string | undefined) => (hex ? String.fromCharCode(parseInt(hex, 16)) : m)),
    'latin1',
  ).toString('utf8');
}

// Labels: keys and values are lower-case letters, digits, '_' and '-' (keys start with a letter), at most 63
// characters. The engine's labels hold '.', '/' and capitals (`kubeplane.dev/output`), so both are encoded as names
// are (lower-case only: capitals are escaped too) and keys get a leading `k`. https://cloud.google.com/secret-manager/docs/labels
function encodeLabelPart(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) => (/[a-z0-9-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `_${b.toString(16).padStart(2, '0')}`))
    .join('');
}
const encodeLabelKey = (k: string) => `k${encodeLabelPart(k)}`;
const decodeLabelKey = (k: string) => decodeSecretName(k.slice(1));

function encodeLabels(labels: Record<string, string>, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) {
    const key = encodeLabelKey(k);
    const value = encodeLabelPart(v);
    if (key.length > 63 || value.length > 63)
      throw new KubeplaneError('invalid', `secret ${where}: label ${k}=${v} is longer than Secret Manager's labels may be (63 characters, encoded)`, {
        resource: where,
      });
    out[key] = value;
  }
  return out;
}
function decodeLabels(labels: Record<string, string> | null | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(labels ?? {})
      .filter(([k]) => k.startsWith('k'))
      .map(([k, v]) => [decodeLabelKey(k), decodeSecretName(v)]),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The engine's SecretStore port on Google Secret Manager. */
export class SecretManagerStore implements SecretStore {
  readonly client: SecretManagerServiceClient;
  readonly #project: string;
  readonly #prefix: string;
  readonly #settleMs: number;

  constructor(options: SecretManagerStoreOptions) {
    this.client = options.client ?? secretManagerClient(options);
    this.#project = options.projectId;
    this.#prefix = options.idPrefix ?? 'kubeplane-';
    this.#settleMs = options.settleMs ?? 10_000;
    if (!/^[A-Za-z0-9_-]*$/.test(this.#prefix))
      throw new KubeplaneError('invalid', `secret id prefix "${this.#prefix}" may hold only letters, digits, '_' and '-' (Secret Manager's ids)`);
  }

  #secret(name: string): string {
    const id = this.#prefix + encodeSecretName(name);
    if (id.length > 255)
      throw new KubeplaneError('invalid', `secret ${name}: its id ${id.slice(0, 40)}… is longer than Secret Manager allows (255)`, { resource: name });
    return `projects/${this.#project}/secrets/${id}`;
  }

  /** CreateSecret; false when a secret of that id exists already. */
  async #createSecret(name: string, labels: Record<string, string>): Promise<boolean> {
    try {
      await this.client.createSecret({
        parent: `projects/${this.#project}`,
        secretId: this.#secret(name).split('/').pop()!,
        secret: { replication: { automatic: {} }, labels: encodeLabels(labels, name) },
      });
      return true;
    } catch (e) {
      if (googleStatus(e) === 'ALREADY_EXISTS') return false;
      throw e;
    }
  }

  async #addVersion(name: string, value: Redacted<string>): Promise<string> {
    const [version] = await this.client.addSecretVersion({ parent: this.#secret(name), payload: { data: Buffer.from(value.reveal(), 'utf8') } });
    return version.name ?? '';
  }

  /** Enabled versions, oldest first (version numbers grow). */
  async #liveVersions(name: string): Promise<string[]> {
    const [versions] = await this.client.listSecretVersions({ parent: this.#secret(name), filter: 'state:ENABLED' }, { autoPaginate: true });
    return versions
      .filter((v) => v.state === 'ENABLED' || v.state === 1)
      .map((v) => v.name ?? '')
      .sort((a, b) => versionNumber(a) - versionNumber(b));
  }

  async #destroy(versions: string[]): Promise<void> {
    for (const name of versions) {
      try {
        await this.client.destroySecretVersion({ name });
      } catch (e) {
        // Gone already (another writer destroyed it, or the secret was deleted): what we wanted.
        if (googleStatus(e) !== 'NOT_FOUND' && googleStatus(e) !== 'FAILED_PRECONDITION') throw e;
      }
    }
  }

  async put(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<void> {
    if (!(await this.#createSecret(name, labels))) {
      const [secret] = await this.client.getSecret({ name: this.#secret(name) });
      const wanted = encodeLabels(labels, name);
      const have = secret.labels ?? {};
      if (Object.keys(wanted).length !== Object.keys(have).length || Object.entries(wanted).some(([k, v]) => have[k] !== v)) {
        await this.client.updateSecret({ secret: { name: this.#secret(name), labels: wanted }, updateMask: { paths: ['labels'] } });
      }
    }
    const added = await this.#addVersion(name, value);
    // Only the latest stays: the older versions are destroyed (a destroyed version's data is gone for good).
    const older = (await this.#liveVersions(name)).filter((v) => versionNumber(v) < versionNumber(added));
    await this.#destroy(older);
  }

  async create(name: string, value: Redacted<string>, labels: Record<string, string> = {}): Promise<boolean> {
    if (await this.#createSecret(name, labels)) {
      await this.#addVersion(name, value);
      return true;
    }
    if ((await this.#settled(name)) !== null) return false;
    // The creator never added its version (it crashed between the calls): adopt the name; the first live version wins.
    const mine = await this.#addVersion(name, value);
    const live = await this.#liveVersions(name);
    if (live[0] === mine) return true;
    await this.#destroy([mine]);
    return false;
  }

  /** The latest value, waiting up to settleMs for the first one of a secret being created; null when none comes. */
  async #settled(name: string): Promise<Redacted<string> | null | undefined> {
    const until = Date.now() + this.#settleMs;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      const got = await this.#access(name);
      if (got !== 'no-version') return got === 'no-secret' ? undefined : got;
      if (Date.now() >= until) return null;
      await sleep(wait);
    }
  }

  async #access(name: string): Promise<Redacted<string> | 'no-secret' | 'no-version'> {
    try {
      const [out] = await this.client.accessSecretVersion({ name: `${this.#secret(name)}/versions/latest` });
      return Redacted.of(Buffer.from(out.payload?.data ?? '').toString('utf8'));
    } catch (e) {
      const status = googleStatus(e);
      if (status !== 'NOT_FOUND' && status !== 'FAILED_PRECONDITION') throw e;
      // `latest` is the newest version whatever its state: a create's loser destroyed its own after the winner's
      // (see create), so the value is the newest version still enabled.
      if (status === 'FAILED_PRECONDITION') {
        const live = await this.#liveVersions(name);
        const newest = live[live.length - 1];
        if (newest) {
          const [out] = await this.client.accessSecretVersion({ name: newest });
          return Redacted.of(Buffer.from(out.payload?.data ?? '').toString('utf8'));
        }
      }
    }
    // Which: no secret at all, or a secret with no live version yet (being created).
    try {
      await this.client.getSecret({ name: this.#secret(name) });
      return 'no-version';
    } catch (e) {
      if (googleStatus(e) === 'NOT_FOUND') return 'no-secret';
      throw e;
    }
  }

  /** The value of a secret, or null when there is none. */
  async get(name: string): Promise<Redacted<string> | null> {
    return (await this.#settled(name)) ?? null;
  }

  async delete(name: string): Promise<void> {
    try {
      await this.client.deleteSecret({ name: this.#secret(name) });
    } catch (e) {
      if (googleStatus(e) !== 'NOT_FOUND') throw e;
    }
  }

  /** The API filters by id prefix and labels (https://cloud.google.com/secret-manager/docs/filtering); checked again here. */
  async list(labels?: Record<string, string>): Promise<SecretEntry[]> {
    const terms = [`name:${this.#prefix}`, ...Object.entries(encodeLabels(labels ?? {}, 'list filter')).map(([k, v]) => `labels.${k}=${v}`)];
    const [secrets] = await this.client.listSecrets({ parent: `projects/${this.#project}`, filter: terms.join(' AND ') }, { autoPaginate: true });
    const entries: SecretEntry[] = [];
    for (const s of secrets) {
      const id = (s.name ?? '').split('/').pop() ?? '';
      if (!id.startsWith(this.#prefix)) continue;
      const have = decodeLabels(s.labels);
      if (labelsMatch(have, labels)) entries.push({ name: decodeSecretName(id.slice(this.#prefix.length)), labels: have });
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

const versionNumber = (name: string) => Number(name.split('/').pop());
