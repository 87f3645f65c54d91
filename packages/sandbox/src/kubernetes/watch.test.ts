// Watch streams over a store's change log: what a client that lists, then watches from the list's resourceVersion,
// reads as newline-delimited WatchEvents.
import { describe, expect, it } from 'vitest';
import { ObjectStore, type Json, type KubeObject } from './store.js';
import { ChangeLog, watchStream, type WatchStreamOptions } from './watch.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function cm(name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels }, data };
}

function open(store: ObjectStore, log: ChangeLog, options: Partial<WatchStreamOptions> = {}): { events: () => Promise<Json[]>; stop: () => Promise<void> } {
  const stream = watchStream({
    filter: { resource: 'configmaps' },
    log,
    initial: undefined,
    from: Number(store.revision),
    revision: () => store.revision,
    bookmarks: false,
    initialEventsEnd: false,
    timeoutMs: 60_000,
    bookmarkEveryMs: 60_000,
    render: (o) => o,
    tick: () => undefined,
    tickEveryMs: 60_000,
    ...options,
  });
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    ended = true;
  })();
  return {
    // Lets the stream deliver what is queued, then reads the lines so far.
    events: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Json);
    },
    stop: async () => {
      if (!ended) await reader.cancel();
      await pump;
    },
  };
}

const summary = (events: Json[]) =>
  events.map(
    (e) =>
      `${String(e['type'])} ${String(((e['object'] as Json)['metadata'] as Json)['name'] ?? '')}@${String(((e['object'] as Json)['metadata'] as Json)['resourceVersion'] ?? '')}`,
  );

describe('watch streams', () => {
  it('sends the changes after the resourceVersion it starts from, each object typed, then live ones', async () => {
    const store = new ObjectStore('t');
    const log = new ChangeLog(store);
    store.create('configmaps', cm('a'), T0);
    const listedAt = Number(store.revision);
    store.create('configmaps', cm('b'), T0);
    const w = open(store, log, { from: listedAt });
    const a = store.get('configmaps', 'default', 'a') as KubeObject;
    store.replace('configmaps', { ...a, data: { x: '1' } });
    store.delete('configmaps', 'default', 'b');
    const events = await w.events();
    expect(summary(events)).toEqual([`ADDED b@${listedAt + 1}`, `MODIFIED a@${listedAt + 2}`, `DELETED b@${listedAt + 3}`]);
    expect(events[0]?.['object']).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    await w.stop();
  });

  it('starts with the current objects as ADDED when given them (no resourceVersion), then a bookmark marking their end', async () => {
    const store = new ObjectStore('t');
    const log = new ChangeLog(store);
    store.create('configmaps', cm('a'), T0);
    const w = open(store, log, { initial: store.list('configmaps'), bookmarks: true, initialEventsEnd: true });
    const events = await w.events();
    expect(summary(events)).toEqual(['ADDED a@2', 'BOOKMARK @2']);
    expect(events[1]?.['object']).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: '2', annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
    await w.stop();
  });

  it('answers a resourceVersion older than the log keeps with one ERROR event, 410 Expired, and ends the stream', async () => {
    const store = new ObjectStore('t');
    const log = new ChangeLog(store, 2);
    for (const n of ['a', 'b', 'c', 'd']) store.create('configmaps', cm(n), T0);
    const w = open(store, log, { from: 1 });
    const events = await w.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 } });
    expect(String((events[0]?.['object'] as Json)['message'])).toMatch(/^too old resource version: 1 \(\d+\)$/);
    await w.stop();
  });

  it('reports an object that comes to match a selector as ADDED and one that stops matching as DELETED', async () => {
    const store = new ObjectStore('t');
    const log = new ChangeLog(store);
    store.create('configmaps', cm('a', {}, { tier: 'web' }), T0);
    store.create('configmaps', cm('b', {}, { tier: 'db' }), T0);
    const w = open(store, log, { filter: { resource: 'configmaps', labelSelector: 'tier=web' } });
    const a = store.get('configmaps', 'default', 'a') as KubeObject;
    const b = store.get('configmaps', 'default', 'b') as KubeObject;
    store.replace('configmaps', { ...b, metadata: { ...b.metadata, labels: { tier: 'web' } } });
    store.replace('configmaps', { ...a, metadata: { ...a.metadata, labels: { tier: 'db' } } });
    expect(summary(await w.events())).toEqual(['ADDED b@4', 'DELETED a@5']);
    await w.stop();
  });

  it('follows one object by a metadata.name field selector, as kubectl wait watches', async () => {
    const store = new ObjectStore('t');
    const log = new ChangeLog(store);
    store.create('configmaps', cm('a'), T0);
    store.create('configmaps', cm('b'), T0);
    const w = open(store, log, { filter: { resource: 'configmaps', fieldSelector: 'metadata.name=b' } });
    for (const n of ['a', 'b']) store.replace('configmaps', { ...(store.get('configmaps', 'default', n) as KubeObject), data: { v: '2' } });
    expect(summary(await w.events())).toEqual(['MODIFIED b@5']);
    await w.stop();
  });

  it('sends a bookmark with the current resourceVersion when the timeout ends the stream, if bookmarks are allowed', async () => {
    const store = new ObjectStore('t');
    const log = new ChangeLog(store);
    const w = open(store, log, { bookmarks: true, timeoutMs: 30 });
    await new Promise((r) => setTimeout(r, 60));
    expect(summary(await w.events())).toEqual(['BOOKMARK @1']);
    await w.stop();
  });

  it('unsubscribes when the client goes away', async () => {
    const store = new ObjectStore('t');
    const log = new ChangeLog(store);
    let ticks = 0;
    const w = open(store, log, { tick: () => (ticks += 1), tickEveryMs: 5 });
    await w.stop();
    const after = ticks;
    await new Promise((r) => setTimeout(r, 30));
    expect(ticks).toBe(after);
    expect(() => store.create('configmaps', cm('late'), T0)).not.toThrow();
  });
});

describe('the change log after a snapshot is restored', () => {
  it('starts again from the restored revision: a watch from before it gets 410, one from it sees what follows', async () => {
    const store = new ObjectStore('t');
    const log = new ChangeLog(store);
    store.create('configmaps', cm('a'), T0);
    const snapshot = store.state();
    store.create('configmaps', cm('b'), T0);
    store.create('configmaps', cm('c'), T0);
    store.restore(snapshot);
    const restoredAt = Number(store.revision);
    const stale = open(store, log, { from: restoredAt - 1 });
    expect((await stale.events())[0]).toMatchObject({ type: 'ERROR', object: { code: 410 } });
    await stale.stop();
    const w = open(store, log, { from: restoredAt });
    store.create('configmaps', cm('d'), T0);
    expect(summary(await w.events())).toEqual([`ADDED d@${restoredAt + 1}`]);
    await w.stop();
  });
});
