import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { KubeplaneError } from '@kubeplane/sdk';
import { EnvFileSecretResolver } from './secret-resolver.js';

const SECRET = 'tok-3b9f1c7e5d2a4f6e8c0b';

describe('EnvFileSecretResolver', () => {
  it('reads a token from the environment and keeps it redacted when printed', async () => {
    const resolved = await new EnvFileSecretResolver({ HCLOUD_TOKEN: SECRET }).resolve({ source: 'env', name: 'HCLOUD_TOKEN' });
    expect(resolved.reveal()).toBe(SECRET);
    expect(`${String(resolved)} ${JSON.stringify({ resolved })} ${inspect(resolved)}`).not.toContain(SECRET);
  });

  it('names the missing variable without guessing at values', async () => {
    const error = await new EnvFileSecretResolver({}).resolve({ source: 'env', name: 'HCLOUD_TOKEN' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeplaneError);
    expect((error as KubeplaneError).kind).toBe('auth');
    expect((error as KubeplaneError).message).toContain('HCLOUD_TOKEN');
  });

  it('reads a plain file and a key of a JSON file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kp-secret-'));
    await writeFile(join(dir, 'token'), `${SECRET}\n`);
    await writeFile(join(dir, 'aws.json'), JSON.stringify({ secretAccessKey: SECRET }));
    const resolver = new EnvFileSecretResolver({});
    expect((await resolver.resolve({ source: 'file', path: join(dir, 'token') })).reveal()).toBe(SECRET);
    expect((await resolver.resolve({ source: 'file', path: join(dir, 'aws.json'), key: 'secretAccessKey' })).reveal()).toBe(SECRET);
  });

  it('reads a key of a YAML file, a multi-line private key included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kp-secret-'));
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
    await writeFile(join(dir, 'hetzner.yaml'), `# the project's API token\ncredentials: ${SECRET}\nprivatekey: |\n  ${key.split('\n').join('\n  ')}\n`);
    const resolver = new EnvFileSecretResolver({});
    expect((await resolver.resolve({ source: 'file', path: join(dir, 'hetzner.yaml'), key: 'credentials' })).reveal()).toBe(SECRET);
    expect((await resolver.resolve({ source: 'file', path: join(dir, 'hetzner.yaml'), key: 'privatekey' })).reveal()).toBe(key);
  });

  it('does not quote a malformed secret YAML file in its error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kp-secret-'));
    await writeFile(join(dir, 'bad.yaml'), `token: [${SECRET}\n`);
    const error = (await new EnvFileSecretResolver({})
      .resolve({ source: 'file', path: join(dir, 'bad.yaml'), key: 'token' })
      .catch((e: unknown) => e)) as KubeplaneError;
    expect(error.kind).toBe('invalid');
    expect(error.message).toContain('bad.yaml');
    expect(`${error.message} ${JSON.stringify(error)} ${inspect(error)}`).not.toContain(SECRET);
  });

  it('does not quote a malformed secret file in its error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kp-secret-'));
    await writeFile(join(dir, 'bad.json'), `{"token": "${SECRET}"`);
    const error = (await new EnvFileSecretResolver({})
      .resolve({ source: 'file', path: join(dir, 'bad.json'), key: 'token' })
      .catch((e: unknown) => e)) as KubeplaneError;
    expect(error.kind).toBe('invalid');
    expect(`${error.message} ${JSON.stringify(error)} ${inspect(error)}`).not.toContain(SECRET);
  });
});
