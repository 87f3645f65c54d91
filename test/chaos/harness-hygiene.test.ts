// A chaos seed leaves nothing running behind it: a worker that "died" holding a lease is a process gone for good, so
// its lease-renewal timer must end with the seed. Left running, each such timer kept its whole world (sandbox,
// engine, user-data) in memory, and a 1,000-seed run slowed from seconds to a minute per seed as they piled up.
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, expect, it, vi } from 'vitest';
import { chaosRun } from './harness.js';

afterEach(() => vi.restoreAllMocks());

it('ends the dead lease holders of a seed with it: every interval timer it started is cleared', async () => {
  // Each running interval the seed started, with where, so a leftover names its maker. Only the seed's: the fast tier
  // runs files one after another in one process, and work an earlier file left behind is in another async context.
  const seed = new AsyncLocalStorage<true>();
  const running = new Map<unknown, string>();
  const set = globalThis.setInterval;
  const clear = globalThis.clearInterval;
  vi.spyOn(globalThis, 'setInterval').mockImplementation(((...args: Parameters<typeof setInterval>) => {
    const timer = set(...args);
    if (seed.getStore()) running.set(timer, new Error('started at').stack ?? '');
    return timer;
  }) as typeof setInterval);
  vi.spyOn(globalThis, 'clearInterval').mockImplementation(((timer: Parameters<typeof clearInterval>[0]) => {
    running.delete(timer);
    clear(timer);
  }) as typeof clearInterval);
  // A seed whose schedule has a worker that dies holding its lease and never wakes: seed 4 has one today. Which seeds
  // do moves with anything that changes a run's calls (the sandbox's catalogs did), so the next ones are tried after it.
  const FIRST = 4;
  let dying = 0;
  for (let n = FIRST; n < FIRST + 20 && dying === 0; n++) {
    const report = await seed.run(true, () => chaosRun(n));
    expect(report.violations, `seed ${n}`).toEqual([]);
    dying = report.dying ?? 0;
  }
  expect(dying).toBeGreaterThan(0);
  expect([...running.values()]).toEqual([]);
}, 120_000);
