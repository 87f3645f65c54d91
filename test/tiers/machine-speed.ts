// How fast this machine runs our kind of work right now, for the budget guard: the machines these tiers run on (this
// one and CI's, 2 shared cores) run the same code 1.0-1.6x slower from one hour to the next (docs/testing.md), so a
// tier's wall time alone judges the machine as much as the tests. The probe is a fixed piece of single-threaded work,
// JavaScript and hashing, timed the fastest of five tries: a slow try is a moment's noise, five slow tries a slow
// machine. The guard compares it with the reference machine's time for the same work (budgets.json, machine).
import { createHash } from 'node:crypto';

const DATA = Buffer.alloc(1 << 20, 7);

function work(): number {
  let x = 0;
  for (let i = 0; i < 60_000_000; i++) x = (x + i * 31) % 1_000_003;
  for (let i = 0; i < 48; i++) x += createHash('sha256').update(DATA).digest()[0] ?? 0;
  return x;
}

/** Seconds the probe's work takes here now: the fastest of `tries`. */
export function probeSeconds(tries = 5): number {
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let t = 0; t < tries; t++) {
    const start = performance.now();
    sink += work();
    best = Math.min(best, (performance.now() - start) / 1000);
  }
  if (sink < 0) throw new Error('unreachable');
  return Math.round(best * 1000) / 1000;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) process.stdout.write(`${probeSeconds()}\n`);
