// The chaos window CI runs: at least 200 schedules, new ones each day, every seed of the window in exactly one part.
import { describe, expect, it } from 'vitest';
import { chaosSeeds, chaosWindow, cmkChaosSeeds, PARTS, permanentFaultSeeds } from './seeds.js';

const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`);
const all = (seeds: (part: number) => number[]) =>
  Array.from({ length: PARTS }, (_, i) => seeds(i + 1))
    .flat()
    .sort((a, b) => a - b);

describe('the chaos window', () => {
  it('is 200 seeds that move with the date: two days share none', () => {
    const monday = all((p) => chaosSeeds(p, {}, day('2026-12-07')));
    const tuesday = all((p) => chaosSeeds(p, {}, day('2026-12-08')));
    expect(monday).toHaveLength(200);
    expect(tuesday).toHaveLength(200);
    expect(monday.filter((s) => tuesday.includes(s))).toEqual([]);
    expect(tuesday[0]).toBe((monday.at(-1) ?? 0) + 1);
  });

  it('gives every seed of the window to exactly one part, the parts within one seed of each other in size', () => {
    const now = day('2026-12-05');
    const { first, count } = chaosWindow({}, now);
    const parts = Array.from({ length: PARTS }, (_, i) => chaosSeeds(i + 1, {}, now));
    expect(parts.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => first + i));
    const sizes = parts.map((p) => p.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it('runs a fifth as many CMK seeds, their own window moving with the hybrid one', () => {
    expect(all((p) => cmkChaosSeeds(p, { CHAOS_FIRST: '1' }))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(all((p) => cmkChaosSeeds(p, { CHAOS_FIRST: '201' }))).toEqual(Array.from({ length: 40 }, (_, i) => i + 41));
  });

  it('is pinned by CHAOS_FIRST and CHAOS_SEEDS, and replays one seed with CHAOS_SEED or CMK_CHAOS_SEED', () => {
    expect(all((p) => chaosSeeds(p, { CHAOS_FIRST: '1', CHAOS_SEEDS: '6' }))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(all((p) => chaosSeeds(p, { CHAOS_SEED: '4711' }))).toEqual([4711]);
    expect(all((p) => cmkChaosSeeds(p, { CHAOS_SEED: '4711' }))).toEqual([]);
    expect(all((p) => cmkChaosSeeds(p, { CMK_CHAOS_SEED: '17' }))).toEqual([17]);
    expect(all((p) => chaosSeeds(p, { CMK_CHAOS_SEED: '17' }))).toEqual([]);
  });

  it('runs a twentieth as many seeds of permanent faults during destroy, replayed alone with PERMANENT_CHAOS_SEED', () => {
    expect(all((p) => permanentFaultSeeds(p, { CHAOS_FIRST: '201' }))).toEqual(Array.from({ length: 10 }, (_, i) => i + 11));
    expect(all((p) => permanentFaultSeeds(p, { PERMANENT_CHAOS_SEED: '9' }))).toEqual([9]);
    expect(all((p) => chaosSeeds(p, { PERMANENT_CHAOS_SEED: '9' }))).toEqual([]);
    expect(all((p) => cmkChaosSeeds(p, { PERMANENT_CHAOS_SEED: '9' }))).toEqual([]);
    expect(all((p) => permanentFaultSeeds(p, { CHAOS_SEED: '9' }))).toEqual([]);
  });
});
