// The Google runtime from its environment: what the deploy must set (a clear error naming a missing or malformed
// variable), the names it builds (collections, secret prefix, queue), and provider credentials read from Secret
// Manager (the sandbox's emulator) only under the manifest project's own prefix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { OAuth2Client } from 'google-auth-library';
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { ProviderDef } from '@kubeplane/sdk';
import { GoogleSecretManagerEmulator } from '@kubeplane/sandbox';
import { secretManagerClient } from './google-clients.js';
import { gcpProviderSecretCredentials, gcpRuntimeFromEnv } from './runtime.js';
import type { FirestoreStateStore } from './firestore-state-store.js';

const env = {
  GOOGLE_CLOUD_PROJECT: 'kubeplane-sandbox',
  KUBEPLANE_LOCATION: 'europe-west1',
  KUBEPLANE_TASKS_QUEUE: 'kubeplane-steps',
  KUBEPLANE_STEP_URL: 'https://kubeplane-step-abc-ew.a.run.app',
  KUBEPLANE_TASKS_SERVICE_ACCOUNT: 'kubeplane-tasks@kubeplane-sandbox.iam.gserviceaccount.com',
  KUBEPLANE_MAX_ATTEMPTS: '5',
};
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });

describe('gcpRuntimeFromEnv', () => {
  it("builds the runtime from the deploy's variables, with the documented defaults", () => {
    const rt = gcpRuntimeFromEnv(env, { authClient });
    expect(rt.projectId).toBe('kubeplane-sandbox');
    expect(rt.queue.queuePath).toBe('projects/kubeplane-sandbox/locations/europe-west1/queues/kubeplane-steps');
    expect(rt.maxAttempts).toBe(5);
    expect(rt.taskDeadlineSeconds).toBe(600);
    expect(rt.apiAuth).toEqual({ mode: 'iam' });
    expect(rt.providerSecretPrefix).toBe('kubeplane-providers-');
    expect(rt.deadLetters.collection).toBe('kubeplane-dead-letters');
    expect((rt.kubeplane.engine.options.state as FirestoreStateStore).collection).toBe('kubeplane-state');
    expect(rt.kubeplane.engine.leaseSeconds).toBe(120);
  });

  it('takes the collection prefix, lease and deadline from the environment', () => {
    const rt = gcpRuntimeFromEnv(
      { ...env, KUBEPLANE_COLLECTION_PREFIX: 'kp-prod', KUBEPLANE_LEASE_SECONDS: '300', KUBEPLANE_TASK_DEADLINE_SECONDS: '1800' },
      { authClient },
    );
    expect(rt.deadLetters.collection).toBe('kp-prod-dead-letters');
    expect(rt.kubeplane.engine.leaseSeconds).toBe(300);
    expect(rt.taskDeadlineSeconds).toBe(1800);
  });

  it.each(Object.keys(env))('names %s when it is missing', (name) => {
    const partial: Record<string, string> = { ...env };
    delete partial[name];
    expect(() => gcpRuntimeFromEnv(partial, { authClient })).toThrow(`environment variable ${name} is not set`);
  });

  it('names a malformed variable and what it must be', () => {
    expect(() => gcpRuntimeFromEnv({ ...env, KUBEPLANE_TASK_DEADLINE_SECONDS: '3600' }, { authClient })).toThrow(
      'environment variable KUBEPLANE_TASK_DEADLINE_SECONDS is "3600", not a whole number from 15 to 1800',
    );
    expect(() => gcpRuntimeFromEnv({ ...env, KUBEPLANE_API_AUTH: 'none' }, { authClient })).toThrow('KUBEPLANE_API_AUTH is "none"; use iam or id-token');
    expect(() => gcpRuntimeFromEnv({ ...env, KUBEPLANE_API_AUTH: 'id-token' }, { authClient })).toThrow(
      'environment variable KUBEPLANE_API_AUDIENCE is not set',
    );
    expect(gcpRuntimeFromEnv({ ...env, KUBEPLANE_API_AUTH: 'id-token', KUBEPLANE_API_AUDIENCE: 'https://api.example.com' }, { authClient }).apiAuth).toEqual({
      mode: 'id-token',
      audience: 'https://api.example.com',
    });
  });
});

describe('provider credentials from Secret Manager', () => {
  const emulator = new GoogleSecretManagerEmulator({ clock: new VirtualClock() });
  const server = setupServer(emulator.handler());
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());
  const client = secretManagerClient({ projectId: 'kubeplane-sandbox', authClient });
  const read = gcpProviderSecretCredentials({ prefix: 'kubeplane-providers-', projectId: 'kubeplane-sandbox', client });
  const def = (secret: string): ProviderDef => ({ name: 'hetzner-1', providerType: 'hetzner', secretRef: { gcpSecretManager: { secret } } }) as ProviderDef;

  it('reads the JSON object of credential keys, each value redacted', async () => {
    const [s] = await client.createSecret({
      parent: 'projects/kubeplane-sandbox',
      secretId: 'kubeplane-providers-team-a-hetzner',
      secret: { replication: { automatic: {} } },
    });
    await client.addSecretVersion({ parent: s.name!, payload: { data: Buffer.from(JSON.stringify({ credentials: 'hcloud-token-value' })) } });
    const creds = await read(def('kubeplane-providers-team-a-hetzner'), 'team-a');
    expect(creds.credentials?.reveal()).toBe('hcloud-token-value');
    expect(JSON.stringify(creds)).not.toContain('hcloud-token-value');
  });

  it("refuses another project's secret before reading anything", async () => {
    const before = emulator.counts().accesses;
    await expect(read(def('kubeplane-providers-team-a-hetzner'), 'team-b')).rejects.toThrow(
      /provider hetzner-1: secret kubeplane-providers-team-a-hetzner is not this project's/,
    );
    expect(emulator.counts().accesses).toBe(before);
  });

  it('says a secret is not a JSON object of credential keys without quoting it', async () => {
    const [s] = await client.createSecret({
      parent: 'projects/kubeplane-sandbox',
      secretId: 'kubeplane-providers-team-a-plain',
      secret: { replication: { automatic: {} } },
    });
    await client.addSecretVersion({ parent: s.name!, payload: { data: Buffer.from('hcloud-token-value') } });
    const failure = read(def('kubeplane-providers-team-a-plain'), 'team-a');
    await expect(failure).rejects.toThrow(
      'provider hetzner-1: secret projects/kubeplane-sandbox/secrets/kubeplane-providers-team-a-plain/versions/latest is not a JSON object of credential keys',
    );
    await expect(failure).rejects.not.toThrow(/hcloud-token-value/);
  });
});
