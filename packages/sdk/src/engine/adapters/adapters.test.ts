import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
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
