// A vitest reporter that writes what the budget guard reads: each run's wall time and every test file's own time,
// per tier, to test-results/<tier>.json (test/tiers/budget.ts). A file's time counts its import and its hooks as well
// as its tests, which vitest's JSON reporter leaves out (a file whose beforeAll takes a minute reads 0.2 s there).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason, TestSpecification, Vitest } from 'vitest/node';
import { probeSeconds } from './machine-speed.js';
import { tierOf, type Tier } from './tiers.js';

export interface FileTiming {
  file: string;
  tier: Tier;
  /** Import, setup, tests and hooks, in seconds: the time the file held a worker. */
  seconds: number;
  /** Of which importing the file and what it imports. */
  importSeconds: number;
  tests: number;
  state: string;
}

export interface TierReport {
  tier: Tier | 'all';
  /** The run's wall time, from the first file scheduled to the last one ended, in seconds. */
  wallSeconds: number;
  startedAt: string;
  reason: TestRunEndReason;
  /** How many files the run was given (a run of one file is not a tier's run: the guard says so). */
  scheduled: number;
  files: FileTiming[];
  /** The machine-speed probe's seconds (machine-speed.ts) before the run's first file and after its last. */
  probeSeconds?: { before: number; after: number };
}

export const RESULTS_DIR = 'test-results';

export default class TimingReporter implements Reporter {
  #root = process.cwd();
  #start = 0;
  #startedAt = '';
  #scheduled = 0;
  #probeBefore = 0;
  readonly #files: FileTiming[] = [];

  onInit(vitest: Vitest): void {
    this.#root = vitest.config.root;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    // Before the workers start, so that the probe has the machine to itself (under two seconds).
    this.#probeBefore = probeSeconds();
    this.#start = performance.now();
    this.#startedAt = new Date().toISOString();
    this.#scheduled = specifications.length;
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const file = relative(this.#root, module.moduleId);
    const importSeconds = (d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration) / 1000;
    this.#files.push({
      file,
      tier: tierOf(file),
      seconds: round(importSeconds + d.duration / 1000),
      importSeconds: round(importSeconds),
      tests: [...module.children.allTests()].length,
      state: module.state(),
    });
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, _errors: ReadonlyArray<unknown>, reason: TestRunEndReason): void {
    if (this.#files.length === 0) return;
    const tiers = new Set(this.#files.map((f) => f.tier));
    const tier = tiers.size === 1 ? [...tiers][0]! : 'all';
    const wallSeconds = round((performance.now() - this.#start) / 1000);
    const report: TierReport = {
      tier,
      wallSeconds,
      startedAt: this.#startedAt,
      reason,
      scheduled: this.#scheduled,
      files: this.#files.sort((a, b) => b.seconds - a.seconds),
      probeSeconds: { before: this.#probeBefore, after: probeSeconds() },
    };
    const dir = join(this.#root, RESULTS_DIR);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${tier}.json`), `${JSON.stringify(report, null, 2)}\n`);
  }
}

const round = (s: number) => Math.round(s * 100) / 100;
