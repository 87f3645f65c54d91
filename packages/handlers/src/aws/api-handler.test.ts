// The HTTP API handler, on in-memory ports: a manifest is validated before anything is stored, errors come
// back with their paths, and apply, status and destroy act on the project.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, VirtualClock, type StepEvent } from '@kubeplane/sdk';
import { createApiHandler } from './api-handler.js';
import { jsonLogger } from './logger.js';

// The serverless API takes credentials only from Secrets Manager, under the project's own prefix.
const minimal = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'minimal.yaml'), 'utf8').replace('env: { credentials: HCLOUD_TOKEN }', 'awsSecretsManager: { secretId: kubeplane-providers/minimal/hetzner-1 }');

function api() {
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
  const handler = createApiHandler({ kubeplane: kp, logger: jsonLogger((l) => logs.push(l)) });
  const call = async (method: string, path: string, body?: string) => {
    const event = { version: '2.0', rawPath: path, rawQueryString: '', headers: {}, isBase64Encoded: false, requestContext: { http: { method, path } }, ...(body === undefined ? {} : { body }) } as unknown as APIGatewayProxyEventV2;
    const res = await handler(event, { awsRequestId: 'r' } as Context);
    return { status: res.statusCode, body: JSON.parse(res.body ?? 'null') as Record<string, unknown> };
  };
  return { call, queue, state, logs };
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

  it('answers 404 for an unknown project or route and 405 for a wrong method', async () => {
    const { call } = api();
    expect((await call('GET', '/projects/nothing')).status).toBe(404);
    expect((await call('GET', '/clusters')).status).toBe(404);
    expect((await call('DELETE', '/projects')).status).toBe(405);
  });

  describe('refuses a secretRef the step function must not read, storing nothing', () => {
    it.each([
      ['the function\'s own environment', 'env: { credentials: AWS_SECRET_ACCESS_KEY }', 400, 'providers[0].secretRef.env', 'environment variables are refused'],
      ['the function\'s own files', 'file: /proc/self/environ', 400, 'providers[0].secretRef.file', 'files are refused'],
      ['another cluster\'s secret', 'awsSecretsManager: { secretId: kubeplane/other-cluster-abc1234/kubeconfig }', 403, 'providers[0].secretRef.awsSecretsManager.secretId', 'secret kubeplane/other-cluster-abc1234/kubeconfig is not this project\'s'],
      ['another project\'s provider secret, by ARN', 'awsSecretsManager: { secretId: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:kubeplane-providers/other/hetzner-1-AbCdEf" }', 403, 'providers[0].secretRef.awsSecretsManager.secretId', 'not this project\'s: a manifest may name only secrets under kubeplane-providers/minimal/'],
    ])('%s', async (_, ref, status, path, message) => {
      const { call, state, queue } = api();
      const res = await call('POST', '/projects', minimal.replace('awsSecretsManager: { secretId: kubeplane-providers/minimal/hetzner-1 }', ref));
      expect(res.status).toBe(status);
      expect(res.body.errors).toEqual([expect.objectContaining({ path, line: 11, message: expect.stringContaining(message) as unknown })]);
      expect(await state.list('')).toEqual([]);
      expect(await queue.size()).toBe(0);
    });

    it('accepts its own project\'s secret by ARN', async () => {
      const { call } = api();
      const res = await call('POST', '/projects', minimal.replace('secretId: kubeplane-providers/minimal/hetzner-1', 'secretId: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:kubeplane-providers/minimal/hetzner-1-AbCdEf"'));
      expect(res.status).toBe(202);
    });
  });
});
