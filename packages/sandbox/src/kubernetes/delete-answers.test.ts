// What a DELETE answers, as the API server's registries answer it: a Status for an object gone at once, the object
// itself when it is kept for its finalizers or when its registry returns what it deleted (pods, service accounts,
// pod templates, storage classes), and a bound pod marked for its graceful deletion.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { issueCmkPki, type CmkPki } from '../crusoe/cmk-pki.js';
import { KubernetesEmulator } from './emulator.js';
import { ManagedCloud, RENDER_NOW, sandboxContext } from './fixture.js';

const T0 = RENDER_NOW.getTime();
const server = setupServer();
let pki: CmkPki;
let clock: VirtualClock;
let cloud: ManagedCloud;
let emulator: KubernetesEmulator;

beforeAll(async () => {
  pki = await issueCmkPki({ seed: 'delete-test', name: 'delete-test', version: '1.33.4-cmk.15', nowMs: T0 });
  server.listen({ onUnhandledRequest: 'error' });
});
afterAll(() => server.close());
beforeEach(() => {
  clock = new VirtualClock(T0);
  cloud = new ManagedCloud('delete-test', T0, pki);
  emulator = new KubernetesEmulator(sandboxContext(clock), { vms: cloud });
  server.resetHandlers(...emulator.handlers());
  cloud.node('w-1', T0, { labels: {}, providerId: 'crusoe://w-1', machine: { vcpus: 4, memoryMiB: 8192 } });
  clock.advance(60_000);
  emulator.tick();
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`https://${cloud.endpoint}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const meta = (o: Record<string, unknown>) => o['metadata'] as Record<string, unknown>;

describe('a DELETE answers', () => {
  it('a Status for an object gone at once', async () => {
    expect((await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' }, data: {} })).status).toBe(201);
    const answer = await call('DELETE', '/api/v1/namespaces/default/configmaps/a');
    expect(answer).toMatchObject({ status: 200, body: { kind: 'Status', status: 'Success', details: { name: 'a', kind: 'configmaps' } } });
  });

  it('the object marked for deletion when Foreground propagation keeps it, even with no dependent to wait for', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'b' }, data: {} });
    const answer = await call('DELETE', '/api/v1/namespaces/default/configmaps/b', {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
    });
    expect(answer.status).toBe(200);
    expect(answer.body['kind']).toBe('ConfigMap');
    expect(meta(answer.body)).toMatchObject({ name: 'b', finalizers: ['foregroundDeletion'], deletionTimestamp: expect.any(String) });
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/b')).status).toBe(404);
  });

  it('the object of a resource whose registry returns what it deleted', async () => {
    await call('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } });
    const answer = await call('DELETE', '/api/v1/namespaces/default/serviceaccounts/robot');
    expect(answer.body).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'robot' } });
  });

  it('a pod bound to a node with its graceful deletion: the grace period asked for, else the pod’s own', async () => {
    const pod = (name: string) => ({
      metadata: { name },
      spec: { nodeName: 'w-1', terminationGracePeriodSeconds: 45, containers: [{ name: 'c', image: 'nginx:1.28' }] },
    });
    await call('POST', '/api/v1/namespaces/default/pods', pod('p1'));
    await call('POST', '/api/v1/namespaces/default/pods', pod('p2'));
    await call('POST', '/api/v1/namespaces/default/pods', pod('p3'));
    const own = await call('DELETE', '/api/v1/namespaces/default/pods/p1');
    expect(own.body['kind']).toBe('Pod');
    expect(meta(own.body)).toMatchObject({ deletionGracePeriodSeconds: 45 });
    expect(Date.parse(String(meta(own.body)['deletionTimestamp'])) - clock.now()).toBeGreaterThan(44_000);
    const asked = await call('DELETE', '/api/v1/namespaces/default/pods/p2?gracePeriodSeconds=5');
    expect(meta(asked.body)).toMatchObject({ deletionGracePeriodSeconds: 5 });
    const now = await call('DELETE', '/api/v1/namespaces/default/pods/p3', { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
    expect(now.body['kind']).toBe('Pod');
    expect(meta(now.body)['deletionTimestamp']).toBeUndefined();
  });
});
