// A lock left by a process that died (kill -9) is taken over by exactly one of the processes that find it, every
// time: two contenders in separate processes go at once on a planted stale lock, 50 times for each kind of lock.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TRIALS = 50;
const contenderScript = join(import.meta.dirname, 'lock-contender.ts');

interface Reply {
  ready?: true;
  acquired?: boolean;
  done?: true;
  error?: string;
}

class Contender {
  readonly replies: Reply[] = [];
  #waiters: Array<() => void> = [];
  constructor(readonly child: ChildProcess) {
    child.on('message', (m: Reply) => {
      this.replies.push(m);
      for (const w of this.#waiters.splice(0)) w();
    });
  }
  async next(pred: (r: Reply) => boolean): Promise<Reply> {
    await this.until(() => this.replies.some(pred));
    return this.replies.splice(this.replies.findIndex(pred), 1)[0] as Reply;
  }
  /** Resolves once `cond` holds, looking again at every reply; takes no reply. A contender's error fails the trial at once. */
  async until(cond: () => boolean): Promise<void> {
    for (;;) {
      const failed = this.replies.find((r) => r.error !== undefined);
      if (failed) throw new Error(`contender ${this.child.pid} failed: ${failed.error}`);
      if (cond()) return;
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('exit', r));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

/** A lock as a killed holder leaves it: an older kubeplane's file, or the current folder with its owner file. */
async function plantStale(path: string, pid: number, asFolder: boolean): Promise<void> {
  const owner = { pid, command: 'apply (killed)', since: new Date().toISOString(), at: Date.now() };
  if (asFolder) {
    await mkdir(path, { recursive: true });
    await writeFile(join(path, 'owner.json'), JSON.stringify({ ...owner, host: (await import('node:os')).hostname(), nonce: `dead${pid}` }));
  } else {
    await writeFile(path, JSON.stringify(owner));
  }
}

let pair: [Contender, Contender];
let dead: number;

beforeAll(async () => {
  const start = (): Contender =>
    new Contender(
      fork(contenderScript, [], { execArgv: ['--conditions=@kubeplane/source', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    );
  pair = [start(), start()];
  dead = await deadPid();
  await Promise.all(pair.map((c) => c.next((r) => r.ready === true)));
}, 60_000);

afterAll(() => {
  for (const c of pair) c.child.send({ exit: true });
});

describe('taking over a stale lock', () => {
  it(`lets exactly one of two concurrent writers take a dead process's writer.lock, in ${TRIALS} of ${TRIALS} trials`, async () => {
    const root = await mkdtemp(join(tmpdir(), 'kubeplane-stale-writer-'));
    const outcomes: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const path = join(root, String(trial), 'writer.lock');
      await mkdir(join(root, String(trial)));
      await plantStale(path, dead, trial % 2 === 1);
      for (const c of pair) c.child.send({ go: 'writer', path });
      const replies = await Promise.all(pair.map((c) => c.next((r) => r.acquired !== undefined)));
      outcomes.push(replies.map((r) => (r.acquired ? 'ran' : 'refused')).join('+'));
      for (const c of pair) c.child.send({ release: true });
      await Promise.all(pair.map((c) => c.next((r) => r.done === true)));
    }
    const bad = outcomes.map((o, i) => ({ trial: i, o })).filter(({ o }) => o !== 'ran+refused' && o !== 'refused+ran');
    expect(bad).toEqual([]);
  }, 120_000);

  it(`lets exactly one of two concurrent processes into a dead process's file lock at a time, in ${TRIALS} of ${TRIALS} trials`, async () => {
    const root = await mkdtemp(join(tmpdir(), 'kubeplane-stale-file-'));
    const overlaps: number[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const path = join(root, `${trial}.lock`);
      await plantStale(path, dead, trial % 2 === 1);
      for (const c of pair) c.child.send({ go: 'file', path });
      // Whoever is in first stays in until told; the other must not get in meanwhile. It has the time it takes to
      // take over a stale lock many times over (a long wait only makes a miss less likely, never a false alarm).
      const inside = (c: Contender): boolean => c.replies.some((r) => r.acquired === true);
      await Promise.race(pair.map((c) => c.until(() => inside(c))));
      const first = inside(pair[0]) ? 0 : 1;
      (pair[first] as Contender).replies.splice(
        (pair[first] as Contender).replies.findIndex((r) => r.acquired === true),
        1,
      );
      await new Promise((r) => setTimeout(r, 100));
      const other = pair[1 - first] as Contender;
      if (other.replies.some((r) => r.acquired === true)) overlaps.push(trial);
      (pair[first] as Contender).child.send({ release: true });
      await other.next((r) => r.acquired === true);
      other.child.send({ release: true });
      await Promise.all(pair.map((c) => c.next((r) => r.done === true)));
    }
    expect(overlaps).toEqual([]);
  }, 120_000);
});
