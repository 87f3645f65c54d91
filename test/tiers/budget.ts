// `npm run test:budget`: judges the last run of each tier (test-results/<tier>.json, written by the timing reporter)
// against test/tiers/budgets.json, and fails when a tier's wall time exceeds its budget by more than the tolerance,
// naming the slowest files. The wall time is judged at the reference machine's speed: a run whose machine-speed probe
// (machine-speed.ts) was slower than the reference's is discounted by that much, never more, and never the other way.
// In CI (.ci/run sets KUBEPLANE_CI_STARTED) the whole run is judged as well.
// `--update-durations` records the runs' file times in test/tiers/durations.json, the order the sequencer starts them in.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR, type TierReport } from './timing-reporter.js';
import { testFiles, tierOf, TIERS, type Tier } from './tiers.js';

export interface Budgets {
  /** How far over its budget a tier may run before the guard fails (0.2: 20 %): this machine is noisy. */
  tolerance: number;
  tiers: Record<Tier, { seconds: number; why: string }>;
  /** The whole `bash .ci/run`, install included. */
  ci: { seconds: number; why: string };
  /** The machine-speed probe's seconds on the reference machine (machine-speed.ts), which the budgets are times of. */
  machine?: { probeSeconds: number; why: string };
}

export interface Verdict {
  ok: boolean;
  lines: string[];
}

const SLOWEST = 10;
const s = (seconds: number) => `${Math.round(seconds)} s`;

/** Pure: the budgets, the tiers' reports (absent when not run), how many files each tier has, the CI run's elapsed seconds. */
export function judge(budgets: Budgets, reports: Partial<Record<Tier, TierReport>>, tierFiles: Record<Tier, number>, ciSeconds?: number): Verdict {
  const lines: string[] = [];
  let ok = true;
  let judged = 0;
  let slowest = 1;
  for (const tier of TIERS) {
    const budget = budgets.tiers[tier];
    const limit = budget.seconds * (1 + budgets.tolerance);
    const report = reports[tier];
    if (!report) {
      lines.push(`${tier}: not run (no ${RESULTS_DIR}/${tier}.json)`);
      continue;
    }
    if (report.scheduled < tierFiles[tier]) {
      lines.push(`${tier}: the last run took ${report.scheduled} of the tier's ${tierFiles[tier]} files, not judged (run the whole tier)`);
      continue;
    }
    judged++;
    const failed = report.files.filter((f) => f.state === 'failed').length;
    const slower = slowdown(budgets, report);
    if (slower > 1) slowest = Math.max(slowest, slower);
    const judgedSeconds = report.wallSeconds / slower;
    const over = judgedSeconds > limit;
    if (over) ok = false;
    const speed =
      slower > 1
        ? `; this machine ran ${slower.toFixed(2)}x slower than the reference (probe ${report.probeSeconds?.before} s before, ` +
          `${report.probeSeconds?.after} s after, reference ${budgets.machine?.probeSeconds} s): ${s(judgedSeconds)} at the reference's speed`
        : '';
    lines.push(
      `${tier}: ${s(report.wallSeconds)} wall for ${report.files.length} files${speed} (budget ${s(budget.seconds)}, limit ${s(limit)}): ${over ? 'OVER BUDGET' : 'within budget'}${failed ? `; ${failed} files failed` : ''}`,
    );
    if (over) {
      lines.push(`  slowest files of ${tier} (seconds, of which import):`);
      for (const f of report.files.slice(0, SLOWEST))
        lines.push(`    ${f.seconds.toFixed(1).padStart(7)} ${f.importSeconds.toFixed(1).padStart(6)}  ${f.file}`);
    }
  }
  if (ciSeconds !== undefined) {
    const limit = budgets.ci.seconds * (1 + budgets.tolerance);
    // The tiers are most of the run: it is judged at the speed of the slowest tier's machine (1 when none was slower).
    const judgedSeconds = ciSeconds / slowest;
    const over = judgedSeconds > limit;
    if (over) ok = false;
    const speed = slowest > 1 ? `, ${s(judgedSeconds)} at the reference's speed` : '';
    lines.push(
      `ci: ${s(ciSeconds)} since .ci/run started${speed} (budget ${s(budgets.ci.seconds)}, limit ${s(limit)}): ${over ? 'OVER BUDGET' : 'within budget'}`,
    );
  }
  if (judged === 0) {
    ok = false;
    lines.push('no whole tier has been run: run `npm test` (fast) or `npm run test:e2e` first');
  }
  return { ok, lines };
}

/**
 * How much slower than the reference this run's machine was: the faster of its two probes (before and after the run)
 * over the reference's, never below 1. A machine faster than the reference is not held to a tighter budget, and the
 * faster probe is taken so that a moment's noise in one of them discounts nothing.
 */
export function slowdown(budgets: Budgets, report: TierReport): number {
  const reference = budgets.machine?.probeSeconds;
  const probe = report.probeSeconds;
  if (!reference || !probe || !(probe.before > 0) || !(probe.after > 0)) return 1;
  return Math.max(1, Math.min(probe.before, probe.after) / reference);
}

function readReport(root: string, tier: Tier): TierReport | undefined {
  const file = join(root, RESULTS_DIR, `${tier}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as TierReport) : undefined;
}

function updateDurations(root: string, reports: TierReport[]): string {
  const file = join(root, 'test', 'tiers', 'durations.json');
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { files: Record<string, number> }).files : {};
  const present = new Set(testFiles(root));
  const merged: Record<string, number> = {};
  for (const [f, secs] of Object.entries(previous)) if (present.has(f)) merged[f] = secs;
  for (const r of reports) for (const f of r.files) if (present.has(f.file)) merged[f.file] = Math.round(f.seconds * 10) / 10;
  const files = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(
    file,
    `${JSON.stringify({ why: 'seconds each test file took on the last measured run (npm run test:budget -- --update-durations); the sequencer starts the longest first', files }, null, 2)}\n`,
  );
  return file;
}

function main(argv: string[]): number {
  const root = join(import.meta.dirname, '..', '..');
  const budgets = JSON.parse(readFileSync(join(root, 'test', 'tiers', 'budgets.json'), 'utf8')) as Budgets;
  const reports: Partial<Record<Tier, TierReport>> = {};
  for (const tier of TIERS) {
    const r = readReport(root, tier);
    if (r) reports[tier] = r;
  }
  const files = testFiles(root);
  const tierFiles = Object.fromEntries(TIERS.map((t) => [t, files.filter((f) => tierOf(f) === t).length])) as Record<Tier, number>;
  const started = Number(process.env.KUBEPLANE_CI_STARTED);
  const verdict = judge(budgets, reports, tierFiles, Number.isFinite(started) && started > 0 ? Date.now() / 1000 - started : undefined);
  for (const line of verdict.lines) process.stdout.write(`test:budget ${line}\n`);
  if (argv.includes('--update-durations')) process.stdout.write(`test:budget wrote ${updateDurations(root, Object.values(reports))}\n`);
  return verdict.ok ? 0 : 1;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) process.exitCode = main(process.argv.slice(2));
