import { mkdir, mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isKubeplaneError } from '../../errors.js';
import { Redacted } from '../../redacted.js';
import { describePortSuite } from '../testing/port-suite.js';
import { FileLease, FileQueue, FileSecretStore, FileStateStore } from './file.js';
import { MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore } from './memory.js';

describePortSuite('memory adapters', {
  stateStore: async () => new MemoryStateStore(),
  secretStore: async () => new MemorySecretStore(),
  queue: async (clock) => new MemoryQueue({ clock, visibilityTimeoutSeconds: 30 }),
  lease: async (clock) => new MemoryLease(clock),
});

let secretsDir = '';
const fresh = () => mkdtemp(join(tmpdir(), 'kubeplane-ports-'));
describePortSuite('file adapters', {
  stateStore: async () => new FileStateStore(await fresh()),
  secretStore: async () => new FileSecretStore((secretsDir = await fresh())),
  queue: async (clock) => new FileQueue(await fresh(), 'steps', { clock, visibilityTimeoutSeconds: 30 }),
  lease: async (clock) => new FileLease(await fresh(), clock),
  inspectSecret: async (name) => {
    // Private material is readable by its owner only.
    expect((await stat(join(secretsDir, 'secrets', `${name}.json`))).mode & 0o777).toBe(0o600);
    expect((await stat(join(secretsDir, 'secrets'))).mode & 0o777).toBe(0o700);
  },
});

describe('file adapters: a damaged file', () => {
  const corrupt = async (path: string) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, '{"revision": 3, "value": {"name": "cut sh');
  };
  const namesTheFile = (path: string) => (e: unknown) =>
    isKubeplaneError(e) && e.details.code === 'CorruptFile' && e.message.includes(path) && !(e instanceof SyntaxError);

  it('gives an error naming the state file when it is cut short, not a SyntaxError', async () => {
    const dir = await fresh();
    const path = join(dir, 'state', 'projects', 'demo.json');
    await corrupt(path);
    await expect(new FileStateStore(dir).get('projects/demo')).rejects.toSatisfy(namesTheFile(path));
    await expect(new FileStateStore(dir).put('projects/demo', 1, 3)).rejects.toSatisfy(namesTheFile(path));
  });

  it('gives an error naming the queue file when it is cut short', async () => {
    const dir = await fresh();
    const path = join(dir, 'queues', 'steps.json');
    await corrupt(path);
    const q = new FileQueue(dir, 'steps');
    await expect(q.receive(1)).rejects.toSatisfy(namesTheFile(path));
    await expect(q.size()).rejects.toSatisfy(namesTheFile(path));
  });

  it('gives an error naming the lease file when it is cut short', async () => {
    const dir = await fresh();
    const path = join(dir, 'leases', 'clusters', 'c1.json');
    await corrupt(path);
    await expect(new FileLease(dir).acquire('clusters/c1', 'a', 60)).rejects.toSatisfy(namesTheFile(path));
  });
});

describe('file adapters: long names', () => {
  it('keeps secrets and leases under keys with a 253-character segment, and lists them by their names', async () => {
    const dir = await fresh();
    const name = `clusters/${'x'.repeat(253)}/kubeconfig`;
    const secrets = new FileSecretStore(dir);
    await secrets.put(name, Redacted.of('k'), { output: 'kubeconfig' });
    expect((await secrets.get(name))?.reveal()).toBe('k');
    expect((await secrets.list({ output: 'kubeconfig' })).map((e) => e.name)).toEqual([name]);
    const lease = new FileLease(dir);
    expect((await lease.acquire(`clusters/${'x'.repeat(253)}`, 'a', 60))?.owner).toBe('a');
  });
});

describe('file adapters: reclaiming what a crashed process left (for a caller that knows it is alone)', () => {
  it('makes messages in flight deliverable at once instead of after the visibility timeout', async () => {
    const { VirtualClock } = await import('../../provider/clock.js');
    const clock = new VirtualClock(0);
    const dir = await fresh();
    const crashed = new FileQueue<{ n: number }>(dir, 'steps', { clock, visibilityTimeoutSeconds: 300 });
    await crashed.send({ n: 1 }, { groupId: 'c1' });
    expect(await crashed.receive(10)).toHaveLength(1);
    const next = new FileQueue<{ n: number }>(dir, 'steps', { clock, visibilityTimeoutSeconds: 300 });
    expect(await next.receive(10)).toHaveLength(0);
    expect(await next.reclaimInFlight()).toBe(1);
    expect((await next.receive(10)).map((m) => m.body)).toEqual([{ n: 1 }]);
    expect(await next.bodies()).toEqual([{ n: 1 }]);
  });

  it('releases every lease held, and the next grant still gets a larger fencing token', async () => {
    const { VirtualClock } = await import('../../provider/clock.js');
    const clock = new VirtualClock(0);
    const dir = await fresh();
    const held = await new FileLease(dir, clock).acquire('clusters/c1', 'dead-worker/1', 120);
    const lease = new FileLease(dir, clock);
    expect(await lease.acquire('clusters/c1', 'cli/2', 120)).toBeNull();
    expect(await lease.releaseAll()).toBe(1);
    const grant = await lease.acquire('clusters/c1', 'cli/2', 120);
    expect(grant?.token).toBeGreaterThan(held?.token ?? Infinity);
  });
});
