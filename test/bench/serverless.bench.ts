// The serverless runtime's figures: each Lambda bundle's size (minified, AWS SDK included) and its cold import
// time next to a bare @aws-sdk/client-ec2 import measured in the same run, and the invocations and SQS messages
// one cluster costs (counted on the sandbox: one step message = one invocation with batch size 1).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import type { StepEvent } from '@kubeplane/sdk';
import { bundleHandlers } from '../../packages/aws-cdk/scripts/bundle.js';
import { manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';
import type { BenchResult } from './types.js';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

/** Median of fresh-process import times (ms) of a module, with the env a Lambda function gets. */
async function coldImportMs(specifier: string, runs = 5): Promise<number> {
  const script = `const t=performance.now();await import(${JSON.stringify(specifier)});console.log(performance.now()-t)`;
  const env = {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'eu-central-1',
    KUBEPLANE_TABLE: 'kubeplane',
    KUBEPLANE_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/kubeplane-steps',
    KUBEPLANE_KEPT_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/kubeplane-steps-kept',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env });
    // The last line: a function may log at cold start (the API warns when it has no access grants).
    samples.push(Number(stdout.trim().split('\n').pop()));
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN;
}

async function messagesPerCluster(): Promise<{ create: number; destroy: number; sent: number }> {
  const w = sandboxWorld(21);
  let sent = 0;
  const send = w.queue.send.bind(w.queue);
  w.queue.send = (body: StepEvent, options) => {
    sent++;
    return send(body, options);
  };
  try {
    await w.kp.apply(manifestOf(readFileSync(join(root, 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8')));
    const create = (await w.kp.run()).messages;
    await w.kp.destroy('hybrid');
    const destroy = (await w.kp.run()).messages;
    return { create, destroy, sent };
  } finally {
    w.sandbox.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  // Inside the repository, so the runtime-provided AWS SDK resolves from node_modules as it would on Lambda.
  await mkdir(join(root, 'node_modules', '.cache'), { recursive: true });
  const bundles = await bundleHandlers(await mkdtemp(join(root, 'node_modules', '.cache', 'kubeplane-bundles-')));
  const pinned = await bundleHandlers(await mkdtemp(join(tmpdir(), 'kubeplane-bundles-sdk-')), { awsSdk: 'bundled' });
  const baseline = await coldImportMs('@aws-sdk/client-ec2');
  for (const [name, b] of Object.entries(bundles)) {
    const withSdk = pinned[name as keyof typeof pinned].bytes;
    out.push({
      name: `lambda bundle ${name} (minified; AWS SDK from the nodejs22.x runtime)`,
      value: b.bytes / 1e6,
      unit: 'MB',
      target: '<= 1.0 MB',
      note: `${(withSdk / 1e6).toFixed(2)} MB with the AWS SDK bundled`,
    });
    const ms = await coldImportMs(join(b.dir, 'index.mjs'));
    out.push({
      name: `lambda ${name}: cold import (median of 5 fresh processes)`,
      value: ms,
      unit: 'ms',
      note: `bare @aws-sdk/client-ec2 import in the same run: ${baseline.toFixed(0)} ms (${(ms / baseline).toFixed(1)}x)`,
    });
  }
  const m = await messagesPerCluster();
  out.push(
    { name: 'serverless: Lambda invocations to create the hybrid example (10 machines)', value: m.create, unit: 'invocations' },
    { name: 'serverless: Lambda invocations to destroy it', value: m.destroy, unit: 'invocations' },
    { name: 'serverless: SQS messages sent for create + destroy', value: m.sent, unit: 'messages', note: 'one per step run; waits are delayed messages' },
  );
  return out;
}
