// kill -9 of a real `kubeplane apply --sandbox` process, at 20 points spread over the apply's progress (the k-th
// progress line plus a seeded short delay, so most kills land in the middle of a step): after each, `apply` must end
// DONE and `destroy` DELETED with nothing left in the sandbox clouds. The sandbox world is as durable as a cloud's,
// so these counts mean what they say. Runs the built CLI (packages/handlers/bin, built by `tsc -b`), as a user does.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'packages', 'handlers', 'bin', 'kubeplane.js');
const MANIFEST = 'examples/minimal.yaml';
const KILL_POINTS = 20;
/** Progress lines of a whole `apply -v` of the manifest (49 when written); kill points spread over them. */
const LINES = 48;
/** Two trials at a time: each is one process after another, and the machine has two cores. */
const PARALLEL = 2;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function kubeplane(args: string[], killAt?: { line: number; delayMs: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let lines = 0;
    let armed = killAt !== undefined;
    child.stdout.on('data', (c: Buffer) => {
      const text = c.toString();
      stdout += text;
      lines += text.split('\n').filter((l) => l.startsWith('[sandbox] +')).length;
      if (armed && killAt && lines >= killAt.line) {
        armed = false;
        setTimeout(() => child.kill('SIGKILL'), killAt.delayMs);
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A small seeded generator (mulberry32), so a failing kill point can be run again exactly. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What the killed process left must be consistent as a real cloud's would be: every machine the ledger says was
 * created exists in the saved world (the world may be ahead of the ledger, as a cloud is after a crash; never behind).
 */
async function ledgerAheadOfWorld(dir: string): Promise<string[]> {
  const clusters = join(dir, 'state', 'clusters');
  const files = await readdir(clusters).catch(() => [] as string[]);
  const world = await readFile(join(dir, 'sandbox', 'world.json'), 'utf8').catch(() => '');
  const missing: string[] = [];
  for (const file of files) {
    const record = JSON.parse(await readFile(join(clusters, file), 'utf8')) as { value: { ledger?: { nodes?: Record<string, { id?: string }> } } };
    for (const [name, node] of Object.entries(record.value.ledger?.nodes ?? {})) if (node.id && !world.includes(JSON.stringify(name))) missing.push(name);
  }
  return missing;
}

const tail = (text: string): string => text.trim().split('\n').slice(-4).join(' | ');

async function trial(point: number, line: number, delayMs: number): Promise<string | null> {
  const dir = await mkdtemp(join(tmpdir(), `kubeplane-kill-${point}-`));
  const flags = ['--sandbox', '--state-dir', dir];
  const where = `kill point ${point} (after progress line ${line} + ${delayMs} ms, state ${dir})`;
  const killed = await kubeplane(['apply', MANIFEST, ...flags, '-v'], { line, delayMs });
  const how = killed.signal === 'SIGKILL' ? 'killed' : `ended by itself with ${killed.code}`;
  const behind = await ledgerAheadOfWorld(dir);
  if (behind.length) return `${where}, first apply ${how}: the ledger has machines the saved sandbox world does not: ${behind.join(', ')}`;
  const applied = await kubeplane(['apply', MANIFEST, ...flags]);
  if (applied.code !== 0 || !/\[sandbox\] minimal: DONE/.test(applied.stdout))
    return `${where}, first apply ${how}: apply exited ${applied.code}: ${tail(applied.stdout)} ${tail(applied.stderr)}`;
  const destroyed = await kubeplane(['destroy', MANIFEST, ...flags]);
  if (destroyed.code !== 0 || !/\[sandbox\] minimal: DELETED/.test(destroyed.stdout) || !destroyed.stdout.includes('resources left in the sandbox clouds: 0')) {
    return `${where}, first apply ${how}: destroy exited ${destroyed.code}: ${tail(destroyed.stdout)} ${tail(destroyed.stderr)}`;
  }
  return null;
}

describe('kill -9 of a real kubeplane apply --sandbox', () => {
  it(`at ${KILL_POINTS} points across the apply, apply then destroy end DONE and DELETED with nothing left`, async () => {
    const random = seeded(13);
    const points = Array.from({ length: KILL_POINTS }, (_, i) => ({
      point: i + 1,
      line: 1 + Math.round((i * (LINES - 1)) / (KILL_POINTS - 1)),
      delayMs: Math.floor(random() * 250),
    }));
    const failures: string[] = [];
    const queue = [...points];
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let p = queue.shift(); p; p = queue.shift()) {
          const failure = await trial(p.point, p.line, p.delayMs);
          if (failure) failures.push(failure);
        }
      }),
    );
    expect(failures).toEqual([]);
  }, 900_000);
});
