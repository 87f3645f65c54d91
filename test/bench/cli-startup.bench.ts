// How long a person waits for `kubeplane --help` and `kubeplane validate` of a small manifest, and how much memory the
// process takes: the built CLI (packages/handlers/bin/kubeplane.js, what an installed `kubeplane` runs) spawned afresh
// each time, interleaved with a bare `node -e 0` measured in the same run as the floor no Node CLI can go under.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchResult } from './types.js';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const RUNS = 15;
const bin = join(root, 'packages', 'handlers', 'bin', 'kubeplane.js');
/**
 * GNU time reports the child's peak resident set (%M, KB) and its CPU time (%U user + %S system seconds), which a busy
 * machine (two cores shared by several runs) stretches less than the wall time; without it the figures carry neither.
 */
const TIME = '/usr/bin/time';

interface Sample {
  ms: number;
  rssMb?: number;
  cpuMs?: number;
}

async function once(args: string[]): Promise<Sample> {
  const withTime = existsSync(TIME);
  const started = performance.now();
  const { stderr } = withTime
    ? await exec(TIME, ['-f', 'maxrss %M cpu %U %S', process.execPath, ...args], { cwd: root, env: { PATH: process.env.PATH ?? '' } })
    : await exec(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });
  const ms = performance.now() - started;
  const time = /maxrss (\d+) cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
  return time ? { ms, rssMb: Number(time[1]) / 1024, cpuMs: (Number(time[2]) + Number(time[3])) * 1000 } : { ms };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export async function run(): Promise<BenchResult[]> {
  const cases = {
    'node -e 0': ['-e', '0'],
    'kubeplane --help': [bin, '--help'],
    'kubeplane validate examples/minimal.yaml': [bin, 'validate', 'examples/minimal.yaml'],
  } as const;
  const samples = new Map<string, Sample[]>(Object.keys(cases).map((k) => [k, []]));
  // Interleaved, so a busy moment of the machine weighs on every case alike.
  for (let i = 0; i < RUNS; i++) for (const [name, args] of Object.entries(cases)) samples.get(name)?.push(await once([...args]));
  const figures = (name: string): { ms: number; rss: number; cpu: number } => {
    const s = samples.get(name) ?? [];
    const of = (pick: (x: Sample) => number | undefined): number => median(s.flatMap((x) => pick(x) ?? []));
    return { ms: median(s.map((x) => x.ms)), rss: of((x) => x.rssMb), cpu: of((x) => x.cpuMs) };
  };
  const floor = figures('node -e 0');
  const memory = ({ rss, cpu }: { rss: number; cpu: number }): string =>
    Number.isNaN(rss) ? 'peak RSS and CPU not measured (no /usr/bin/time)' : `peak RSS ${rss.toFixed(0)} MB, CPU ${cpu.toFixed(0)} ms`;
  const out: BenchResult[] = [
    { name: `CLI startup floor: node -e 0 (median wall of ${RUNS} fresh processes)`, value: floor.ms, unit: 'ms', note: memory(floor) },
  ];
  for (const name of ['kubeplane --help', 'kubeplane validate examples/minimal.yaml']) {
    const measured = figures(name);
    out.push({
      name: `CLI startup: ${name} (median wall of ${RUNS})`,
      value: measured.ms,
      unit: 'ms',
      target: '<= 300 ms',
      note: `${memory(measured)} (medians); ${(measured.ms - floor.ms).toFixed(0)} ms over node -e 0 in the same run`,
    });
  }
  return out;
}
