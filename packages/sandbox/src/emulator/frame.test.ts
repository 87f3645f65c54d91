import { VirtualClock } from '@kubeplane/sdk/provider';
import { describe, expect, it } from 'vitest';
import type { SandboxContext } from '../context.js';
import { FaultInjector } from '../faults.js';
import {
  type Dialect,
  EmulatorError,
  type EmulatorFrame,
  handleRequest,
  type Json,
  numberedPage,
  Operations,
  ResourceStore,
  RouteTable,
  reply,
  tokenPage,
} from './index.js';

const BASE = 'https://api.example.test/v1';

/** A toy vendor: `{error: {code, message}}`, JSON bodies, every fault a 5xx/4xx of its own code. */
const dialect: Dialect<Json> = {
  error: (e) => Response.json({ error: { code: e.code, message: e.message } }, { status: e.status, headers: e.headers }),
  success: (r) => (r.status === 204 ? new Response(null, { status: 204 }) : Response.json(r.body, { status: r.status, headers: r.headers })),
  faults: {
    throttled: () => new EmulatorError(429, 'throttled', 'slow down', { headers: { 'Retry-After': '2' } }),
    'throttled-no-headers': () => new EmulatorError(429, 'throttled', 'slow down'),
    'server-error': () => new EmulatorError(500, 'server_error', 'oops'),
    capacity: () => new EmulatorError(412, 'unavailable', 'no capacity'),
    quota: () => new EmulatorError(403, 'limit', 'over quota'),
    auth: () => new EmulatorError(401, 'unauthorized', 'no'),
  },
  parseBody: (call) => {
    if (call.text === '') return {};
    try {
      return JSON.parse(call.text) as Json;
    } catch {
      throw new EmulatorError(400, 'json_error', 'invalid JSON');
    }
  },
};

function world() {
  const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const faults = new FaultInjector(() => 0.5);
  const context: SandboxContext = { clock, random: () => 0.5, faults, calls: new Map() };
  const store = new ResourceStore();
  const ids = store.counter('ids', 100);
  const things = store.collection<number, { id: number; name: string }>('things', {
    inventory: (t) => ({ cloud: 'hetzner', kind: 'thing', id: String(t.id), name: t.name }),
  });
  const seen: string[] = [];
  let budget = 3;
  const routes = new RouteTable<Json>([
    ['GET /things', () => reply({ things: [...things.values()] })],
    [
      'POST /things',
      ({ body }) => {
        const id = ids.next();
        things.set(id, { id, name: String(body['name']) });
        return reply({ id }, 201);
      },
    ],
    ['GET /things/{id}', ({ params }) => reply(things.require(Number(params['id']), () => new EmulatorError(404, 'not_found', 'no such thing')))],
    ['GET /things/search', () => reply({ search: true })],
    ['GET /files/{path*}', ({ params }) => reply({ path: params['path'] })],
    ['GET /verify', () => reply({ verified: true }), { public: true }],
    ['GET /zones/{id}', () => reply({}), { name: 'GetZone' }],
  ]);
  const frame: EmulatorFrame<Json> = {
    cloud: 'hetzner',
    base: BASE,
    dialect,
    routes,
    received: (call) => seen.push(`received ${call.operation}`),
    authenticate: (call) => (call.request.headers.get('authorization') === 'Bearer good' ? undefined : new EmulatorError(401, 'unauthorized', 'bad token')),
    observe: (call) => seen.push(`observed ${call.operation}`),
    rateLimit: () => (budget-- > 0 ? undefined : new EmulatorError(429, 'rate_limit', 'over budget')),
    throttled: (call) => seen.push(`throttled ${call.operation}`),
    beforeRoute: (call) => seen.push(`routing ${call.operation}`),
    unknown: (call) => new EmulatorError(404, 'not_found', `${call.method} ${call.path} is not an endpoint`),
  };
  const send = async (method: string, path: string, options: { body?: string; token?: string } = {}) => {
    const request = new Request(`${BASE}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.token ?? 'good'}` },
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    const response = await handleRequest(context, frame, request);
    if (response.type === 'error') return { status: 0, body: undefined, headers: response.headers };
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : undefined, headers: response.headers };
  };
  return { context, faults, store, things, ids, seen, send, routes, setBudget: (n: number) => (budget = n) };
}

describe('route tables', () => {
  it('prefer literal segments, decode parameters, take the tail with {name*}, and name operations', () => {
    const { routes } = world();
    expect(routes.match('GET /things/search')?.route.operation).toBe('GET /things/search');
    expect(routes.match('GET /things/42')).toMatchObject({ route: { operation: 'GET /things/{id}' }, params: { id: '42' } });
    expect(routes.match('GET /files/a%20b/c')?.params).toEqual({ path: 'a b/c' });
    expect(routes.match('GET /files')).toBeUndefined();
    expect(routes.match('GET /zones/Z1')?.route.operation).toBe('GetZone');
    expect(routes.match('DELETE /things/42')).toBeUndefined();
    expect(() => routes.add('GET /things', () => reply({}))).toThrow(/defined twice/);
    expect(() => new RouteTable([['GET /{rest*}/x', () => reply({})]])).toThrow(/must come last/);
    const actions = new RouteTable([['RunInstances', () => reply({})]]);
    expect(actions.match('RunInstances')?.route.operation).toBe('RunInstances');
  });
});

describe('the request pipeline', () => {
  it('counts, authenticates, observes, rate-limits and routes in one order', async () => {
    const w = world();
    expect(await w.send('POST', '/things', { body: '{"name":"a"}' })).toMatchObject({ status: 201, body: { id: 101 } });
    expect(await w.send('GET', '/things/101')).toMatchObject({ status: 200, body: { id: 101, name: 'a' } });
    expect(await w.send('GET', '/things/7')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(w.seen).toEqual([
      'received POST /things',
      'observed POST /things',
      'routing POST /things',
      'received GET /things/{id}',
      'observed GET /things/{id}',
      'routing GET /things/{id}',
      'received GET /things/{id}',
      'observed GET /things/{id}',
      'routing GET /things/{id}',
    ]);
    expect(Object.fromEntries(w.context.calls)).toEqual({ 'hetzner POST /things': 1, 'hetzner GET /things/{id}': 2 });
  });

  it('refuses bad credentials before it observes, spends budget or takes a fault', async () => {
    const w = world();
    w.faults.add({ cloud: 'hetzner', operation: '*', kind: 'server-error', times: 1 });
    expect(await w.send('GET', '/things', { token: 'bad' })).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    expect(w.seen).toEqual(['received GET /things']);
    // The fault is still there for the next good request.
    expect(await w.send('GET', '/things')).toMatchObject({ status: 500, body: { error: { code: 'server_error' } } });
  });

  it('answers the rate limit and injected throttling in the dialect, telling the emulator', async () => {
    const w = world();
    w.setBudget(0);
    expect(await w.send('GET', '/things')).toMatchObject({ status: 429, body: { error: { code: 'rate_limit' } } });
    w.setBudget(10);
    w.faults.add({ cloud: 'hetzner', operation: 'GET /things', kind: 'throttled', times: 1 });
    const throttled = await w.send('GET', '/things');
    expect(throttled).toMatchObject({ status: 429, body: { error: { code: 'throttled' } } });
    expect(throttled.headers.get('retry-after')).toBe('2');
    expect(w.seen.filter((s) => s.startsWith('throttled'))).toEqual(['throttled GET /things', 'throttled GET /things']);
  });

  it('fails a timed-out call on the network without doing it, and does a lost-response call but loses the answer', async () => {
    const w = world();
    w.faults.add({ cloud: 'hetzner', operation: 'POST /things', kind: 'timeout', times: 1 });
    expect((await w.send('POST', '/things', { body: '{"name":"a"}' })).status).toBe(0);
    expect(w.things.size).toBe(0);
    w.faults.add({ cloud: 'hetzner', operation: 'POST /things', kind: 'lost-response', times: 1 });
    expect((await w.send('POST', '/things', { body: '{"name":"b"}' })).status).toBe(0);
    expect([...w.things.values()].map((t) => t.name)).toEqual(['b']);
  });

  it('answers a malformed body and an unknown path in the envelope, and serves public routes without credentials', async () => {
    const w = world();
    expect(await w.send('POST', '/things', { body: '{' })).toMatchObject({ status: 400, body: { error: { code: 'json_error' } } });
    expect(await w.send('GET', '/nothing/here')).toMatchObject({ status: 404, body: { error: { message: 'GET /nothing/here is not an endpoint' } } });
    expect(await w.send('GET', '/verify', { token: 'bad' })).toMatchObject({ status: 200, body: { verified: true } });
  });
});

describe('the resource store', () => {
  it('keeps collections and counters as plain data, restores what a state lacks as empty, and lists the inventory', () => {
    const w = world();
    w.things.set(w.ids.next(), { id: 101, name: 'a' });
    const state = w.store.state();
    expect(state).toEqual({ collections: { things: [[101, { id: 101, name: 'a' }]] }, counters: { ids: 101 } });
    expect(w.store.inventory()).toEqual([{ cloud: 'hetzner', kind: 'thing', id: '101', name: 'a' }]);
    w.things.get(101)!.name = 'changed';
    expect(state.collections['things']).toEqual([[101, { id: 101, name: 'a' }]]);
    const other = world();
    other.store.restore(state);
    expect(other.things.get(101)).toEqual({ id: 101, name: 'a' });
    expect(other.ids.next()).toBe(102);
    other.store.restore({ collections: {}, counters: {} });
    expect(other.things.size).toBe(0);
    expect(other.ids.next()).toBe(101);
  });
});

describe('paging', () => {
  it('numbers pages and clamps them, and continues from opaque tokens', () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    expect(numberedPage(items, 2, 3)).toEqual({ items: [3, 4, 5], page: 2, perPage: 3, lastPage: 3, total: 7 });
    expect(numberedPage(items, 9, 3).items).toEqual([]);
    const invalid = () => new EmulatorError(400, 'InvalidToken', 'bad token');
    const first = tokenPage(items, undefined, 4, invalid);
    expect(first.items).toEqual([0, 1, 2, 3]);
    const second = tokenPage(items, first.next, 4, invalid);
    expect(second).toEqual({ items: [4, 5, 6] });
    expect(() => tokenPage(items, 'not-ours', 4, invalid)).toThrow(EmulatorError);
  });
});

describe('long-running operations', () => {
  it('complete once, earliest first, when the clock passes their end, recording results and errors', () => {
    const w = world();
    const done: string[] = [];
    let n = 0;
    const ops = new Operations<{ fail: boolean }>(
      w.store.collection('operations'),
      () => w.context.clock.now(),
      () => `op-${++n}`,
      (op) => {
        done.push(op.id);
        return op.completion.fail ? { error: { code: 'FAILED', message: 'no' } } : { result: { ok: op.target } };
      },
    );
    ops.start('create', 'a', 5_000, { fail: false });
    ops.start('create', 'b', 1_000, { fail: true });
    ops.settle();
    expect(done).toEqual([]);
    w.context.clock.advance(5_000);
    expect(ops.get('op-1')).toMatchObject({ state: 'succeeded', result: { ok: 'a' } });
    expect(ops.get('op-2')).toMatchObject({ state: 'failed', error: { code: 'FAILED' } });
    expect(done).toEqual(['op-2', 'op-1']);
    ops.settle();
    expect(done).toEqual(['op-2', 'op-1']);
  });
});
