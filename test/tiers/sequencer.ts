// The order vitest starts test files in: longest first (LPT scheduling), by the durations this machine last measured
// (test/tiers/durations.json), so a tier's longest file never starts last and leaves one worker idle while it runs.
// A file not measured yet is weighed by its size. vitest's own ordering needs its results cache, which a fresh clone
// (CI) does not have; without it the chaos window's four-line files would start last.
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TestSequencer, TestSpecification, Vitest } from 'vitest/node';

/** Seconds per byte of test source, for files not yet measured (about 2 s for a 200-line file). */
const SECONDS_PER_BYTE = 1 / 4000;

export function loadDurations(root: string): Record<string, number> {
  try {
    return (JSON.parse(readFileSync(join(root, 'test', 'tiers', 'durations.json'), 'utf8')) as { files: Record<string, number> }).files;
  } catch {
    return {};
  }
}

export default class LongestFirstSequencer implements TestSequencer {
  readonly #root: string;
  readonly #durations: Record<string, number>;

  constructor(vitest: Vitest) {
    this.#root = vitest.config.root;
    this.#durations = loadDurations(this.#root);
  }

  shard(files: TestSpecification[]): TestSpecification[] {
    return files;
  }

  sort(files: TestSpecification[]): TestSpecification[] {
    const weight = (spec: TestSpecification): number => {
      const known = this.#durations[relative(this.#root, spec.moduleId)];
      if (known !== undefined) return known;
      try {
        return statSync(spec.moduleId).size * SECONDS_PER_BYTE;
      } catch {
        return 0;
      }
    };
    return files
      .map((spec) => ({ spec, w: weight(spec) }))
      .sort((a, b) => b.w - a.w)
      .map((x) => x.spec);
  }
}
