// The Google Cloud API as Cloud Functions runs it (Functions Framework, HTTP on loopback): the callers Cloud Run
// verified (iam mode: the forwarded token without its signature) or that the function verifies itself (id-token mode),
// grants on Google emails, and the secretRefs a manifest may name on this runtime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { setupServer } from 'msw/node';
import { GoogleCloudEmulators } from '@kubeplane/sandbox';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, type StepEvent } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { gcpAccessPolicy } from './access.js';
import { createGcpApiHandler } from './api-handler.js';
import type { GcpApiAuth } from './runtime.js';

const projectId = 'kubeplane-sandbox';
const manifest = (secretRef: string) => `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: team-a }
providers:
  - name: hetzner-1
    providerType: hetzner
    secretRef: ${secretRef}
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - { name: a, version: "1.34.2", network: 10.0.0.0/24, pools: { control: [control], compute: [] } }
`;
const OWN = '{ gcpSecretManager: { secret: kubeplane-providers-team-a-hetzner } }';

const grants = JSON.stringify([
  { principal: 'ops@example.com', projects: ['team-*'], role: 'operator' },
  { principal: '*@readers.example.com', projects: ['team-a'], role: 'reader' },
]);

/** What Cloud Run forwards in iam mode: the caller's token with the signature replaced. */
const forwarded = (payload: Record<string, unknown>) =>
  `Bearer ${Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.SIGNATURE_REMOVED_BY_GOOGLE`;

let n = 0;
const servers: Array<{ close(): unknown }> = [];
afterAll(() => {
  for (const s of servers) s.close();
});

async function api(auth: GcpApiAuth = { mode: 'iam' }) {
  const clock = new VirtualClock();
  const kp = new Kubeplane({
    state: new MemoryStateStore(),
    secrets: new MemorySecretStore(),
    queue: new MemoryQueue<StepEvent>({ clock }),
    lease: new MemoryLease(clock),
    clock,
    providers: () => Promise.reject(new Error('no clouds here')),
    kubernetes: () => {
      throw new Error('no clusters here');
    },
  });
  const logged: Array<Record<string, unknown>> = [];
  const logger = {
    log: (level: string, message: string, fields = {}) => void logged.push({ level, message, ...fields }),
    child() {
      return this;
    },
  };
  const name = `kubeplaneApi${++n}`;
  http(name, createGcpApiHandler({ kubeplane: kp, access: gcpAccessPolicy(grants, 'KUBEPLANE_ACCESS'), auth, projectId, logger }));
  const srv = getTestServer(name);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  servers.push(srv);
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const call = async (authorization: string | undefined, method: string, path: string, body?: string) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/yaml', ...(authorization ? { authorization } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { kp, call, logged };
}

describe('the Google Cloud API, iam mode', () => {
  it('applies a manifest for an operator and shows its status to a reader of the project', async () => {
    const t = await api();
    const applied = await t.call(forwarded({ email: 'ops@example.com' }), 'POST', '/projects', manifest(OWN));
    expect(applied.status).toBe(202);
    expect(applied.body).toMatchObject({ applied: [{ project: 'team-a', generation: 1 }] });
    const status = await t.call(forwarded({ email: 'carol@readers.example.com' }), 'GET', '/projects/team-a');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ generation: 1 });
  });

  it('refuses a reader who applies, naming the caller, and stores nothing', async () => {
    const t = await api();
    const res = await t.call(forwarded({ email: 'carol@readers.example.com' }), 'POST', '/projects', manifest(OWN));
    expect(res).toEqual({
      status: 403,
      body: { error: 'carol@readers.example.com may not apply project team-a: no access grant gives it the operator role on it' },
    });
    expect(await t.kp.projects()).toEqual([]);
  });

  it('answers 401 without a token, or with one that names no email', async () => {
    const t = await api();
    expect((await t.call(undefined, 'GET', '/projects/team-a')).status).toBe(401);
    const res = await t.call(forwarded({ sub: '1234' }), 'GET', '/projects/team-a');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/names no email/);
  });

  it.each([
    ['an environment variable', '{ env: { credentials: HCLOUD_TOKEN } }', 400, 'providers[0].secretRef.env'],
    ['an AWS secret', '{ awsSecretsManager: { secretId: kubeplane-providers/team-a/h } }', 400, 'providers[0].secretRef'],
    ["another project's secret", '{ gcpSecretManager: { secret: kubeplane-providers-team-b-hetzner } }', 403, 'providers[0].secretRef.gcpSecretManager.secret'],
    [
      "another Google project's secret",
      '{ gcpSecretManager: { secret: kubeplane-providers-team-a-hetzner, project: other-project } }',
      403,
      'providers[0].secretRef.gcpSecretManager',
    ],
  ])('refuses a manifest whose provider credentials are %s', async (_what, ref, status, path) => {
    const t = await api();
    const res = await t.call(forwarded({ email: 'ops@example.com' }), 'POST', '/projects', manifest(ref));
    expect(res.status).toBe(status);
    expect(res.body.errors).toEqual([expect.objectContaining({ path })]);
    expect(await t.kp.projects()).toEqual([]);
  });

  it('logs each change and refusal with the caller, never the token', async () => {
    const t = await api();
    const token = forwarded({ email: 'ops@example.com' });
    await t.call(token, 'POST', '/projects', manifest(OWN));
    await t.call(forwarded({ email: 'eve@example.com' }), 'POST', '/projects/team-a/destroy');
    expect(t.logged).toContainEqual(expect.objectContaining({ message: 'change accepted', operation: 'apply', project: 'team-a', caller: 'ops@example.com' }));
    expect(t.logged).toContainEqual(expect.objectContaining({ message: 'request refused', status: 403, operation: 'destroy', caller: 'eve@example.com' }));
    expect(JSON.stringify(t.logged)).not.toContain(token.slice(7, 40));
  });
});

describe('the Google Cloud API, id-token mode', () => {
  // Google's certificates from the sandbox's identity emulator; tokens near the real time, which the library checks.
  const google = new GoogleCloudEmulators({ clock: new VirtualClock(Date.now()) });
  const server = setupServer(...google.handlers());
  beforeAll(() => server.listen({ onUnhandledRequest: (req, print) => (new URL(req.url).hostname === '127.0.0.1' ? undefined : print.error()) }));
  afterAll(() => server.close());
  const audience = 'https://api.kubeplane.example.com';

  it("accepts a Google ID token for the API's audience and applies as its email", async () => {
    const t = await api({ mode: 'id-token', audience });
    const res = await t.call(`Bearer ${google.identity.idToken({ email: 'ops@example.com', audience })}`, 'POST', '/projects', manifest(OWN));
    expect(res.status).toBe(202);
    expect(t.logged).toContainEqual(expect.objectContaining({ message: 'change accepted', caller: 'ops@example.com' }));
  });

  it('refuses a token for another audience, and one whose signature is gone, with 401', async () => {
    const t = await api({ mode: 'id-token', audience });
    const other = await t.call(
      `Bearer ${google.identity.idToken({ email: 'ops@example.com', audience: 'https://elsewhere.example.com' })}`,
      'GET',
      '/projects/team-a',
    );
    expect(other.status).toBe(401);
    expect(other.body.error).toMatch(/^no verified caller: the ID token was not accepted: .*audience/i);
    expect(other.body.error).not.toContain('ops@example.com');
    // What iam mode trusts (Cloud Run checked it) proves nothing here.
    expect((await t.call(forwarded({ email: 'ops@example.com', aud: audience }), 'GET', '/projects/team-a')).status).toBe(401);
    expect(await t.kp.projects()).toEqual([]);
  });
});

describe('gcpAccessPolicy', () => {
  it('names the grant and field that is wrong', () => {
    expect(() => gcpAccessPolicy('[{"principal":"arn:aws:iam::1:role/x","projects":["a"],"role":"operator"}]', 'KUBEPLANE_ACCESS')).toThrow(
      /KUBEPLANE_ACCESS: grant 0, principal: "arn:aws:iam::1:role\/x" is not a Google account/,
    );
    expect(() => gcpAccessPolicy('not json', 'KUBEPLANE_ACCESS')).toThrow(/KUBEPLANE_ACCESS is not JSON/);
  });

  it('matches emails case-insensitively and wildcards within them', () => {
    const p = gcpAccessPolicy(grants, 'x');
    expect(p.allows('Ops@Example.com', 'destroy', 'team-b')).toBe(true);
    expect(p.allows('ops@example.com.evil.io', 'status', 'team-a')).toBe(false);
    expect(p.allows('bob@readers.example.com', 'status', 'team-a')).toBe(true);
    expect(p.allows('bob@readers.example.com', 'apply', 'team-a')).toBe(false);
  });
});
