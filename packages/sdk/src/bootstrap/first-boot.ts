// Carries out a machine's #cloud-config as cloud-init would on first boot: hostname, write_files in order, deferred
// write_files, then runcmd in order, as one shell script: run inside a netns machine, and over SSH on a static machine.
// Pure: text in, script out.
// Source of every rule: https://cloudinit.readthedocs.io/en/latest/reference/modules.html (Write Files, Runcmd).
import { gunzipSync } from 'node:zlib';
import { fromYaml } from '../yaml-text.js';

/** A file cloud-init writes on first boot (`write_files`). */
export interface CloudInitFile {
  path: string;
  /** The decoded bytes. */
  content: Buffer;
  owner: string;
  /** Octal, e.g. `0644`. */
  permissions: string;
  append: boolean;
  defer: boolean;
}

/** The subset of a cloud-config document kubeplane renders and reads back. */
export interface CloudConfig {
  hostname?: string;
  files: CloudInitFile[];
  /** Each entry: a list (exec'd, arguments quoted) or a string (run by sh). */
  runcmd: Array<string | string[]>;
  /** From `# kubeplane node <name> (<mode>) of cluster <cluster> [<clusterId>]`, when present. */
  kubeplane?: { node: string; mode: string; cluster: string; clusterId: string };
}

/** Thrown when user-data is not a cloud-config document kubeplane can read. */
export class CloudConfigInvalid extends Error {
  constructor(message: string) {
    super(`cloud-init: ${message}`);
    this.name = 'CloudConfigInvalid';
  }
}

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/**
 * write_files `encoding`: b64/base64, gz/gzip, gz+b64/gzip+base64/gz+base64/gzip+b64, text/plain (default).
 * cloud-init inflates gzip itself (cloudinit/config/cc_write_files.py, canonicalize_extraction).
 */
function decodeContent(content: string, encoding: string, path: string): Buffer {
  const enc = encoding.toLowerCase();
  const b64 = ['b64', 'base64', 'gz+b64', 'gzip+base64', 'gz+base64', 'gzip+b64'].includes(enc);
  const gz = ['gz', 'gzip', 'gz+b64', 'gzip+base64', 'gz+base64', 'gzip+b64'].includes(enc);
  if (!b64 && !gz && enc !== '' && enc !== 'text/plain') throw new CloudConfigInvalid(`write_files ${path}: unknown encoding ${encoding}`);
  let bytes = b64 ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
  if (gz) {
    try {
      bytes = gunzipSync(bytes);
    } catch {
      throw new CloudConfigInvalid(`write_files ${path}: content does not inflate`);
    }
  }
  return bytes;
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function inflate(bytes: Uint8Array): string {
  if (!isGzip(bytes)) return Buffer.from(bytes).toString('utf8');
  try {
    return gunzipSync(bytes).toString('utf8');
  } catch {
    throw new CloudConfigInvalid('user-data looks gzip-compressed but does not inflate');
  }
}

/** The user-data text cloud-init would see: bytes or base64, gzip or not. */
export function decodeUserData(raw: string | Uint8Array): string {
  if (typeof raw !== 'string') return inflate(raw);
  if (raw.startsWith('#')) return raw;
  const compact = raw.replace(/\s+/g, '');
  if (compact.length > 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    const text = inflate(Buffer.from(compact, 'base64'));
    if (text.startsWith('#')) return text;
  }
  // Gzip bytes carried in a latin1 string (a cloud emulator that kept the body as binary text).
  const latin1 = Buffer.from(raw, 'latin1');
  if (isGzip(latin1)) return inflate(latin1);
  return raw;
}

/** Parses user-data (bytes or base64, gzip or not) into what cloud-init would act on. */
export function parseCloudConfig(raw: string | Uint8Array): CloudConfig {
  const text = decodeUserData(raw);
  if (!text.startsWith('#cloud-config')) throw new CloudConfigInvalid('user-data is not a #cloud-config document; nothing was configured');
  let doc: Json;
  try {
    doc = asObject(fromYaml(text)) ?? {};
  } catch (error) {
    throw new CloudConfigInvalid(`user-data is not valid YAML (${error instanceof Error ? (error.message.split('\n')[0] ?? '') : ''})`);
  }
  const files: CloudInitFile[] = [];
  const entries = doc['write_files'] ?? [];
  if (!Array.isArray(entries)) throw new CloudConfigInvalid('write_files is not a list');
  for (const entry of entries) {
    const o = asObject(entry);
    const path = typeof o?.['path'] === 'string' ? o['path'] : undefined;
    if (!o || !path) throw new CloudConfigInvalid('a write_files entry has no path');
    // Defaults from the Write Files module docs: owner root:root, permissions 0o644, append false, defer false.
    const perms = o['permissions'];
    const permissions = typeof perms === 'number' ? perms.toString(8) : typeof perms === 'string' ? perms.replace(/^0o/, '') : '0644';
    if (!/^[0-7]{3,4}$/.test(permissions)) throw new CloudConfigInvalid(`write_files ${path}: permissions ${String(perms)} is not octal`);
    files.push({
      path,
      content: decodeContent(typeof o['content'] === 'string' ? o['content'] : '', typeof o['encoding'] === 'string' ? o['encoding'] : '', path),
      owner: typeof o['owner'] === 'string' ? o['owner'] : 'root:root',
      permissions: permissions.padStart(4, '0'),
      append: o['append'] === true,
      defer: o['defer'] === true,
    });
  }
  const runcmd: Array<string | string[]> = [];
  const cmds = doc['runcmd'] ?? [];
  if (!Array.isArray(cmds)) throw new CloudConfigInvalid('runcmd is not a list');
  for (const cmd of cmds) {
    if (typeof cmd === 'string') runcmd.push(cmd);
    else if (Array.isArray(cmd)) runcmd.push(cmd.map((a) => String(a)));
    else throw new CloudConfigInvalid(`runcmd entry ${JSON.stringify(cmd)} is neither a string nor a list`);
  }
  const out: CloudConfig = { files, runcmd };
  if (typeof doc['hostname'] === 'string') out.hostname = doc['hostname'];
  const m = /^# kubeplane node (\S+) \(([a-z-]+)\) of cluster (\S+) \[([^\]]+)\]/m.exec(text);
  if (m) out.kubeplane = { node: m[1] ?? '', mode: m[2] ?? '', cluster: m[3] ?? '', clusterId: m[4] ?? '' };
  return out;
}

/** A word the shell reads as exactly `text`: single-quoted, each ' written as '\''. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The runcmd script as cloud-init writes it to /var/lib/cloud/instance/scripts/runcmd (cc_runcmd.py): `#!/bin/sh`,
 * then one line per entry — a list is shell-quoted and exec'd as is, a string is a shell line. No `set -e`: a
 * failing entry does not stop the next one; the script's status is its last command's.
 */
export function renderRuncmdScript(runcmd: Array<string | string[]>): string {
  return `#!/bin/sh\n${runcmd.map((c) => (typeof c === 'string' ? c : c.map(shQuote).join(' '))).join('\n')}\n`;
}

function writeFileLines(file: CloudInitFile): string[] {
  const dir = file.path.replace(/\/[^/]*$/, '') || '/';
  return [
    // cc_write_files: parent directories are created (util.ensure_dir), then the content is written (or appended).
    `mkdir -p ${shQuote(dir)}`,
    `printf %s ${shQuote(file.content.toString('base64'))} | base64 -d ${file.append ? '>>' : '>'} ${shQuote(file.path)}`,
    // ... then owner and mode are applied (util.chownbyname, util.chmod), so a 0600 file is never world-readable
    // for long and an unknown owner fails the module as it does in cloud-init.
    `chown ${shQuote(file.owner)} ${shQuote(file.path)}`,
    `chmod ${file.permissions} ${shQuote(file.path)}`,
  ];
}

/** Where the first-boot script keeps its output, its runcmd script and its done-marker (cloud-init's places by default). */
export interface FirstBootPaths {
  /** Named in the script's first log line. */
  runner: string;
  log: string;
  runcmd: string;
  finished: string;
}

const CLOUD_INIT_PATHS: FirstBootPaths = {
  runner: 'kubeplane netns',
  log: '/var/log/cloud-init-output.log',
  runcmd: '/var/lib/cloud/instance/scripts/runcmd',
  finished: '/var/lib/cloud/instance/boot-finished',
};

/**
 * The whole first boot as one script, in cloud-init's module order (the default cloud.cfg): cloud_init_modules
 * set_hostname and write_files, then cloud_final_modules write_files_deferred and scripts_user (which runs the
 * runcmd script). Output goes to /var/log/cloud-init-output.log as cloud-init's `output: {all: ...}` default.
 * The script exits with runcmd's status; write_files failures are logged and runcmd still runs, as in cloud-init
 * (a failed module does not stop later ones).
 */
export function renderFirstBootScript(config: CloudConfig, paths: Partial<FirstBootPaths> = {}): string {
  const p = { ...CLOUD_INIT_PATHS, ...paths };
  const dirOf = (path: string) => path.replace(/\/[^/]*$/, '') || '/';
  const lines = [`mkdir -p ${shQuote(dirOf(p.log))}`, `exec >>${shQuote(p.log)} 2>&1`, `echo "Cloud-init (${p.runner}) running modules for config"`];
  if (config.hostname) lines.push(`hostname ${shQuote(config.hostname)}`, `echo ${shQuote(config.hostname)} >/etc/hostname`);
  const block = (files: CloudInitFile[], module: string): void => {
    if (files.length === 0) return;
    lines.push(`( set -e`, ...files.flatMap(writeFileLines), `) || echo "cloud-init: module ${module} failed"`);
  };
  block(
    config.files.filter((f) => !f.defer),
    'write_files',
  );
  block(
    config.files.filter((f) => f.defer),
    'write_files_deferred',
  );
  lines.push(`mkdir -p ${shQuote(dirOf(p.runcmd))}`);
  lines.push(`printf %s ${shQuote(Buffer.from(renderRuncmdScript(config.runcmd)).toString('base64'))} | base64 -d >${shQuote(p.runcmd)}`);
  lines.push(`chmod 0700 ${shQuote(p.runcmd)}`);
  lines.push(shQuote(p.runcmd), 'status=$?');
  // Per-instance modules run once: the marker lets a reboot skip them (cloud-init's sem/ files, boot-finished).
  lines.push(`mkdir -p ${shQuote(dirOf(p.finished))}`, `date -u +%s >${shQuote(p.finished)}`, 'exit $status');
  return `${lines.join('\n')}\n`;
}
