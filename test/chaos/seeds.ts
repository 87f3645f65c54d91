// Which seeds a chaos run covers, and the tests for them: CHAOS_SEED replays one, CHAOS_SEEDS sets how many
// (default 200). The seeds are split by parity over two test files so the two test workers share them.
import { describe, expect, it } from 'vitest';
import { chaosRun } from './harness.js';

export function chaosSeeds(parity: 0 | 1): number[] {
  if (process.env.CHAOS_SEED) return Number(process.env.CHAOS_SEED) % 2 === parity ? [Number(process.env.CHAOS_SEED)] : [];
  const count = Number(process.env.CHAOS_SEEDS ?? 200);
  return Array.from({ length: count }, (_, i) => i + 1).filter((s) => s % 2 === parity);
}

export function describeChaos(parity: 0 | 1): void {
  describe('chaos: every fault schedule converges, holds no duplicate or ghost machine, and leaves nothing after destroy', () => {
    for (const seed of chaosSeeds(parity)) {
      it(`seed ${seed} (replay: CHAOS_SEED=${seed} npx vitest run test/chaos)`, async () => {
        const report = await chaosRun(seed);
        expect(report.violations, `seed ${seed}: ${JSON.stringify(report)}`).toEqual([]);
        expect(report.leaked).toBe(0);
      });
    }
  });
}
