import { afterEach, describe, expect, it } from 'vitest';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { OAuth2Client } from 'google-auth-library';
import { Sandbox } from '../sandbox.js';
import { SandboxUnservedRequestError } from '../sealed.js';
import { SANDBOX_GOOGLE_PROJECT } from './index.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const bearer = { authorization: 'Bearer t' };

describe("the sandbox's Google Cloud", () => {
  it('is served by a listening Sandbox to the real client', async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: 't' });
    type GaxAuthClient = NonNullable<NonNullable<ConstructorParameters<typeof SecretManagerServiceClient>[0]>['authClient']>;
    const client = new SecretManagerServiceClient({ fallback: true, authClient: authClient as unknown as GaxAuthClient, projectId: SANDBOX_GOOGLE_PROJECT });
    await client.createSecret({ parent: `projects/${SANDBOX_GOOGLE_PROJECT}`, secretId: 'kubeplane-x', secret: { replication: { automatic: {} } } });
    expect(sandbox.google.secrets.secretIds(SANDBOX_GOOGLE_PROJECT)).toEqual(['kubeplane-x']);
    expect(sandbox.google.counts().secretManager.requests).toBe(1);
  });

  it('refuses a Google API it does not emulate with the sealed error', async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    const error = await fetch('https://pubsub.googleapis.com/v1/projects/p/topics', { headers: bearer }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SandboxUnservedRequestError);
    expect((error as Error).message).toContain('does not serve GET https://pubsub.googleapis.com/v1/projects/p/topics');
    expect((error as Error).message).toContain('not this API');
  });

  it("answers a path no method of an emulated API has with Google's 404 page", async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    for (const url of [
      'https://firestore.googleapis.com/v1/projects/p/nothing',
      'https://cloudtasks.googleapis.com/v2beta3/projects/p/locations/l/queues',
      'https://secretmanager.googleapis.com/',
    ]) {
      const res = await fetch(url, { headers: bearer });
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('was not found on this server');
    }
  });

  it('answers 401 UNAUTHENTICATED without a bearer token', async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    const res = await fetch(`https://firestore.googleapis.com/v1/projects/p/databases/(default)/documents/c/d`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
  });

  it("refuses a method of an emulated API that it does not emulate, naming it, in Google's form", async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    // Firestore's RunAggregationQuery (a client's count()): declared in the proto, not served by the sandbox.
    const res = await fetch(`https://firestore.googleapis.com/v1/projects/p/databases/(default)/documents:runAggregationQuery`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(501);
    const { error } = (await res.json()) as { error: { status: string; message: string } };
    expect(error.status).toBe('UNIMPLEMENTED');
    expect(error.message).toMatch(/^the sandbox does not emulate \S*RunAggregationQuery/);
  });
});
