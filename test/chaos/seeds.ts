// Which seeds a chaos run covers. The window moves with the date: each UTC day runs 200 hybrid schedules it has never
// run before (seeds 1 + 200·d … 200·(d+1), d the days since 2026-01-01) and a fifth as many CMK ones, so CI keeps
// finding new schedules instead of proving the same 200 again. The window is cut into PARTS test files
// (part-<k>.e2e.test.ts), each its own process: one process for hundreds of seeds slows seed after seed (msw's
// interceptors keep memory), and two workers share the parts. Every seed's test names its replay line.
//   CHAOS_SEED=n       replays one hybrid seed   CMK_CHAOS_SEED=n   replays one CMK seed
//   PERMANENT_CHAOS_SEED=n replays one seed of permanent faults during destroy (a twentieth of the window)
//   CHAOS_FIRST=f      pins the window's start    CHAOS_SEEDS=c      sets its size (default 200)
import { describe, expect, it } from 'vitest';
import { chaosRun, cmkChaosRun, permanentFaultRun, type ChaosReport } from './harness.js';

/** Test files the window is cut into (test/chaos/part-1 … part-PARTS). */
export const PARTS = 4;
export const DEFAULT_WINDOW = 200;
/** CMK schedules run a fifth as many seeds: a CMK cluster's life is longer in steps. */
export const CMK_SHARE = 5;
/** Permanent-fault destroys run a twentieth as many seeds: a short life, the class's point is the end. */
export const PERMANENT_SHARE = 20;
const EPOCH = Date.UTC(2026, 0, 1);

export interface ChaosWindow {
  first: number;
  count: number;
  /** What chose it: the date, or the environment. */
  why: string;
}

/** The hybrid window of `now` (or of CHAOS_FIRST / CHAOS_SEEDS). */
export function chaosWindow(env: NodeJS.ProcessEnv = process.env, now = Date.now()): ChaosWindow {
  const count = Number(env.CHAOS_SEEDS ?? DEFAULT_WINDOW);
  if (env.CHAOS_FIRST !== undefined) return { first: Number(env.CHAOS_FIRST), count, why: 'CHAOS_FIRST' };
  const day = Math.max(0, Math.floor((now - EPOCH) / 86_400_000));
  return { first: 1 + day * count, count, why: `the window of ${new Date(EPOCH + day * 86_400_000).toISOString().slice(0, 10)}` };
}

/** Part `part` (1-based) of a range: every PARTS-th seed from its first, so the parts cost about the same. */
function share(first: number, count: number, part: number, parts: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i).filter((_, i) => i % parts === part - 1);
}

/** A replay of one seed of one class leaves the other classes out. */
const replaying = (env: NodeJS.ProcessEnv) => Boolean(env.CHAOS_SEED || env.CMK_CHAOS_SEED || env.PERMANENT_CHAOS_SEED);

export function chaosSeeds(part: number, env: NodeJS.ProcessEnv = process.env, now = Date.now()): number[] {
  if (env.CHAOS_SEED) return part === 1 ? [Number(env.CHAOS_SEED)] : [];
  if (replaying(env)) return [];
  const { first, count } = chaosWindow(env, now);
  return share(first, count, part, PARTS);
}

/** The CMK window: the hybrid window's fifth (seeds 1-40 for hybrid seeds 1-200). */
export function cmkChaosSeeds(part: number, env: NodeJS.ProcessEnv = process.env, now = Date.now()): number[] {
  if (env.CMK_CHAOS_SEED) return part === 1 ? [Number(env.CMK_CHAOS_SEED)] : [];
  if (replaying(env)) return [];
  const { first, count } = chaosWindow(env, now);
  return share(Math.floor((first - 1) / CMK_SHARE) + 1, Math.ceil(count / CMK_SHARE), part, PARTS);
}

/** The permanent-fault window: the hybrid window's twentieth (seeds 1-10 for hybrid seeds 1-200). */
export function permanentFaultSeeds(part: number, env: NodeJS.ProcessEnv = process.env, now = Date.now()): number[] {
  if (env.PERMANENT_CHAOS_SEED) return part === 1 ? [Number(env.PERMANENT_CHAOS_SEED)] : [];
  if (replaying(env)) return [];
  const { first, count } = chaosWindow(env, now);
  return share(Math.floor((first - 1) / PERMANENT_SHARE) + 1, Math.ceil(count / PERMANENT_SHARE), part, PARTS);
}

/**
 * Hybrid seeds that once found a bug, run by part 1 every day besides the window (none while a seed is replayed).
 * 68235: two clouds in a fault storm; teardown wanted both regions clean in one attempt and gave up after 4 h.
 */
export const PINNED_CHAOS_SEEDS: readonly number[] = [68235];

export function pinnedChaosSeeds(part: number, env: NodeJS.ProcessEnv = process.env, now = Date.now()): number[] {
  if (part !== 1 || replaying(env)) return [];
  const window = new Set(Array.from({ length: PARTS }, (_, i) => chaosSeeds(i + 1, env, now)).flat());
  return PINNED_CHAOS_SEEDS.filter((seed) => !window.has(seed));
}

/** One part of the window: its hybrid seeds, then its CMK seeds. */
export function describeChaosPart(part: number): void {
  describeRuns('chaos: seeds that once found a bug (pinned)', pinnedChaosSeeds(part), chaosRun, 'CHAOS_SEED');
  describeRuns(
    `chaos: every fault schedule converges, holds no duplicate or ghost machine, and leaves nothing after destroy`,
    chaosSeeds(part),
    chaosRun,
    'CHAOS_SEED',
  );
  describeRuns(
    'chaos on a CMK cluster: one cluster, one pool per name, the latest counts, nothing left after destroy',
    cmkChaosSeeds(part),
    cmkChaosRun,
    'CMK_CHAOS_SEED',
  );
  describeRuns(
    'chaos with permanent faults (auth, 5xx) during destroy: ERROR with the kubeconfig kept while anything is left, never DELETED with resources behind; nothing left once the cloud heals',
    permanentFaultSeeds(part),
    permanentFaultRun,
    'PERMANENT_CHAOS_SEED',
  );
}

function describeRuns(title: string, seeds: number[], run: (seed: number) => Promise<ChaosReport>, replay: string): void {
  if (seeds.length === 0) return;
  describe(title, () => {
    for (const seed of seeds) {
      const line = `${replay}=${seed} npx vitest run --project e2e test/chaos`;
      it(`seed ${seed} (replay: ${line})`, async () => {
        const report = await run(seed);
        expect(report.violations, `seed ${seed} (replay: ${line}): ${JSON.stringify(report)}`).toEqual([]);
        expect(report.leaked, `seed ${seed} (replay: ${line})`).toBe(0);
        // A seed is a whole cluster's life, twice when the message bound needs the fault-free run: minutes on a
        // busy runner. A seed cut off by the default timeout would keep running into the next one's sandbox.
      }, 600_000);
    }
  });
}
