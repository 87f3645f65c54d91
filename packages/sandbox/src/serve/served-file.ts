// What a running `kubeplane sandbox serve` tells other commands on the same state directory: its pid and the
// addresses it serves (no secrets), in <state dir>/sandbox/served.json; and the credentials file a shell can
// source, <state dir>/sandbox/credentials.env (0600; the sandbox's fake credentials, kept out of the terminal).
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { alive, KubeplaneError, writeFileAtomic } from '@kubeplane/sdk';
import { SANDBOX_CREDENTIALS } from '../sandbox.js';
import type { ServedEndpoints } from './server.js';

export interface ServedFile extends ServedEndpoints {
  pid: number;
  since: string;
}

export const servedFilePath = (stateDir: string) => join(stateDir, 'sandbox', 'served.json');
export const credentialsFilePath = (stateDir: string) => join(stateDir, 'sandbox', 'credentials.env');

export async function writeServedFile(stateDir: string, endpoints: ServedEndpoints): Promise<void> {
  const file: ServedFile = { pid: process.pid, since: new Date().toISOString(), ...endpoints };
  await writeFileAtomic(servedFilePath(stateDir), `${JSON.stringify(file, null, 2)}\n`, 0o600);
}

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

/** Environment variables for the clouds' clients; secrets only `withSecrets` (the credentials file), else a pointer to it. */
export function clientEnvironment(endpoints: ServedEndpoints, withSecrets: boolean): Array<[string, string]> {
  const secret = (value: string) => (withSecrets ? value : '<in credentials.env>');
  return [
    ['AWS_ENDPOINT_URL', endpoints.aws],
    ['AWS_ACCESS_KEY_ID', SANDBOX_CREDENTIALS.awsAccessKeyId],
    ['AWS_SECRET_ACCESS_KEY', secret(SANDBOX_CREDENTIALS.awsSecretAccessKey)],
    ['AWS_DEFAULT_REGION', endpoints.ec2Regions[0] ?? 'eu-central-1'],
    ['HCLOUD_ENDPOINT', endpoints.hetzner],
    ['HCLOUD_TOKEN', secret(SANDBOX_CREDENTIALS.hetznerToken)],
    ['CRUSOE_API_ENDPOINT', endpoints.crusoe],
    ['CRUSOE_ACCESS_KEY_ID', SANDBOX_CREDENTIALS.crusoeAccessKeyId],
    ['CRUSOE_SECRET_KEY', secret(SANDBOX_CREDENTIALS.crusoeSecretKey)],
    ['CRUSOE_PROJECT_ID', SANDBOX_CREDENTIALS.crusoeProjectId],
    ['CLOUDFLARE_API_BASE', endpoints.cloudflare],
    ['CLOUDFLARE_API_TOKEN', secret(SANDBOX_CREDENTIALS.cloudflareApiToken)],
    ['CLOUDFLARE_ACCOUNT_ID', SANDBOX_CREDENTIALS.cloudflareAccountId],
  ];
}

export async function writeCredentialsFile(stateDir: string, endpoints: ServedEndpoints): Promise<void> {
  const lines = [
    "# kubeplane sandbox serve: the sandbox clouds' credentials and addresses. Source it: . <this file>",
    ...clientEnvironment(endpoints, true).map(([k, v]) => `export ${k}='${v}'`),
    '',
  ];
  await writeFileAtomic(credentialsFilePath(stateDir), lines.join('\n'), 0o600);
}
