// What a running `kubeplane sandbox serve` tells other commands on the same state directory: its pid and the
// addresses it serves (no secrets), in <state dir>/sandbox/served.json; and the credentials file a shell can
// source, <state dir>/sandbox/credentials.env (0600; the sandbox's fake credentials, kept out of the terminal).
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { alive, writeFileAtomic } from '@kubeplane/sdk/internal';
import { KubeplaneError } from '@kubeplane/sdk';
import { servedClouds } from '../clouds/index.js';
import type { Sandbox } from '../sandbox.js';
import type { ServedEndpoints } from './server.js';

export interface ServedFile extends ServedEndpoints {
  pid: number;
  since: string;
}

/** Where a running `kubeplane sandbox serve` publishes its pid and addresses: `<stateDir>/sandbox/served.json`. */
export const servedFilePath = (stateDir: string) => join(stateDir, 'sandbox', 'served.json');
/** The shell file of the served clouds' credentials and addresses: `<stateDir>/sandbox/credentials.env` (mode 0600). */
export const credentialsFilePath = (stateDir: string) => join(stateDir, 'sandbox', 'credentials.env');

/** Publishes this process's pid and `endpoints` (no secrets) in `servedFilePath(stateDir)`, atomically. */
export async function writeServedFile(stateDir: string, endpoints: ServedEndpoints): Promise<void> {
  const file: ServedFile = { pid: process.pid, since: new Date().toISOString(), ...endpoints };
  await writeFileAtomic(servedFilePath(stateDir), `${JSON.stringify(file, null, 2)}\n`, 0o600);
}

/** Removes the served file, as a server does when it stops; no error when there is none. */
export async function removeServedFile(stateDir: string): Promise<void> {
  await rm(servedFilePath(stateDir), { force: true });
}

/** The running server's addresses; an error that says to start it when none runs for this state directory. */
export async function readServedFile(stateDir: string): Promise<ServedFile> {
  let text: string;
  try {
    text = await readFile(servedFilePath(stateDir), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    throw new KubeplaneError('not-found', `no sandbox server runs for ${stateDir}; start one with: kubeplane sandbox serve --state-dir ${stateDir}`);
  }
  const file = JSON.parse(text) as ServedFile;
  if (typeof file.pid !== 'number' || !alive(file.pid)) {
    throw new KubeplaneError(
      'not-found',
      `the sandbox server for ${stateDir} (pid ${String(file.pid)}) is no longer running; start one with: kubeplane sandbox serve --state-dir ${stateDir}`,
    );
  }
  return file;
}

/**
 * Environment variables for the served clouds' clients (each cloud's descriptor, `serve.env`); secrets only
 * `withSecrets` (the credentials file), else a pointer to it.
 */
export function clientEnvironment(sandbox: Sandbox, endpoints: ServedEndpoints, withSecrets: boolean): Array<[string, string]> {
  const secret = (value: string) => (withSecrets ? value : '<in credentials.env>');
  return endpoints.apis.flatMap((api) => {
    const cloud = servedClouds().find((c) => c.serve.key === api.key);
    return cloud ? cloud.serve.env(sandbox.emulatorOf(cloud), api.url, secret) : [];
  });
}

/**
 * Writes `credentialsFilePath(stateDir)` (mode 0600, atomically): an `export NAME='value'` line per client variable,
 * secrets included, for a shell to source.
 */
export async function writeCredentialsFile(stateDir: string, sandbox: Sandbox, endpoints: ServedEndpoints): Promise<void> {
  const lines = [
    "# kubeplane sandbox serve: the sandbox clouds' credentials and addresses. Source it: . <this file>",
    ...clientEnvironment(sandbox, endpoints, true).map(([k, v]) => `export ${k}='${v}'`),
    '',
  ];
  await writeFileAtomic(credentialsFilePath(stateDir), lines.join('\n'), 0o600);
}
