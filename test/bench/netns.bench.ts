// The netns mode's cost: wall time of the hybrid example's whole lifecycle with every machine a network namespace
// (real wireguard-go, nginx, etcd, TLS) next to the default mode's in the same run, and the peak resident memory of
// one machine's namespace (every process in it, sampled while the lifecycle runs).
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { NetnsSandbox } from '@kubeplane/sandbox';
import { lifecycle } from '../../packages/handlers/src/cli/commands/lifecycle.js';
import type { BenchResult } from './types.js';

const root = join(import.meta.dirname, '..', '..');
const example = 'examples/hybrid-aws-hetzner.yaml';

function sink(): PassThrough & { text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return Object.assign(stream, { text: () => text });
}

async function timed(args: string[], onNetns?: (netns: NetnsSandbox) => void): Promise<{ ms: number; code: number; out: string }> {
  const stdout = sink();
  const stderr = sink();
  const t0 = performance.now();
  const code = await lifecycle(args, { stdout, stderr, env: process.env, cwd: root }, onNetns ? { onNetns } : {});
  return { ms: performance.now() - t0, code, out: stdout.text() + stderr.text() };
}

export async function run(): Promise<BenchResult[]> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const plain = await timed([example]);
  const peaks = new Map<string, number>();
  let sampler: ReturnType<typeof setInterval> | undefined;
  const netns = await timed([example, '--netns'], (n) => {
    sampler = setInterval(() => {
      void n.memory().then((m) => {
        for (const [id, bytes] of m) peaks.set(id, Math.max(peaks.get(id) ?? 0, bytes));
      });
    }, 1000);
  });
  if (sampler) clearInterval(sampler);
  const peakMiB = [...peaks.values()].map((b) => b / 2 ** 20).sort((a, b) => b - a);
  const handshakes = /create\s+DONE.*?(\d+\/\d+)\s*$/m.exec(netns.out)?.[1] ?? '?';
  return [
    {
      name: `lifecycle of ${example}, default mode (wall time)`,
      value: plain.ms / 1000,
      unit: 's',
      note: plain.code === 0 ? 'every stage DONE, leaked 0' : `exit ${plain.code}`,
    },
    {
      name: `lifecycle of ${example}, --netns (wall time)`,
      value: netns.ms / 1000,
      unit: 's',
      note: `${(netns.ms / plain.ms).toFixed(1)}x the default mode in this run; ${
        netns.code === 0
          ? `every stage DONE, create ${handshakes} handshakes, leaked 0`
          : `exit ${netns.code}: ${netns.out
              .split('\n')
              .filter((l) => l.includes('ended') || l.includes('without a WireGuard'))
              .join(' | ')
              .slice(0, 300)}`
      }`,
    },
    {
      name: 'peak resident memory of one machine namespace (--netns, hybrid)',
      value: peakMiB[0] ?? 0,
      unit: 'MiB',
      note: `largest of ${peakMiB.length} machines (all processes in the namespace, RSS summed, shared pages counted each time); median ${(peakMiB[Math.floor(peakMiB.length / 2)] ?? 0).toFixed(1)} MiB`,
    },
  ];
}
