// cloud-init user-data: the #cloud-config document that writes a node's files and runs its bootstrap script,
// packed to fit the provider's limit (gzip when needed; cloud-init detects and inflates gzip user-data itself).
import { gzipSync } from 'node:zlib';
import { toYaml } from '../yaml-text.js';
import { KubeplaneError } from '../errors.js';
import { Redacted } from '../redacted.js';
import { BOOTSTRAP_SCRIPT_PATH } from './bootstrap-script.js';
import { PROVIDER_PROFILES, type ProviderProfile, type UserDataRule } from '../providers-data/index.js';

/** A file cloud-init writes on the node. Content is Redacted because some files hold keys; `secret` says which. */
export interface NodeFile {
  path: string;
  permissions: '0600' | '0644' | '0700' | '0755';
  secret: boolean;
  content: Redacted<string>;
}

export type { UserDataRule } from '../providers-data/index.js';

/**
 * What each provider's API takes as user-data (each provider profile's rule), and static machines', to which
 * kubeplane writes the user-data over SSH itself (static-machine.ts): no API limit, bounded so a session stays short.
 * The one table packUserData, `kubeplane render` and the providers' own checks read.
 */
export const USER_DATA_RULES: Readonly<Record<string, UserDataRule>> = {
  ...Object.fromEntries(Object.values<ProviderProfile>(PROVIDER_PROFILES).flatMap((p) => (p.userData ? [[p.type, p.userData]] : []))),
  static: { limit: 262_144, binary: false, source: 'static machines: kubeplane writes the user-data over SSH (no API limit)' },
};

/** Providers without a documented rule: EC2's limit, the smallest we know, and text only. */
export const DEFAULT_USER_DATA_RULE: UserDataRule = { limit: 16_384, binary: false, source: "no documented limit: EC2's, as text" };

/** The user-data rule (size limit, encoding) of a provider's API. */
export function userDataRule(provider: string): UserDataRule {
  return USER_DATA_RULES[provider] ?? DEFAULT_USER_DATA_RULE;
}

/** Raw user-data limits by provider (from USER_DATA_RULES). */
export const USER_DATA_LIMITS: Readonly<Record<string, number>> = Object.fromEntries(Object.entries(USER_DATA_RULES).map(([k, r]) => [k, r.limit]));
/** The user-data size limit of a provider that documents none. */
export const DEFAULT_USER_DATA_LIMIT = DEFAULT_USER_DATA_RULE.limit;

/** The largest user-data, in bytes, a provider's API accepts. */
export function userDataLimit(provider: string): number {
  return userDataRule(provider).limit;
}

/** What a node's cloud-config document is rendered from. */
export interface CloudConfigInput {
  hostname: string;
  comment: string;
  files: NodeFile[];
  /**
   * Write files larger than this many bytes gzip+base64-encoded (cloud-init's write_files `encoding: gz+b64`), which
   * keeps the user-data text for providers whose API takes no bytes.
   */
  compressFilesOver?: number;
}

/** Files above this size are compressed inside the cloud-config when the whole does not fit a text-only provider. */
export const COMPRESS_FILES_OVER = 512;

/** The #cloud-config text. It holds every file's content, so it is as secret as the most secret file. */
export function renderCloudConfig(input: CloudConfigInput): Redacted<string> {
  const doc = {
    hostname: input.hostname,
    preserve_hostname: false,
    write_files: input.files.map((f) => {
      const content = f.content.reveal();
      const entry = { path: f.path, owner: 'root:root', permissions: f.permissions };
      const compress = input.compressFilesOver !== undefined && Buffer.byteLength(content) > input.compressFilesOver;
      if (!compress) return { ...entry, content };
      return { ...entry, encoding: 'gz+b64', content: gzipSync(Buffer.from(content, 'utf8'), { level: 9 }).toString('base64') };
    }),
    runcmd: [[BOOTSTRAP_SCRIPT_PATH]],
  };
  return Redacted.of(`#cloud-config\n# ${input.comment}\n${toYaml(doc)}`);
}

/** User-data packed for a provider: the bytes to send and whether they are compressed. */
export interface PackedUserData {
  /** The bytes to hand to the provider (plain text or gzip). */
  bytes: Redacted<Uint8Array>;
  /**
   * `plain`: the cloud-config as it is; `gzip`: the whole gzipped (providers whose API carries bytes);
   * `gzip-files`: text whose larger files are gzip+base64 inside write_files (text-only providers).
   */
  encoding: 'plain' | 'gzip' | 'gzip-files';
  /** True when `bytes` is gzip (encoding `gzip`): what the provider must be given as bytes. */
  compressed: boolean;
  /** The #cloud-config text the bytes carry (before any gzip of the whole). */
  text: Redacted<string>;
  size: number;
  /** Bytes of the cloud-config with every file written plainly. */
  uncompressedSize: number;
  limit: number;
}

/**
 * Plain when it fits. Otherwise, where the provider's API carries bytes, gzip of the whole (deterministic: no name,
 * mtime 0); where it takes only text, `compact()` (the cloud-config with its larger files gzip+base64-encoded) if
 * given and it fits. An `invalid` error naming the node and the limit when nothing fits.
 */
export function packUserData(text: Redacted<string>, provider: string, resource: string, compact?: () => Redacted<string>): PackedUserData {
  const rule = userDataRule(provider);
  const limit = rule.limit;
  const plain = Buffer.from(text.reveal(), 'utf8');
  const uncompressedSize = plain.length;
  if (plain.length <= limit) {
    return { bytes: Redacted.of(new Uint8Array(plain)), encoding: 'plain', compressed: false, text, size: plain.length, uncompressedSize, limit };
  }
  if (rule.binary) {
    const gz = gzipSync(plain, { level: 9 });
    if (gz.length <= limit) {
      return { bytes: Redacted.of(new Uint8Array(gz)), encoding: 'gzip', compressed: true, text, size: gz.length, uncompressedSize, limit };
    }
    throw new KubeplaneError(
      'invalid',
      `user-data of ${resource} is ${gz.length} bytes gzipped (${plain.length} plain), over ${provider}'s limit of ${limit} bytes`,
      { provider, resource },
    );
  }
  if (compact) {
    const compacted = compact();
    const bytes = Buffer.from(compacted.reveal(), 'utf8');
    if (bytes.length <= limit) {
      return {
        bytes: Redacted.of(new Uint8Array(bytes)),
        encoding: 'gzip-files',
        compressed: false,
        text: compacted,
        size: bytes.length,
        uncompressedSize,
        limit,
      };
    }
    throw new KubeplaneError(
      'invalid',
      `user-data of ${resource} is ${bytes.length} bytes with its files gzip+base64-encoded (${plain.length} plain), over ` +
        `${provider}'s limit of ${limit} bytes (${provider} takes user-data as text, so it cannot be gzipped as a whole)`,
      { provider, resource },
    );
  }
  throw new KubeplaneError(
    'invalid',
    `user-data of ${resource} is ${plain.length} bytes, over ${provider}'s limit of ` +
      `${limit} bytes (${provider} takes user-data as text, so it cannot be gzipped)`,
    { provider, resource },
  );
}
