// The budget guard (npm run test:budget): a tier over its budget by more than the tolerance fails, naming its slowest
// files; a partial run is not judged; the CI run as a whole is judged when .ci/run says when it started.
import { describe, expect, it } from 'vitest';
import { judge, type Budgets } from './budget.js';
import type { TierReport } from './timing-reporter.js';

const budgets: Budgets = {
  tolerance: 0.2,
  tiers: { fast: { seconds: 100, why: '' }, e2e: { seconds: 1000, why: '' } },
  ci: { seconds: 1800, why: '' },
  machine: { probeSeconds: 0.2, why: '' },
};

function report(tier: 'fast' | 'e2e', wallSeconds: number, scheduled = 3, probeSeconds = { before: 0.2, after: 0.2 }): TierReport {
  const files = [
    { file: `slow.${tier}.test.ts`, tier, seconds: wallSeconds * 0.9, importSeconds: 1, tests: 4, state: 'passed' },
    { file: `mid.${tier}.test.ts`, tier, seconds: wallSeconds * 0.5, importSeconds: 1, tests: 2, state: 'passed' },
    { file: `quick.${tier}.test.ts`, tier, seconds: 1, importSeconds: 0.5, tests: 1, state: 'passed' },
  ];
  return { tier, wallSeconds, startedAt: '2026-12-05T00:00:00Z', reason: 'passed', scheduled, files, probeSeconds };
}

describe('the budget guard', () => {
  it('passes tiers within their budget plus tolerance', () => {
    const v = judge(budgets, { fast: report('fast', 119), e2e: report('e2e', 900) }, { fast: 3, e2e: 3 });
    expect(v.ok).toBe(true);
    expect(v.lines[0]).toMatch(/^fast: 119 s wall .*within budget/);
  });

  it('fails a tier more than 20 % over its budget and names its slowest files', () => {
    const v = judge(budgets, { fast: report('fast', 121) }, { fast: 3, e2e: 3 });
    expect(v.ok).toBe(false);
    expect(v.lines.join('\n')).toMatch(/fast: 121 s wall .*OVER BUDGET/);
    expect(v.lines.join('\n')).toContain('slow.fast.test.ts');
    expect(v.lines.join('\n')).toMatch(/e2e: not run/);
  });

  it('does not judge a run of part of a tier, and fails when no whole tier was run', () => {
    const v = judge(budgets, { fast: report('fast', 500, 1) }, { fast: 3, e2e: 3 });
    expect(v.ok).toBe(false);
    expect(v.lines.join('\n')).toContain("took 1 of the tier's 3 files, not judged");
    expect(v.lines.join('\n')).toContain('no whole tier has been run');
  });

  it('fails the CI run as a whole past its budget plus tolerance', () => {
    const ok = judge(budgets, { fast: report('fast', 90) }, { fast: 3, e2e: 3 }, 2100);
    expect(ok.ok).toBe(true);
    const over = judge(budgets, { fast: report('fast', 90) }, { fast: 3, e2e: 3 }, 2200);
    expect(over.ok).toBe(false);
    expect(over.lines.at(-1)).toMatch(/^ci: 2200 s since .ci\/run started .*OVER BUDGET/);
  });

  it("judges a tier at the reference machine's speed when the probes say this one ran slower, by the faster probe", () => {
    // 150 s wall on a machine 1.5x slower (probes 0.3 s and 0.32 s, reference 0.2 s): 100 s at the reference's speed.
    const slow = judge(budgets, { fast: report('fast', 150, 3, { before: 0.3, after: 0.32 }) }, { fast: 3, e2e: 3 }, 2900);
    expect(slow.ok).toBe(true);
    expect(slow.lines[0]).toMatch(/^fast: 150 s wall for 3 files; this machine ran 1\.50x slower .*: 100 s at the reference's speed .*within budget/);
    expect(slow.lines.at(-1)).toMatch(/^ci: 2900 s since .ci\/run started, 1933 s at the reference's speed .*within budget/);
    // One slow probe is a moment's noise: the faster one counts.
    const noisy = judge(budgets, { fast: report('fast', 150, 3, { before: 0.6, after: 0.2 }) }, { fast: 3, e2e: 3 });
    expect(noisy.ok).toBe(false);
    expect(noisy.lines[0]).toMatch(/^fast: 150 s wall for 3 files \(budget/);
  });

  it('never holds a machine faster than the reference to a tighter budget, and judges a report without probes as it is', () => {
    const fast = judge(budgets, { fast: report('fast', 119, 3, { before: 0.1, after: 0.1 }) }, { fast: 3, e2e: 3 });
    expect(fast.ok).toBe(true);
    const { probeSeconds: _none, ...unprobed } = report('fast', 121);
    const old = judge(budgets, { fast: unprobed }, { fast: 3, e2e: 3 });
    expect(old.ok).toBe(false);
  });
});
