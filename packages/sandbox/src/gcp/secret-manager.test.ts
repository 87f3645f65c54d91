import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { OAuth2Client } from 'google-auth-library';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { GoogleSecretManagerEmulator } from './secret-manager.js';
import { crc32c } from './crc32c.js';

const project = 'kubeplane-sandbox';
const emulator = new GoogleSecretManagerEmulator({ clock: new VirtualClock() });
const server = setupServer(emulator.handler());
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });
// google-gax pins its own google-auth-library; the root's OAuth2Client is the same class at runtime.
type GaxAuthClient = NonNullable<NonNullable<ConstructorParameters<typeof SecretManagerServiceClient>[0]>['authClient']>;
const client = new SecretManagerServiceClient({ fallback: true, authClient: authClient as unknown as GaxAuthClient, projectId: project });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('Secret Manager emulator through the real client (REST)', () => {
  it('checks crc32c against the Castagnoli check value', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  // In REST mode the client rejects with gaxios' error: `code` is the HTTP status, the message Google's JSON error.
  it('creates a secret, refuses a duplicate, adds versions and accesses latest and a number', async () => {
    const [secret] = await client.createSecret({
      parent: `projects/${project}`,
      secretId: 'kubeplane-a',
      secret: { replication: { automatic: {} }, labels: { cluster: 'a' } },
    });
    expect(secret.name).toBe(`projects/${project}/secrets/kubeplane-a`);
    await expect(
      client.createSecret({ parent: `projects/${project}`, secretId: 'kubeplane-a', secret: { replication: { automatic: {} } } }),
    ).rejects.toMatchObject({ code: 409, message: expect.stringContaining('already exists') });
    await client.addSecretVersion({ parent: secret.name, payload: { data: Buffer.from('one') } });
    const data = Buffer.from('two');
    const [v2] = await client.addSecretVersion({ parent: secret.name, payload: { data, dataCrc32c: crc32c(data) } });
    expect(v2.name).toBe(`${secret.name}/versions/2`);
    expect(v2.state).toBe('ENABLED');
    const [latest] = await client.accessSecretVersion({ name: `${secret.name}/versions/latest` });
    expect(Buffer.from(latest.payload?.data as Uint8Array).toString()).toBe('two');
    const [first] = await client.accessSecretVersion({ name: `${secret.name}/versions/1` });
    expect(Buffer.from(first.payload?.data as Uint8Array).toString()).toBe('one');
    expect(emulator.counts().accesses).toBe(2);
  });

  it('refuses a wrong checksum, a bad id, a missing replication and a bad label', async () => {
    await expect(
      client.addSecretVersion({ parent: `projects/${project}/secrets/kubeplane-a`, payload: { data: Buffer.from('x'), dataCrc32c: 1 } }),
    ).rejects.toMatchObject({ code: 400 });
    await expect(client.createSecret({ parent: `projects/${project}`, secretId: 'bad.id', secret: { replication: { automatic: {} } } })).rejects.toMatchObject({
      code: 400,
    });
    await expect(client.createSecret({ parent: `projects/${project}`, secretId: 'norepl', secret: {} })).rejects.toMatchObject({ code: 400 });
    await expect(
      client.createSecret({ parent: `projects/${project}`, secretId: 'badlabel', secret: { replication: { automatic: {} }, labels: { Upper: 'x' } } }),
    ).rejects.toMatchObject({ code: 400 });
  });

  it('refuses disabled and destroyed versions as Google does, latest included', async () => {
    const name = `projects/${project}/secrets/kubeplane-a`;
    const [disabled] = await client.disableSecretVersion({ name: `${name}/versions/2` });
    expect(disabled.state).toBe('DISABLED');
    await expect(client.accessSecretVersion({ name: `${name}/versions/latest` })).rejects.toMatchObject({
      code: 400,
      message: expect.stringContaining(`Secret Version [${name}/versions/2] is in DISABLED state.`),
    });
    await client.destroySecretVersion({ name: `${name}/versions/1` });
    await expect(client.accessSecretVersion({ name: `${name}/versions/1` })).rejects.toMatchObject({
      code: 400,
      message: expect.stringContaining('is in DESTROYED state.'),
    });
    await expect(client.enableSecretVersion({ name: `${name}/versions/1` })).rejects.toMatchObject({ code: 400 });
    await expect(client.accessSecretVersion({ name: `${name}/versions/7` })).rejects.toMatchObject({ code: 404 });
    const [versions] = await client.listSecretVersions({ parent: name });
    expect(versions.map((v) => [v.name?.split('/').pop(), v.state])).toEqual([
      ['2', 'DISABLED'],
      ['1', 'DESTROYED'],
    ]);
  });

  it('lists by label filter, updates labels with a mask and deletes', async () => {
    await client.createSecret({
      parent: `projects/${project}`,
      secretId: 'kubeplane-b',
      secret: { replication: { automatic: {} }, labels: { cluster: 'b', role: 'x' } },
    });
    const [byLabel] = await client.listSecrets({ parent: `projects/${project}`, filter: 'labels.cluster=b AND labels.role=x' });
    expect(byLabel.map((s) => s.name)).toEqual([`projects/${project}/secrets/kubeplane-b`]);
    const [updated] = await client.updateSecret({
      secret: { name: `projects/${project}/secrets/kubeplane-b`, labels: { cluster: 'c' } },
      updateMask: { paths: ['labels'] },
    });
    expect(updated.labels).toEqual({ cluster: 'c' });
    const [none] = await client.listSecrets({ parent: `projects/${project}`, filter: 'labels.cluster=b' });
    expect(none).toEqual([]);
    await client.deleteSecret({ name: `projects/${project}/secrets/kubeplane-b` });
    await expect(client.getSecret({ name: `projects/${project}/secrets/kubeplane-b` })).rejects.toMatchObject({ code: 404 });
  });

  it('refuses an unknown field, a request without a token, and answers an unknown path with 404', async () => {
    const unknown = await fetch(`https://secretmanager.googleapis.com/v1/projects/${project}/secrets?secretId=z`, {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: JSON.stringify({ replication: { automatic: {} }, colour: 'red' }),
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      error: { code: 400, message: `Invalid JSON payload received. Unknown name "colour" at 'secret': Cannot find field.`, status: 'INVALID_ARGUMENT' },
    });
    const anonymous = await fetch(`https://secretmanager.googleapis.com/v1/projects/${project}/secrets`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
    const nowhere = await fetch(`https://secretmanager.googleapis.com/v9/nothing`, { headers: { authorization: 'Bearer t' } });
    expect(nowhere.status).toBe(404);
  });
});
