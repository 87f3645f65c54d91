// SecretManagerStore on the sandbox's Secret Manager emulator, through the real client in REST mode: what the port
// suite does not show — names and labels Secret Manager's alphabets refuse, only the latest version live, and create's
// window between CreateSecret and AddSecretVersion. (The whole port suite runs in adapters.test.ts.)
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { OAuth2Client } from 'google-auth-library';
import { Redacted } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { GoogleSecretManagerEmulator } from '@kubeplane/sandbox';
import { decodeSecretName, encodeSecretName, SecretManagerStore } from './secret-manager-store.js';
import { secretManagerClient } from './google-clients.js';

const projectId = 'kubeplane-sandbox';
let emulator = new GoogleSecretManagerEmulator({ clock: new VirtualClock() });
const server = setupServer();
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });
const client = secretManagerClient({ projectId, authClient });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());
beforeEach(() => {
  emulator = new GoogleSecretManagerEmulator({ clock: new VirtualClock() });
  server.resetHandlers(emulator.handler());
});

const store = (settleMs = 2000) => new SecretManagerStore({ projectId, client, settleMs });

describe('SecretManagerStore', () => {
  it("encodes names into secret ids reversibly, and ids stay within Secret Manager's alphabet", () => {
    for (const name of ['clusters/c1/ca-key', 'a_b.c/d', 'prod-abc1234/kubeconfig', 'ünïcode/x']) {
      const id = encodeSecretName(name);
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeSecretName(id)).toBe(name);
    }
    // The escape character is escaped itself, so a name that looks like an escape stays distinct.
    expect(encodeSecretName('a/b')).not.toBe(encodeSecretName('a_2fb'));
    expect(decodeSecretName(encodeSecretName('a_2fb'))).toBe('a_2fb');
  });

  it("keeps the engine's labels (dots, slashes, capitals) through Secret Manager's label alphabet and lists by them", async () => {
    const s = store();
    await s.put('clusters/c1/kubeconfig', Redacted.of('k'), { cluster: 'Prod-C1', 'kubeplane.dev/output': 'kubeconfig' });
    await s.put('clusters/c2/kubeconfig', Redacted.of('k'), { cluster: 'c2' });
    expect(await s.list({ 'kubeplane.dev/output': 'kubeconfig' })).toEqual([
      { name: 'clusters/c1/kubeconfig', labels: { cluster: 'Prod-C1', 'kubeplane.dev/output': 'kubeconfig' } },
    ]);
    expect((await s.list()).map((e) => e.name)).toEqual(['clusters/c1/kubeconfig', 'clusters/c2/kubeconfig']);
  });

  it('keeps only the latest version live: a put destroys the ones before it', async () => {
    const s = store();
    await s.put('clusters/c1/ca', Redacted.of('one'));
    await s.put('clusters/c1/ca', Redacted.of('two'));
    await s.put('clusters/c1/ca', Redacted.of('three'));
    const [versions] = await client.listSecretVersions({ parent: `projects/${projectId}/secrets/kubeplane-${encodeSecretName('clusters/c1/ca')}` });
    expect(versions.map((v) => [v.name?.split('/').pop(), v.state]).sort()).toEqual([
      ['1', 'DESTROYED'],
      ['2', 'DESTROYED'],
      ['3', 'ENABLED'],
    ]);
    expect((await s.get('clusters/c1/ca'))?.reveal()).toBe('three');
  });

  it("a creator that loses to one still between CreateSecret and AddSecretVersion reads the winner's value", async () => {
    const s = store();
    const secretId = `kubeplane-${encodeSecretName('clusters/c3/pki')}`;
    // The winner's first call only; its value follows 300 ms later.
    await client.createSecret({ parent: `projects/${projectId}`, secretId, secret: { replication: { automatic: {} } } });
    const late = new Promise((resolve) => setTimeout(resolve, 300)).then(() =>
      client.addSecretVersion({ parent: `projects/${projectId}/secrets/${secretId}`, payload: { data: Buffer.from('winner') } }),
    );
    expect(await s.create('clusters/c3/pki', Redacted.of('loser'))).toBe(false);
    await late;
    expect((await s.get('clusters/c3/pki'))?.reveal()).toBe('winner');
  });

  it('adopts a name whose creator died before adding its value, once the settle time has passed; one adopter wins', async () => {
    const s = store(200);
    const secretId = `kubeplane-${encodeSecretName('clusters/c4/pki')}`;
    await client.createSecret({ parent: `projects/${projectId}`, secretId, secret: { replication: { automatic: {} } } });
    const won = await Promise.all(['a', 'b', 'c'].map((v) => s.create('clusters/c4/pki', Redacted.of(v))));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await s.get('clusters/c4/pki'))?.reveal()).toBe(['a', 'b', 'c'][won.indexOf(true)]);
  });

  it('reads a deleted secret as missing and creates it again', async () => {
    const s = store();
    await s.put('x/y', Redacted.of('1'), { cluster: 'x' });
    await s.delete('x/y');
    expect(await s.get('x/y')).toBeNull();
    expect(await s.create('x/y', Redacted.of('2'))).toBe(true);
    expect((await s.get('x/y'))?.reveal()).toBe('2');
  });
});
