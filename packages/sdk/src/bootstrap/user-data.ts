// cloud-init user-data: the #cloud-config document that writes a node's files and runs its bootstrap script,
// packed to fit the provider's limit (gzip when needed; cloud-init detects and inflates gzip user-data itself).
import { gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { KubeplaneError } from '../errors.js';
import { Redacted } from '../redacted.js';
import { BOOTSTRAP_SCRIPT_PATH } from './bootstrap-script.js';

/** A file cloud-init writes on the node. Content is Redacted because some files hold keys; `secret` says which. */
export interface NodeFile {
  path: string;
  permissions: '0600' | '0644' | '0700' | '0755';
  secret: boolean;
  content: Redacted<string>;
  /**
   * `gzip`: carried gzip+base64 (cloud-init's `gz+b64`), for a large file every node gets (the mesh sync agent), so
   * user-data that must stay plain text (Hetzner) keeps room for the rest.
   */
  encoding?: 'gzip';
}

/** Raw user-data limits, before any base64 the API applies. */
export const USER_DATA_LIMITS: Readonly<Record<string, number>> = {
  aws: 16_384,
  hetzner: 32_768,
};
/** Providers without a documented limit get EC2's, the smallest we know. */
export const DEFAULT_USER_DATA_LIMIT = 16_384;

export function userDataLimit(provider: string): number {
  return USER_DATA_LIMITS[provider] ?? DEFAULT_USER_DATA_LIMIT;
}

export interface CloudConfigInput {
  hostname: string;
  comment: string;
  files: NodeFile[];
}

/** The #cloud-config text. It holds every file's content, so it is as secret as the most secret file. */
export function renderCloudConfig(input: CloudConfigInput): Redacted<string> {
  const doc = {
    hostname: input.hostname,
    preserve_hostname: false,
    write_files: input.files.map((f) => ({
      path: f.path,
      owner: 'root:root',
      permissions: f.permissions,
      ...(f.encoding === 'gzip'
        ? { encoding: 'gz+b64', content: gzipSync(Buffer.from(f.content.reveal(), 'utf8'), { level: 9 }).toString('base64') }
        : { content: f.content.reveal() }),
    })),
    runcmd: [[BOOTSTRAP_SCRIPT_PATH]],
  };
  return Redacted.of(`#cloud-config\n# ${input.comment}\n${stringify(doc, { lineWidth: 0 })}`);
}

export interface PackedUserData {
  /** The bytes to hand to the provider (plain text or gzip). */
  bytes: Redacted<Uint8Array>;
  compressed: boolean;
  size: number;
  uncompressedSize: number;
  limit: number;
}

/** Plain when it fits, gzip (deterministic: no name, mtime 0) when it does not; an error when neither fits. */
export function packUserData(text: Redacted<string>, provider: string, resource: string): PackedUserData {
  const limit = userDataLimit(provider);
  const plain = Buffer.from(text.reveal(), 'utf8');
  if (plain.length <= limit) {
    return { bytes: Redacted.of(new Uint8Array(plain)), compressed: false, size: plain.length, uncompressedSize: plain.length, limit };
  }
  const gz = gzipSync(plain, { level: 9 });
  if (gz.length > limit) {
    throw new KubeplaneError(
      'invalid',
      `user-data of ${resource} is ${gz.length} bytes gzipped (${plain.length} plain), over ${provider}'s limit of ${limit} bytes`,
      { provider, resource },
    );
  }
  return { bytes: Redacted.of(new Uint8Array(gz)), compressed: true, size: gz.length, uncompressedSize: plain.length, limit };
}
