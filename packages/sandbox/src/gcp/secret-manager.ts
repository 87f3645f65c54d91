// Secret Manager v1 (secretmanager.googleapis.com) on the virtual clock: secrets with labels and replication,
// numbered versions (ENABLED, DISABLED, DESTROYED) and their payloads, served from google/cloud/secretmanager/v1's
// HTTP rules. Rules and wording follow the API reference (https://cloud.google.com/secret-manager/docs/reference/rest).
import type { HttpHandler } from 'msw';
import type { VirtualClock } from '@kubeplane/sdk/provider';
import { alreadyExists, failedPrecondition, GoogleApiError, GoogleRestService, invalidArgument, notFound, page, rfc3339Micros, type Json } from './api.js';
import { crc32c } from './crc32c.js';

export const SECRET_MANAGER_HOST = 'secretmanager.googleapis.com';

/** Secret.secret_id: "letters, numerals, the hyphen and underscore", at most 255 (projects.secrets/create). */
const SECRET_ID = /^[A-Za-z0-9_-]{1,255}$/;
/**
 * Labels (Secret.labels): keys 1-63 characters of lowercase letters, digits, `_` and `-` starting with a lowercase
 * letter, values 0-63 of the same, at most 64 labels.
 */
const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;
/** A version's payload is at most 64 KiB (Secret Manager quotas: "Secret payload size"). */
const MAX_PAYLOAD = 64 * 1024;

type VersionState = 'ENABLED' | 'DISABLED' | 'DESTROYED';

interface Version {
  number: number;
  state: VersionState;
  createMicros: number;
  destroyMicros?: number;
  data?: Buffer;
  etagSeq: number;
}

interface Secret {
  name: string;
  resource: Json;
  createMicros: number;
  versions: Version[];
  etagSeq: number;
}

export interface SecretManagerCounts {
  requests: number;
  accesses: number;
}

/**
 * Secret Manager v1 (secretmanager.googleapis.com, REST from the vendored protos) on the virtual clock: secrets with
 * labels and replication, numbered versions (enabled, disabled, destroyed) and their payloads with CRC32C checksums.
 */
export class GoogleSecretManagerEmulator {
  readonly #secrets = new Map<string, Secret>();
  readonly #clock: VirtualClock;
  readonly #counts: SecretManagerCounts = { requests: 0, accesses: 0 };
  #seq = 0;
  readonly #service: GoogleRestService;

  constructor(options: { clock: VirtualClock }) {
    this.#clock = options.clock;
    this.#service = new GoogleRestService(
      SECRET_MANAGER_HOST,
      'google.cloud.secretmanager.v1.SecretManagerService',
      {
        CreateSecret: (r) => this.#createSecret(r),
        GetSecret: (r) => this.#view(this.#secret(r.name as string)),
        ListSecrets: (r) => this.#listSecrets(r),
        UpdateSecret: (r) => this.#updateSecret(r),
        DeleteSecret: (r) => this.#deleteSecret(r),
        AddSecretVersion: (r) => this.#addVersion(r),
        GetSecretVersion: (r) => this.#versionView(...this.#version(r.name as string)),
        AccessSecretVersion: (r) => this.#access(r),
        ListSecretVersions: (r) => this.#listVersions(r),
        DisableSecretVersion: (r) => this.#setState(r, 'DISABLED'),
        EnableSecretVersion: (r) => this.#setState(r, 'ENABLED'),
        DestroySecretVersion: (r) => this.#setState(r, 'DESTROYED'),
      },
      () => {
        this.#counts.requests += 1;
      },
    );
  }

  /** The msw handler serving secretmanager.googleapis.com. */
  handler(): HttpHandler {
    return this.#service.handler();
  }

  /** Requests and payload accesses (AccessSecretVersion) so far. */
  counts(): SecretManagerCounts {
    return { ...this.#counts };
  }

  /** Secret ids (short) of a project, for assertions. */
  secretIds(project: string): string[] {
    return [...this.#secrets.keys()].filter((n) => n.startsWith(`projects/${project}/secrets/`)).map((n) => n.split('/')[3] as string);
  }

  #now(): number {
    this.#seq += 1;
    return this.#clock.now() * 1000 + (this.#seq % 1000);
  }

  #secret(name: string): Secret {
    const secret = this.#secrets.get(name.replace(/\/locations\/[^/]+/, ''));
    if (!secret) throw notFound(`Secret [${name}] not found.`);
    return secret;
  }

  #view(secret: Secret): Json {
    return {
      ...secret.resource,
      name: secret.name,
      createTime: rfc3339Micros(secret.createMicros),
      etag: `"${secret.createMicros.toString(16)}${secret.etagSeq}"`,
    };
  }

  #createSecret(r: Json): Json {
    const parent = r.parent as string;
    const id = (r.secretId as string | undefined) ?? '';
    if (!SECRET_ID.test(id)) {
      throw invalidArgument(`The provided Secret ID [${id}] does not match the expected format [[a-zA-Z_0-9-]+] or is longer than 255 characters.`);
    }
    const body = (r.secret as Json | undefined) ?? {};
    if (body.replication === undefined || Object.keys(body.replication as Json).length === 0) throw invalidArgument('Secret.replication must be specified.');
    checkLabels(body.labels);
    const name = `${parent}/secrets/${id}`;
    if (this.#secrets.has(name)) throw alreadyExists(`Secret [${name}] already exists.`);
    const { name: _ignored, createTime: _c, etag: _e, ...resource } = body;
    const secret: Secret = { name, resource, createMicros: this.#now(), versions: [], etagSeq: 1 };
    this.#secrets.set(name, secret);
    return this.#view(secret);
  }

  #listSecrets(r: Json): Json {
    const parent = `${r.parent as string}/secrets/`;
    const filter = secretFilter(r.filter as string | undefined);
    const all = [...this.#secrets.values()].filter((s) => s.name.startsWith(parent) && filter(s)).sort((a, b) => b.createMicros - a.createMicros);
    // ListSecretsRequest.page_size: "If unspecified, server will pick an appropriate default"; at most 25000.
    const { items, nextPageToken } = page(all, r.pageSize, r.pageToken, 25_000);
    return { secrets: items.map((s) => this.#view(s)), totalSize: all.length, ...(nextPageToken ? { nextPageToken } : {}) };
  }

  #updateSecret(r: Json): Json {
    const body = (r.secret as Json | undefined) ?? {};
    const secret = this.#secret(body.name as string);
    const mask = ((r.updateMask as string | undefined) ?? '').split(',').filter((p) => p !== '');
    if (mask.length === 0) throw invalidArgument('update_mask must be specified.');
    checkEtag(secret, body.etag, () => this.#view(secret).etag);
    for (const path of mask) {
      const field = path.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
      // UpdateSecret's mutable fields (the reference's Secret: labels, annotations, topics, rotation, ttl/expire_time, version_aliases).
      if (!['labels', 'annotations', 'topics', 'rotation', 'expireTime', 'ttl', 'versionAliases', 'versionDestroyTtl'].includes(field)) {
        throw invalidArgument(`The field [${path}] in the update_mask is not a valid field or cannot be updated.`);
      }
      if (field === 'labels') checkLabels(body.labels);
      if (body[field] === undefined) delete secret.resource[field];
      else secret.resource[field] = body[field];
    }
    secret.etagSeq += 1;
    return this.#view(secret);
  }

  #deleteSecret(r: Json): Json {
    const secret = this.#secret(r.name as string);
    checkEtag(secret, r.etag, () => this.#view(secret).etag);
    this.#secrets.delete(secret.name);
    return {};
  }

  #addVersion(r: Json): Json {
    const secret = this.#secret(r.parent as string);
    const payload = (r.payload as Json | undefined) ?? {};
    const data = Buffer.from((payload.data as string | undefined) ?? '', 'base64');
    if (data.length > MAX_PAYLOAD) throw invalidArgument(`Secret Version payload exceeds the maximum size of ${MAX_PAYLOAD} bytes.`);
    if (payload.dataCrc32c !== undefined && String(crc32c(data)) !== String(payload.dataCrc32c)) {
      // SecretPayload.data_crc32c: "If specified, SecretManagerService will verify the integrity of the received data".
      throw invalidArgument('Checksum mismatch: the data_crc32c provided does not match the checksum of the payload data.');
    }
    const version: Version = { number: secret.versions.length + 1, state: 'ENABLED', createMicros: this.#now(), data, etagSeq: 1 };
    secret.versions.push(version);
    return this.#versionView(secret, version);
  }

  #version(name: string): [Secret, Version] {
    const m = /^(.*)\/versions\/([^/]+)$/.exec(name);
    if (!m) throw invalidArgument(`Invalid resource field value in the request: ${name}`);
    const secret = this.#secret(m[1] as string);
    const id = m[2] as string;
    // "projects/*/secrets/*/versions/latest is an alias to the most recently created SecretVersion" (whatever its
    // state: a disabled latest is refused, not skipped).
    if (id === 'latest') {
      const latest = secret.versions[secret.versions.length - 1];
      if (!latest) throw notFound(`Secret [${secret.name}] not found or has no versions.`);
      return [secret, latest];
    }
    const n = /^\d+$/.test(id) ? Number(id) : Number.NaN;
    const version = secret.versions[n - 1];
    if (!version) throw notFound(`Secret Version [${secret.name}/versions/${id}] not found.`);
    return [secret, version];
  }

  #versionView(secret: Secret, v: Version): Json {
    return {
      name: `${secret.name}/versions/${v.number}`,
      createTime: rfc3339Micros(v.createMicros),
      state: v.state,
      ...(v.destroyMicros !== undefined ? { destroyTime: rfc3339Micros(v.destroyMicros) } : {}),
      replicationStatus: { automatic: {} },
      etag: `"${v.createMicros.toString(16)}${v.etagSeq}"`,
      clientSpecifiedPayloadChecksum: false,
    };
  }

  #access(r: Json): Json {
    const [secret, v] = this.#version(r.name as string);
    if (v.state !== 'ENABLED' || !v.data) throw failedPrecondition(`Secret Version [${secret.name}/versions/${v.number}] is in ${v.state} state.`);
    this.#counts.accesses += 1;
    return { name: `${secret.name}/versions/${v.number}`, payload: { data: v.data.toString('base64'), dataCrc32c: String(crc32c(v.data)) } };
  }

  #listVersions(r: Json): Json {
    const secret = this.#secret(r.parent as string);
    const stateFilter = /state\s*[:=]\s*(ENABLED|DISABLED|DESTROYED)/.exec((r.filter as string | undefined) ?? '')?.[1];
    // Versions are listed newest first.
    const all = [...secret.versions].reverse().filter((v) => stateFilter === undefined || v.state === stateFilter);
    const { items, nextPageToken } = page(all, r.pageSize, r.pageToken, 25_000);
    return { versions: items.map((v) => this.#versionView(secret, v)), totalSize: all.length, ...(nextPageToken ? { nextPageToken } : {}) };
  }

  #setState(r: Json, state: VersionState): Json {
    const [secret, v] = this.#version(r.name as string);
    if (r.etag !== undefined && r.etag !== '' && r.etag !== this.#versionView(secret, v).etag) {
      throw new GoogleApiError('ABORTED', 'The etag provided in the request does not match the current etag of the resource.');
    }
    // DESTROYED is terminal ("Destroyed versions cannot be enabled or disabled").
    if (v.state === 'DESTROYED') throw failedPrecondition(`Secret Version [${secret.name}/versions/${v.number}] is in DESTROYED state.`);
    v.state = state;
    if (state === 'DESTROYED') {
      v.destroyMicros = this.#now();
      delete v.data;
    }
    v.etagSeq += 1;
    return this.#versionView(secret, v);
  }
}

function checkLabels(labels: unknown): void {
  if (labels === undefined) return;
  const entries = Object.entries(labels as Record<string, string>);
  if (entries.length > 64) throw invalidArgument('A secret may have at most 64 labels.');
  for (const [k, v] of entries) {
    if (!LABEL_KEY.test(k))
      throw invalidArgument(
        `Label key [${k}] is invalid: keys must be 1-63 lowercase letters, numerals, underscores or hyphens, and start with a lowercase letter.`,
      );
    if (!LABEL_VALUE.test(v))
      throw invalidArgument(`Label value [${v}] of key [${k}] is invalid: values must be at most 63 lowercase letters, numerals, underscores or hyphens.`);
  }
}

function checkEtag(secret: Secret, etag: unknown, current: () => unknown): void {
  if (etag === undefined || etag === '') return;
  if (etag !== current()) throw new GoogleApiError('ABORTED', `The etag provided in the request does not match the current etag of Secret [${secret.name}].`);
}

/**
 * ListSecrets' filter (https://cloud.google.com/secret-manager/docs/filtering): terms joined by AND (or a space),
 * each `labels.<key>=<value>`, `labels.<key>:<value>` or `labels.<key>:*` (has the label), or `name:<substring>`.
 */
function secretFilter(filter: string | undefined): (s: Secret) => boolean {
  if (filter === undefined || filter.trim() === '') return () => true;
  const terms = filter
    .split(/\s+AND\s+|\s+/)
    .filter((t) => t !== '')
    .map((term) => {
      const m = /^(labels\.([\w-]+)|name)\s*([:=])\s*"?([^"]*)"?$/.exec(term);
      if (!m) throw invalidArgument(`Invalid filter: [${filter}]. The term [${term}] is not supported by the sandbox's Secret Manager.`);
      const [, field, key, op, value] = m as unknown as [string, string, string | undefined, string, string];
      return (s: Secret): boolean => {
        if (field === 'name') return s.name.split('/').pop()?.includes(value) ?? false;
        const labels = (s.resource.labels as Record<string, string> | undefined) ?? {};
        const has = key !== undefined && key in labels;
        if (op === ':' && value === '*') return has;
        return has && (op === '=' ? labels[key as string] === value : (labels[key as string] ?? '').includes(value));
      };
    });
  return (s) => terms.every((t) => t(s));
}
