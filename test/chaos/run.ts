// `npm run chaos`: 1,000 seeded fault schedules (and 200 CMK ones) from CHAOS_FIRST (1 by default), in ranges of
// CHAOS_PART seeds (125), each range one vitest run of the four part files (seeds.ts), each part a fresh process. One
// process for all of them slows from ~8 s to ~20 s a seed past ~130 seeds (each sandbox request leaves memory behind
// in msw's interceptors); fresh processes keep every seed as fast as the first. A range's failures are reported with
// their replay lines; the run goes on and exits non-zero if any range failed.
import { spawnSync } from 'node:child_process';
import { CMK_SHARE, PARTS } from './seeds.js';

const total = Number(process.env.CHAOS_SEEDS ?? 1000);
const first = Number(process.env.CHAOS_FIRST ?? 1);
const part = Number(process.env.CHAOS_PART ?? 125);
const files = Array.from({ length: PARTS }, (_, i) => `test/chaos/part-${i + 1}.e2e.test.ts`);
const failed: string[] = [];
const started = Date.now();
for (let from = first; from < first + total; from += part) {
  const count = Math.min(part, first + total - from);
  const at = Date.now();
  const run = spawnSync('npx', ['vitest', 'run', '--project', 'e2e', ...files], {
    stdio: 'inherit',
    env: { ...process.env, CHAOS_FIRST: String(from), CHAOS_SEEDS: String(count) },
  });
  const cmkFirst = Math.floor((from - 1) / CMK_SHARE) + 1;
  const range = `seeds ${from}-${from + count - 1} (CMK ${cmkFirst}-${cmkFirst + Math.ceil(count / CMK_SHARE) - 1})`;
  process.stdout.write(`chaos: ${range}: ${run.status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - at) / 1000)} s\n`);
  if (run.status !== 0) failed.push(range);
}
process.stdout.write(
  `chaos: ${total} seeds in ${Math.round((Date.now() - started) / 60_000)} min; ${failed.length === 0 ? 'all passed' : `failed: ${failed.join('; ')}`}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
