// `npm run chaos`: the 1,000 seeded fault schedules (and the 200 CMK ones), in parts of 125 seeds, each part a fresh
// vitest process. One process for all of them slows from ~8 s to ~20 s a seed past ~130 seeds per worker (each
// sandbox request leaves memory behind in msw's interceptors); fresh processes keep every seed as fast as the first.
// A part's failures are reported with their replay line; the run goes on and exits non-zero if any part failed.
import { spawnSync } from 'node:child_process';

const total = Number(process.env.CHAOS_SEEDS ?? 1000);
const first = Number(process.env.CHAOS_FIRST ?? 1);
const part = Number(process.env.CHAOS_PART ?? 125);
const failed: string[] = [];
const started = Date.now();
for (let from = first; from < first + total; from += part) {
  const count = Math.min(part, first + total - from);
  const at = Date.now();
  const run = spawnSync('npx', ['vitest', 'run', 'test/chaos/chaos-odd.test.ts', 'test/chaos/chaos-even.test.ts', 'test/chaos/chaos-cmk.test.ts'], {
    stdio: 'inherit',
    env: { ...process.env, CHAOS_FIRST: String(from), CHAOS_SEEDS: String(count) },
  });
  const range = `seeds ${from}-${from + count - 1} (CMK ${Math.floor((from - 1) / 5) + 1}-${Math.floor((from - 1) / 5) + Math.ceil(count / 5)})`;
  process.stdout.write(`chaos: ${range}: ${run.status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - at) / 1000)} s\n`);
  if (run.status !== 0) failed.push(range);
}
process.stdout.write(`chaos: ${total} seeds in ${Math.round((Date.now() - started) / 60_000)} min; ${failed.length === 0 ? 'all passed' : `failed: ${failed.join('; ')}`}\n`);
process.exitCode = failed.length === 0 ? 0 : 1;
