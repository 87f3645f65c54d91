// The HTTP API handler, on in-memory ports: a manifest is validated before anything is stored, errors come
// back with their paths, apply, status and destroy act on the project, and only for a caller an access grant lets.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from 'aws-lambda';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, type StepEvent } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { AccessGrant } from './access.js';
import { createApiHandler, type ApiEvent } from './api-handler.js';
import { jsonLogger } from './logger.js';

// The serverless API takes credentials only from Secrets Manager, under the project's own prefix.
const minimal = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'minimal.yaml'), 'utf8').replace(
  'env: { credentials: HCLOUD_TOKEN }',
  'awsSecretsManager: { secretId: kubeplane-providers/minimal/hetzner-1 }',
);

/** A project of its own name: the minimal example renamed, its provider secret under that project's prefix. */
const manifestOf = (project: string) => minimal.replaceAll('minimal', project);

const ACCOUNT = 'arn:aws:iam::123456789012';
const ADMIN = `${ACCOUNT}:user/admin`;
const everything: AccessGrant[] = [{ principal: ADMIN, projects: ['*'], role: 'operator' }];
const session = (role: string, name = 'alice') => `arn:aws:sts::123456789012:assumed-role/${role}/${name}`;

/** `caller` null: an event without a verified caller, as a function URL with auth type NONE delivers it. */
function api(access: AccessGrant[] = everything) {
  const clock = new VirtualClock();
  const queue = new MemoryQueue<StepEvent>({ clock });
  const state = new MemoryStateStore();
  const kp = new Kubeplane({
    state,
    secrets: new MemorySecretStore(),
    queue,
    lease: new MemoryLease(clock),
    clock,
    providers: () => Promise.reject(new Error('no clouds in this test')),
    kubernetes: () => {
      throw new Error('no clusters in this test');
    },
  });
  const logs: string[] = [];
  const handler = createApiHandler({ kubeplane: kp, access, logger: jsonLogger((l) => logs.push(l)) });
  const callAs = async (caller: string | null, method: string, path: string, body?: string) => {
    const authorizer = caller === null ? {} : { authorizer: { iam: { userArn: caller, accountId: '123456789012' } } };
    const event = {
      version: '2.0',
      rawPath: path,
      rawQueryString: '',
      headers: {},
      isBase64Encoded: false,
      requestContext: { http: { method, path, sourceIp: '203.0.113.7' }, ...authorizer },
      ...(body === undefined ? {} : { body }),
    } as unknown as ApiEvent;
    const res = await handler(event, { awsRequestId: 'r' } as Context);
    return { status: res.statusCode ?? 0, body: JSON.parse(res.body ?? 'null') as Record<string, unknown> };
  };
  const call = (method: string, path: string, body?: string) => callAs(ADMIN, method, path, body);
  const logged = () => logs.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { call, callAs, queue, state, logs, logged };
}

describe('the api handler', () => {
  it('rejects an invalid manifest with its errors and their paths, storing nothing', async () => {
    const { call, state, queue } = api();
    const res = await call('POST', '/projects', minimal.replace('count: 2', 'count: -1'));
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ path: 'nodePools.dynamic[1].count' }));
    expect(await state.list('')).toEqual([]);
    expect(await queue.size()).toBe(0);
  });

  it('refuses a body past the parsing limits or with a duplicate key, with the line, storing nothing', async () => {
    const { call, state, queue } = api();
    const deep = await call('POST', '/projects', `${minimal}extra: ${'['.repeat(100)}${']'.repeat(100)}\n`);
    expect(deep.status).toBe(400);
    expect(deep.body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining('depth limit'), line: minimal.split('\n').length })]);
    const dup = await call('POST', '/projects', minimal.replace('count: 2', 'count: 2\n      count: 3'));
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([expect.objectContaining({ message: 'duplicate key "count": a mapping may hold each key once' })]);
    expect(await state.list('')).toEqual([]);
    expect(await queue.size()).toBe(0);
  });

  it('applies a valid manifest, queues its first step and reports its status', async () => {
    const { call, queue } = api();
    const res = await call('POST', '/projects', minimal);
    expect(res.status).toBe(202);
    expect(res.body.applied).toEqual([expect.objectContaining({ project: 'minimal', generation: 1, queued: ['minimal'] })]);
    expect(await queue.size()).toBe(1);
    const status = await call('GET', '/projects/minimal');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ project: 'minimal', state: 'IN_PROGRESS', clusters: { minimal: { state: 'IN_PROGRESS' } } });
  });

  it('queues the deletion of a project on POST /projects/<name>/destroy', async () => {
    const { call } = api();
    await call('POST', '/projects', Buffer.from(minimal).toString());
    const res = await call('POST', '/projects/minimal/destroy');
    expect(res).toEqual({ status: 202, body: { project: 'minimal', queued: ['minimal'] } });
    expect((await call('GET', '/projects/minimal')).body).toMatchObject({ state: 'SCHEDULED_FOR_DELETION' });
  });

  it('runs the last manifest again on POST /projects/<name>/reconcile, leaving work under way alone', async () => {
    const { call, queue } = api();
    await call('POST', '/projects', minimal);
    const size = await queue.size();
    // The cluster's creation is under way (nothing runs the queue here): a reconcile does not restart it.
    const res = await call('POST', '/projects/minimal/reconcile');
    expect(res).toEqual({ status: 202, body: { project: 'minimal', generation: 2, queued: [] } });
    expect(await queue.size()).toBe(size);
    expect((await call('POST', '/projects/nothing/reconcile')).status).toBe(404);
  });

  it('reads and destroys a project whose name has dots, as metadata.name allows', async () => {
    const { call } = api();
    const dotted = minimal.replace('name: minimal', 'name: web.team-a.example');
    expect((await call('POST', '/projects', dotted.replace('kubeplane-providers/minimal/', 'kubeplane-providers/web.team-a.example/'))).status).toBe(202);
    expect((await call('GET', '/projects/web.team-a.example')).status).toBe(200);
    expect((await call('POST', '/projects/web.team-a.example/destroy')).status).toBe(202);
  });

  it('answers 404 for an unknown project or route and 405 for a wrong method', async () => {
    const { call } = api();
    expect((await call('GET', '/projects/nothing')).status).toBe(404);
    expect((await call('GET', '/clusters')).status).toBe(404);
    expect((await call('DELETE', '/projects')).status).toBe(405);
  });

  it("names no other tenant's project or cluster when asked for one that is not there", async () => {
    const teamB = `${ACCOUNT}:user/team-b`;
    const t = api([...everything, { principal: teamB, projects: ['team-b-*'], role: 'operator' }]);
    expect((await t.call('POST', '/projects', manifestOf('team-a-web'))).status).toBe(202);
    // Team B asks for a project of its own that does not exist, by every route, and for a cluster in it.
    const answers = [
      await t.callAs(teamB, 'GET', '/projects/team-b-nope'),
      await t.callAs(teamB, 'POST', '/projects/team-b-nope/reconcile'),
      await t.callAs(teamB, 'GET', '/projects/team-b-nope/clusters/web/node-groups'),
      await t.callAs(teamB, 'POST', '/projects/team-b-nope/clusters/nope/pools/workers/scale', '{"target": 2}'),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404]);
    for (const a of answers) expect(JSON.stringify(a.body)).not.toContain('team-a-web');
    expect(answers[0]?.body).toEqual({ error: 'no project team-b-nope' });
  });

  describe('refuses a secretRef the step function must not read, storing nothing', () => {
    it.each([
      ["the function's own environment", 'env: { credentials: AWS_SECRET_ACCESS_KEY }', 400, 'providers[0].secretRef.env', 'environment variables are refused'],
      ["the function's own files", 'file: /proc/self/environ', 400, 'providers[0].secretRef.file', 'files are refused'],
      [
        "a Kubernetes Secret (Claudie's form), which needs a cluster named to read it from",
        'name: hetzner-secret\n      namespace: claudie',
        400,
        'providers[0].secretRef.name',
        'a Kubernetes Secret (claudie/hetzner-secret) is refused: the serverless runtime names no cluster to read it from',
      ],
      [
        "another cluster's secret",
        'awsSecretsManager: { secretId: kubeplane/other-cluster-abc1234/kubeconfig }',
        403,
        'providers[0].secretRef.awsSecretsManager.secretId',
        "secret kubeplane/other-cluster-abc1234/kubeconfig is not this project's",
      ],
      [
        "another project's provider secret, by ARN",
        'awsSecretsManager: { secretId: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:kubeplane-providers/other/hetzner-1-AbCdEf" }',
        403,
        'providers[0].secretRef.awsSecretsManager.secretId',
        "not this project's: a manifest may name only secrets under kubeplane-providers/minimal/",
      ],
    ])('%s', async (_, ref, status, path, message) => {
      const { call, state, queue } = api();
      const res = await call('POST', '/projects', minimal.replace('awsSecretsManager: { secretId: kubeplane-providers/minimal/hetzner-1 }', ref));
      expect(res.status).toBe(status);
      expect(res.body.errors).toEqual([expect.objectContaining({ path, line: 11, message: expect.stringContaining(message) as unknown })]);
      expect(await state.list('')).toEqual([]);
      expect(await queue.size()).toBe(0);
    });

    it("accepts its own project's secret by ARN", async () => {
      const { call } = api();
      const res = await call(
        'POST',
        '/projects',
        minimal.replace(
          'secretId: kubeplane-providers/minimal/hetzner-1',
          'secretId: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:kubeplane-providers/minimal/hetzner-1-AbCdEf"',
        ),
      );
      expect(res.status).toBe(202);
    });
  });
});

describe('the api handler, by access grant', () => {
  const TEAM_A = `${ACCOUNT}:role/team-a-deployer`;
  const TEAM_B = `${ACCOUNT}:role/team-b-deployer`;
  const teams: AccessGrant[] = [
    { principal: `${ACCOUNT}:role/team-a-*`, projects: ['team-a-*'], role: 'operator' },
    { principal: TEAM_B, projects: ['team-b'], role: 'operator' },
    { principal: `${ACCOUNT}:role/auditor`, projects: ['*'], role: 'reader' },
  ];

  /** What the stores hold: a refused request must leave both as they were. */
  const snapshot = async ({ state, queue }: ReturnType<typeof api>) => ({ keys: await state.list(''), queued: await queue.size() });

  it("refuses another team's project for status, apply, destroy and reconcile, changing nothing", async () => {
    const t = api(teams);
    expect((await t.callAs(session('team-b-deployer'), 'POST', '/projects', manifestOf('team-b'))).status).toBe(202);
    const before = await snapshot(t);
    const asA = session('team-a-deployer');
    const requests = [
      ['read', 'GET', '/projects/team-b'],
      ['apply', 'POST', '/projects', manifestOf('team-b').replace('count: 2', 'count: 5')],
      ['destroy', 'POST', '/projects/team-b/destroy'],
      ['reconcile', 'POST', '/projects/team-b/reconcile'],
    ] as const;
    for (const [verb, method, path, body] of requests) {
      const res = await t.callAs(asA, method, path, body);
      expect(res, `${method} ${path}`).toEqual({
        status: 403,
        body: { error: expect.stringContaining(`${asA} may not ${verb} project team-b: no access grant gives it the `) as unknown },
      });
    }
    expect(await snapshot(t)).toEqual(before);
    expect((await t.callAs(session('team-b-deployer'), 'GET', '/projects/team-b')).body).toMatchObject({
      project: 'team-b',
      generation: 1,
      state: 'IN_PROGRESS',
    });
  });

  it('answers a project the caller may not read with the same 403 whether it exists or not', async () => {
    const t = api(teams);
    await t.callAs(session('team-b-deployer'), 'POST', '/projects', manifestOf('team-b'));
    const existing = await t.callAs(session('team-a-deployer'), 'GET', '/projects/team-b');
    const missing = await t.callAs(session('team-a-deployer'), 'GET', '/projects/team-c');
    expect(existing.status).toBe(403);
    expect({ ...missing, body: { error: String(missing.body.error).replace('team-c', 'team-b') } }).toEqual(existing);
  });

  it('lets a reader read any project but not apply, destroy or reconcile one', async () => {
    const t = api(teams);
    await t.callAs(session('team-b-deployer'), 'POST', '/projects', manifestOf('team-b'));
    const auditor = session('auditor', 'carol');
    expect((await t.callAs(auditor, 'GET', '/projects/team-b')).status).toBe(200);
    expect((await t.callAs(auditor, 'GET', '/projects/nothing')).status).toBe(404);
    const before = await snapshot(t);
    expect((await t.callAs(auditor, 'POST', '/projects', manifestOf('team-b'))).body.error).toMatch(
      /may not apply project team-b: no access grant gives it the operator role on it$/,
    );
    expect((await t.callAs(auditor, 'POST', '/projects/team-b/destroy')).status).toBe(403);
    expect((await t.callAs(auditor, 'POST', '/projects/team-b/reconcile')).status).toBe(403);
    expect(await snapshot(t)).toEqual(before);
  });

  it('lets an operator of team-a-* apply team-a-web but not team-b', async () => {
    const t = api(teams);
    const asA = session('team-a-deployer');
    expect((await t.callAs(asA, 'POST', '/projects', manifestOf('team-a-web'))).status).toBe(202);
    expect((await t.callAs(asA, 'GET', '/projects/team-a-web')).status).toBe(200);
    expect((await t.callAs(asA, 'POST', '/projects', manifestOf('team-b'))).status).toBe(403);
    expect((await t.callAs(asA, 'POST', '/projects/team-a-web/destroy')).status).toBe(202);
  });

  it('applies a body of several manifests only if the caller operates every project in it, storing nothing otherwise', async () => {
    const t = api(teams);
    const asA = session('team-a-deployer');
    const res = await t.callAs(asA, 'POST', '/projects', `${manifestOf('team-a-web')}---\n${manifestOf('team-b')}`);
    expect(res).toEqual({ status: 403, body: { error: `${asA} may not apply project team-b: no access grant gives it the operator role on it` } });
    expect(await snapshot(t)).toEqual({ keys: [], queued: 0 });
    const both = await t.callAs(asA, 'POST', '/projects', `${manifestOf('team-a-web')}---\n${manifestOf('team-a-db')}`);
    expect(both.body.applied).toEqual([expect.objectContaining({ project: 'team-a-web' }), expect.objectContaining({ project: 'team-a-db' })]);
  });

  it("matches an assumed role's session to a grant for the role (by name, path or not) or for the session's own ARN", async () => {
    const t = api([
      { principal: `${ACCOUNT}:role/platform/deployers/ops`, projects: ['ops'], role: 'operator' },
      { principal: 'arn:aws:sts::123456789012:assumed-role/release/ci-*', projects: ['release'], role: 'operator' },
    ]);
    expect((await t.callAs(session('ops', 'bob'), 'POST', '/projects', manifestOf('ops'))).status).toBe(202);
    expect((await t.callAs(session('release', 'ci-4711'), 'POST', '/projects', manifestOf('release'))).status).toBe(202);
    expect((await t.callAs(session('release', 'dave'), 'GET', '/projects/release')).status).toBe(403);
    // The same role name in another account is another role.
    expect((await t.callAs('arn:aws:sts::999999999999:assumed-role/ops/bob', 'GET', '/projects/ops')).status).toBe(403);
  });

  it('answers 401 to a request without a verified caller, storing nothing', async () => {
    const t = api();
    const res = await t.callAs(null, 'POST', '/projects', minimal);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/^no verified caller in the request: .*AWS_IAM/);
    expect((await t.callAs(null, 'GET', '/projects/minimal')).status).toBe(401);
    expect(await snapshot(t)).toEqual({ keys: [], queued: 0 });
  });

  it('refuses everyone when no grants are configured, and says so when it starts', async () => {
    const t = api([]);
    expect(t.logged()).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringContaining('no access grants: every request is refused') as unknown }),
    ]);
    for (const [method, path, body] of [
      ['POST', '/projects', minimal],
      ['GET', '/projects/minimal'],
      ['POST', '/projects/minimal/destroy'],
      ['POST', '/projects/minimal/reconcile'],
    ] as const) {
      expect((await t.callAs(ADMIN, method, path, body)).status, `${method} ${path}`).toBe(403);
    }
    expect(await snapshot(t)).toEqual({ keys: [], queued: 0 });
  });

  it('refuses grants it cannot honour when it is built, naming the grant', () => {
    expect(() => api([...teams, { principal: TEAM_A, projects: ['team-a'], role: 'admin' as 'operator' }])).toThrow(
      /^ApiHandlerOptions.access: grant 3, role: "admin" is not one of reader, operator$/,
    );
  });

  it('logs each change and each refusal with the caller and its address, and never the manifest', async () => {
    const t = api(teams);
    const asA = session('team-a-deployer');
    await t.callAs(asA, 'POST', '/projects', manifestOf('team-a-web'));
    await t.callAs(asA, 'POST', '/projects/team-a-web/reconcile');
    await t.callAs(asA, 'POST', '/projects/team-a-web/destroy');
    await t.callAs(asA, 'POST', '/projects', manifestOf('team-b'));
    await t.callAs(null, 'POST', '/projects/team-b/destroy');
    const lines = t.logged().filter((l) => l.message !== 'access grants loaded');
    const who = { caller: asA, sourceIp: '203.0.113.7' };
    expect(lines).toEqual([
      { level: 'info', message: 'change accepted', operation: 'apply', project: 'team-a-web', generation: 1, ...who },
      { level: 'info', message: 'change accepted', operation: 'reconcile', project: 'team-a-web', generation: 2, ...who },
      { level: 'info', message: 'change accepted', operation: 'destroy', project: 'team-a-web', ...who },
      { level: 'warn', message: 'request refused', status: 403, operation: 'apply', projects: ['team-b'], ...who },
      { level: 'warn', message: 'request refused', status: 401, method: 'POST', path: '/projects/team-b/destroy', sourceIp: '203.0.113.7' },
    ]);
    for (const secretOrBody of ['kubeplane-providers/', 'serverType', 'cpx22']) expect(t.logs.join('\n')).not.toContain(secretOrBody);
  });
});

describe('the node-group routes (for the autoscaler adapter)', () => {
  const reader = `${ACCOUNT}:user/reader`;
  const grants: AccessGrant[] = [...everything, { principal: reader, projects: ['*'], role: 'reader' }];

  it('lets a reader read node groups but only an operator scale a pool', async () => {
    const t = api(grants);
    expect((await t.callAs(reader, 'POST', '/projects/minimal/clusters/minimal/pools/workers/scale', '{"target": 2}')).status).toBe(403);
    // Past the access check: no such project here, said as a 404.
    expect((await t.callAs(reader, 'GET', '/projects/minimal/clusters/minimal/node-groups')).status).toBe(404);
    expect((await t.call('POST', '/projects/minimal/clusters/minimal/pools/workers/scale', '{"target": 2}')).status).toBe(404);
  });

  it('refuses a scale without a whole-number target and a read with the wrong method', async () => {
    const t = api();
    const bad = await t.call('POST', '/projects/minimal/clusters/minimal/pools/workers/scale', '{"target": "two"}');
    expect(bad).toEqual({ status: 400, body: { error: 'target: a whole number of nodes is required' } });
    expect((await t.call('POST', '/projects/minimal/clusters/minimal/pools/workers/scale', 'not json')).status).toBe(400);
    expect((await t.call('POST', '/projects/minimal/clusters/minimal/node-groups')).status).toBe(405);
  });
});
