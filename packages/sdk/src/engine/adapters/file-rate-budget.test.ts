import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRateBudgetSuite } from '../../provider/conformance/rate-budget-suite.js';
import { VirtualClock } from '../../provider/clock.js';
import { fileRateBudgets } from './file-rate-budget.js';

const dirs: string[] = [];
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-budget-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

// Each worker is its own store object on the directory, as each kubeplane process would be.
describeRateBudgetSuite('in a state directory (fileRateBudgets)', {
  inFlightAllowance: 10,
  async store(clock) {
    const dir = await freshDir();
    return { worker: () => fileRateBudgets(dir, clock) };
  },
});

describe('fileRateBudgets', () => {
  it('names the file when it is not a budget file', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'rate-budgets.json'), '{"hetzner:p": 17');
    const budget = fileRateBudgets(dir, new VirtualClock()).get('hetzner:p', { capacity: 10, refillPerSecond: 1 });
    await expect(budget.take()).rejects.toThrow(join(dir, 'rate-budgets.json'));
  });
});
