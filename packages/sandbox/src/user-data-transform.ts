// The seam for defects: a function the sandbox applies to every cloud machine's user-data before the machine boots
// from it, in both modes (the fast simulation reads the result, the netns machines carry it out). It gets the files
// cloud-init would write and returns the files to write instead, so a test can break one rule (a certificate without
// a SAN, a WireGuard port no peer uses) or try its own customisation without patching kubeplane. The clouds' APIs
// keep what the engine sent (DescribeInstanceAttribute answers the original); only what boots changes.
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { decodeUserData, parseCloudConfig, type CloudInitFile } from '@kubeplane/sdk/internal';
import type { SandboxVm } from './kubernetes/vm-source.js';

/** The machine a transform is applied for. */
export interface UserDataMachine {
  /** The sandbox cloud that runs it (`aws`, `hetzner`, `crusoe`). */
  cloud: string;
  /** The cloud's name of the machine. */
  name: string;
  /** Its public IPv4 address, when it has one. */
  publicIPv4?: string;
  /** Its address in the cloud's private network, when it has one. */
  privateIPv4?: string;
  /** From the user-data's `# kubeplane node <node> (<mode>) of cluster <cluster>` line, when it has one. */
  node?: string;
  /** `init`, `join`, `join-control-plane` or `loadbalancer`. */
  mode?: string;
  /** The cluster it belongs to. */
  cluster?: string;
}

/** A file cloud-init writes (`write_files`), its content as text. */
export interface UserDataFile {
  /** Where cloud-init writes it (absolute). */
  path: string;
  /** What it writes, as text. */
  content: string;
  /** `user:group`; cloud-init's default is `root:root`. */
  owner: string;
  /** Octal, as `0644`. */
  permissions: string;
  /** Appended to the file instead of replacing it. */
  append?: boolean;
  /** Written at the end of boot, after packages are installed. */
  defer?: boolean;
}

/** Returns the files to write in place of `files` (a new list, or `files` changed in place and returned). */
export type UserDataTransform = (machine: Readonly<UserDataMachine>, files: UserDataFile[]) => UserDataFile[];

/** Thrown when a transform fails or returns something that is not a list of files. */
export class UserDataTransformError extends Error {
  constructor(machine: string, message: string) {
    super(`user-data transform for ${machine}: ${message}`);
    this.name = 'UserDataTransformError';
  }
}

function asFile(entry: unknown, index: number, machine: string): UserDataFile {
  const o = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>) : undefined;
  const where = `file ${index + 1} of the list it returned`;
  if (!o || typeof o['path'] !== 'string' || !o['path'].startsWith('/')) throw new UserDataTransformError(machine, `${where} has no absolute path`);
  if (typeof o['content'] !== 'string') throw new UserDataTransformError(machine, `${where} (${o['path']}) has no text content`);
  const permissions = o['permissions'] === undefined ? '0644' : String(o['permissions']);
  if (!/^0?[0-7]{3}$/.test(permissions)) throw new UserDataTransformError(machine, `${where} (${o['path']}): permissions ${permissions} are not octal`);
  return {
    path: o['path'],
    content: o['content'],
    owner: typeof o['owner'] === 'string' ? o['owner'] : 'root:root',
    permissions: permissions.padStart(4, '0'),
    ...(o['append'] === true ? { append: true } : {}),
    ...(o['defer'] === true ? { defer: true } : {}),
  };
}

const fileOf = (f: CloudInitFile): UserDataFile => ({
  path: f.path,
  content: f.content.toString('utf8'),
  owner: f.owner,
  permissions: f.permissions,
  ...(f.append ? { append: true } : {}),
  ...(f.defer ? { defer: true } : {}),
});

/**
 * `vm`'s user-data with `transform` applied: a #cloud-config text whose write_files are the transform's, everything
 * else (hostname, runcmd, the leading comment lines) as it was. User-data that is no #cloud-config is left alone: the
 * machine fails on it as it would.
 */
export function transformedUserData(vm: SandboxVm, transform: UserDataTransform): string | Uint8Array {
  let text: string;
  try {
    text = decodeUserData(vm.userData);
  } catch {
    return vm.userData;
  }
  if (!text.startsWith('#cloud-config')) return vm.userData;
  const config = parseCloudConfig(text);
  const machine: UserDataMachine = {
    cloud: vm.cloud,
    name: vm.name,
    ...(vm.publicIPv4 !== undefined ? { publicIPv4: vm.publicIPv4 } : {}),
    ...(vm.privateIPv4 !== undefined ? { privateIPv4: vm.privateIPv4 } : {}),
    ...(config.kubeplane ? { node: config.kubeplane.node, mode: config.kubeplane.mode, cluster: config.kubeplane.cluster } : {}),
  };
  const label = `${vm.cloud}/${vm.name}`;
  let result: unknown;
  try {
    result = transform(Object.freeze(machine), config.files.map(fileOf));
  } catch (error) {
    throw new UserDataTransformError(label, `it threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(result)) throw new UserDataTransformError(label, 'it returned no list of files');
  const files = result.map((entry, i) => asFile(entry, i, label));
  const doc = parseYaml(text) as Record<string, unknown>;
  doc['write_files'] = files.map((f) => ({
    path: f.path,
    owner: f.owner,
    permissions: f.permissions,
    // Plain text when YAML can hold it; anything else (control characters) as base64, as cloud-init reads `b64`.
    ...(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(f.content)
      ? { encoding: 'b64', content: Buffer.from(f.content, 'utf8').toString('base64') }
      : { content: f.content }),
    ...(f.append ? { append: true } : {}),
    ...(f.defer ? { defer: true } : {}),
  }));
  const comments: string[] = [];
  for (const line of text.split('\n').slice(1)) {
    if (!line.startsWith('#')) break;
    comments.push(line);
  }
  return `#cloud-config\n${comments.map((c) => `${c}\n`).join('')}${stringifyYaml(doc, { lineWidth: 0 })}`;
}

/** Applies a transform to machines as a source lists them, once per machine and user-data. */
export class UserDataTransformer {
  readonly #transform: UserDataTransform;
  readonly #done = new Map<string, { source: string | Uint8Array; out: string | Uint8Array }>();

  constructor(transform: UserDataTransform) {
    this.#transform = transform;
  }

  apply(vm: SandboxVm): SandboxVm {
    const key = `${vm.cloud}/${vm.name}/${vm.id ?? ''}`;
    const done = this.#done.get(key);
    if (done && done.source === vm.userData) return { ...vm, userData: done.out };
    const out = transformedUserData(vm, this.#transform);
    this.#done.set(key, { source: vm.userData, out });
    return { ...vm, userData: out };
  }
}
