// `kubeplane autoscaler-adapter serve` on the local runtime (a sandbox state directory): a gRPC client grows the
// pool through it, and the adapter runs the flow that carries the growth out.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../../test/helpers/cli.js';
import { cloudProviderClient } from '../../autoscaler/client.js';
import { autoscalerAdapter } from './autoscaler-adapter.js';
import { writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { Sandbox } from '@kubeplane/sandbox';

const root = join(import.meta.dirname, '..', '..', '..', '..', '..');
const minimal = readFileSync(join(root, 'examples', 'minimal.yaml'), 'utf8').replace(
  /count: 2\n(\s+)serverType: cpx32/,
  'autoscaler: { min: 1, max: 3 }\n$1serverType: cpx32',
);

/** Applies `manifest` on a sandbox state directory and starts `serve` on it in the background, until `stop`. */
async function applyAndServe(manifest: string) {
  const dir = await mkdtemp(join(tmpdir(), 'kp-adapter-'));
  await writeFile(join(dir, 'minimal.yaml'), manifest);
  const env = { HCLOUD_TOKEN: 'x' };
  expect((await runCli(['apply', 'minimal.yaml', '--sandbox'], { cwd: dir, env })).code).toBe(0);
  const out = new PassThrough();
  let printed = '';
  out.on('data', (c: Buffer) => (printed += c.toString('utf8')));
  let stop = () => {};
  const stopped = new Promise<void>((r) => (stop = r));
  const served = autoscalerAdapter(
    ['serve', '--project', 'minimal', '--cluster', 'minimal', '--sandbox', '--listen', '127.0.0.1:0'],
    { stdout: out, stderr: new PassThrough(), cwd: dir, env },
    stopped,
  );
  for (let i = 0; i < 100 && !/on 127\.0\.0\.1:\d+/.test(printed); i++) await new Promise((r) => setTimeout(r, 50));
  return { dir, env, printed, address: /on (127\.0\.0\.1:\d+)/.exec(printed)?.[1] ?? '', stop, served };
}

describe('kubeplane autoscaler-adapter serve', () => {
  it('serves the externalgrpc provider for a sandbox cluster and carries out an IncreaseSize', async () => {
    const { dir, env, address, stop, served } = await applyAndServe(minimal);
    const client = cloudProviderClient(address);
    try {
      expect(await client.targetSize('workers')).toBe(1);
      await client.increaseSize('workers', 1);
      let running = 0;
      for (let i = 0; i < 200 && running < 2; i++) {
        running = (await client.nodeGroupNodes('workers')).filter((n) => n.status.instanceState === 'instanceRunning').length;
        if (running < 2) await new Promise((r) => setTimeout(r, 100));
      }
      expect(running).toBe(2);
    } finally {
      client.close();
      stop();
    }
    expect(await served).toBe(0);
    // kubeplane status shows the pool's counts, in text and in --json.
    const text = await runCli(['status', '--sandbox'], { cwd: dir, env });
    expect(text.stdout).toMatch(/pool workers: 2 wanted \(autoscaled 1–3\), 2 running \(as the cloud reported at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)/);
    const json = await runCli(['status', '--sandbox', '--json'], { cwd: dir, env });
    const result = JSON.parse(json.stdout.trim().split('\n').pop() ?? '{}') as { projects: Array<{ clusters: Record<string, { pools: unknown[] }> }> };
    expect(result.projects[0]?.clusters['minimal']?.pools).toContainEqual({
      name: 'workers',
      target: 2,
      min: 1,
      max: 3,
      running: 2,
      readAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it("serves over mutual TLS, for the adapter address's host, when the cluster's add-on names one, and refuses plain calls", async () => {
    const remote = minimal.replace(
      /compute: \[workers\]\n/,
      'compute: [workers]\n      addons:\n        - { name: cluster_autoscaler, config: { adapterAddress: "198.51.100.7:9443" } }\n',
    );
    expect(remote).not.toEqual(minimal);
    const { printed, address, stop, served } = await applyAndServe(remote);
    expect(printed).toContain('(mutual TLS, certificate for 198.51.100.7)');
    const client = cloudProviderClient(address);
    try {
      await expect(client.targetSize('workers')).rejects.toThrow(/UNAVAILABLE/);
    } finally {
      client.close();
      stop();
    }
    expect(await served).toBe(0);
  });

  it('stops the flow a scaling started when it stops: nothing of it runs on after serve returns', async () => {
    const { address, stop, served } = await applyAndServe(minimal);
    const client = cloudProviderClient(address);
    try {
      await client.increaseSize('workers', 1);
    } finally {
      client.close();
      stop();
    }
    expect(await served).toBe(0);
    // Another sandbox in this process from now on (as the next test's would be) hears nothing from the stopped flow.
    const next = new Sandbox().listen();
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect(next.totalCalls()).toBe(0);
    } finally {
      await next.close();
    }
  });

  it('refuses to start without a project and cluster, or with both the API and a state directory', async () => {
    expect((await runCli(['autoscaler-adapter', 'serve'])).code).toBe(2);
    const both = await runCli([
      'autoscaler-adapter',
      'serve',
      '--project',
      'p',
      '--cluster',
      'c',
      '--api-url',
      'https://x.lambda-url.eu-west-1.on.aws/',
      '--sandbox',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});
