// Which seeds a chaos run covers, and the tests for them: CHAOS_SEED replays one, CHAOS_SEEDS sets how many
// (default 200), CHAOS_FIRST the first of them (default 1). The seeds are split by parity over two test files so the two test workers share them.
import { describe, expect, it } from 'vitest';
import { chaosRun, cmkChaosRun, type ChaosReport } from './harness.js';

export function chaosSeeds(parity: 0 | 1): number[] {
  if (process.env.CHAOS_SEED) return Number(process.env.CHAOS_SEED) % 2 === parity ? [Number(process.env.CHAOS_SEED)] : [];
  const count = Number(process.env.CHAOS_SEEDS ?? 200);
  const first = Number(process.env.CHAOS_FIRST ?? 1);
  return Array.from({ length: count }, (_, i) => i + first).filter((s) => s % 2 === parity);
}

export function describeChaos(parity: 0 | 1): void {
  describeRuns('chaos: every fault schedule converges, holds no duplicate or ghost machine, and leaves nothing after destroy', chaosSeeds(parity), chaosRun);
}

/** The CMK schedules: a fifth as many seeds (a CMK cluster's life is longer in steps), CMK_CHAOS_SEED replays one. */
export function describeCmkChaos(): void {
  // A range of CHAOS_FIRST..+CHAOS_SEEDS covers the CMK seeds of its fifth of the range (1-25 for seeds 1-125).
  const first = Math.floor((Number(process.env.CHAOS_FIRST ?? 1) - 1) / 5) + 1;
  const seeds = process.env.CMK_CHAOS_SEED ? [Number(process.env.CMK_CHAOS_SEED)] : Array.from({ length: Math.ceil(Number(process.env.CHAOS_SEEDS ?? 200) / 5) }, (_, i) => i + first);
  describeRuns('chaos on a CMK cluster: one cluster, one pool per name, the latest counts, nothing left after destroy', seeds, cmkChaosRun, 'CMK_CHAOS_SEED');
}

function describeRuns(title: string, seeds: number[], run: (seed: number) => Promise<ChaosReport>, replay = 'CHAOS_SEED'): void {
  describe(title, () => {
    for (const seed of seeds) {
      it(`seed ${seed} (replay: ${replay}=${seed} npx vitest run test/chaos)`, async () => {
        const report = await run(seed);
        expect(report.violations, `seed ${seed}: ${JSON.stringify(report)}`).toEqual([]);
        expect(report.leaked).toBe(0);
        // A seed is a whole cluster's life, twice when the message bound needs the fault-free run: minutes on a
        // busy runner. A seed cut off by the default timeout would keep running into the next one's sandbox.
      }, 600_000);
    }
  });
}
