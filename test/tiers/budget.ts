// `npm run test:budget`: judges the last run of each tier (test-results/<tier>.json, written by the timing reporter)
// against test/tiers/budgets.json, and fails when a tier's wall time exceeds its budget by more than the tolerance,
// naming the slowest files. In CI (.ci/run sets KUBEPLANE_CI_STARTED) the whole run is judged as well.
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
    const over = report.wallSeconds > limit;
    if (over) ok = false;
    lines.push(
      `${tier}: ${s(report.wallSeconds)} wall for ${report.files.length} files (budget ${s(budget.seconds)}, limit ${s(limit)}): ${over ? 'OVER BUDGET' : 'within budget'}${failed ? `; ${failed} files failed` : ''}`,
    );
    if (over) {
      lines.push(`  slowest files of ${tier} (seconds, of which import):`);
      for (const f of report.files.slice(0, SLOWEST))
        lines.push(`    ${f.seconds.toFixed(1).padStart(7)} ${f.importSeconds.toFixed(1).padStart(6)}  ${f.file}`);
    }
  }
  if (ciSeconds !== undefined) {
    const limit = budgets.ci.seconds * (1 + budgets.tolerance);
    const over = ciSeconds > limit;
    if (over) ok = false;
    lines.push(`ci: ${s(ciSeconds)} since .ci/run started (budget ${s(budgets.ci.seconds)}, limit ${s(limit)}): ${over ? 'OVER BUDGET' : 'within budget'}`);
  }
  if (judged === 0) {
    ok = false;
    lines.push('no whole tier has been run: run `npm test` (fast) or `npm run test:e2e` first');
  }
  return { ok, lines };
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
