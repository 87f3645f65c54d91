// One Runtime interface over the local (real clouds), sandbox, AWS and Google runtimes: what drives the engine
// takes a Runtime, and each runtime answers for its own kind, clock and what it holds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '@kubeplane/sdk';
import { awsRuntimeFromEnv } from '../aws/runtime.js';
import { LocalRuntime } from './local.js';
import type { Runtime } from './runtime.js';

/** What a driver of any runtime may rely on: the engine, the clock, the kind, and close. */
async function describeAndClose(rt: Runtime): Promise<{ kind: string; projects: number; clockIsSystem: boolean }> {
  try {
    const projects = await rt.kubeplane.projects();
    return { kind: rt.kind, projects: projects.length, clockIsSystem: rt.clock === systemClock };
  } finally {
    await rt.close();
  }
}

describe('the Runtime interface', () => {
  it('is what the local runtime is, on the real clouds and on the sandbox', async () => {
    const base = { env: {}, cwd: process.cwd(), memory: true, stateDir: '.' };
    expect(await describeAndClose(await LocalRuntime.open({ ...base, sandbox: false }))).toEqual({ kind: 'local', projects: 0, clockIsSystem: true });
    const sandboxed = await LocalRuntime.open({ ...base, sandbox: true });
    expect(sandboxed.clock).toBe(sandboxed.sandbox?.clock);
    expect(await describeAndClose(sandboxed)).toEqual({ kind: 'sandbox', projects: 0, clockIsSystem: false });
  });

  it('releases a state directory for the next writer on close, whichever clouds it drove', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-runtime-'));
    try {
      const options = { env: {}, cwd: dir, stateDir: join(dir, 'state'), sandbox: true, write: true };
      await describeAndClose(await LocalRuntime.open(options));
      // The world was written back, and the lock released: a second writer opens the same directory.
      await describeAndClose(await LocalRuntime.open(options));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is what the AWS runtime is', async () => {
    const env = {
      AWS_REGION: 'eu-central-1',
      KUBEPLANE_TABLE: 'kubeplane',
      KUBEPLANE_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/steps',
    };
    const rt: Runtime = awsRuntimeFromEnv(env);
    expect(rt.kind).toBe('aws');
    expect(rt.clock).toBe(systemClock);
    await rt.close();
  });
});
