// The shared rate budgets' store in a state directory, for the CLI: one JSON file of `fullAt` per budget key,
// changed under the directory's budget lock, so several kubeplane processes on one machine share a cloud's budget.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeplaneError } from '../../errors.js';
import type { Clock } from '../../provider/clock.js';
import { systemClock } from '../../provider/clock.js';
import { applyTake, SharedRateBudgets, type BucketStore, type BucketTakeResult, type SharedRateBudgetsOptions } from '../../provider/shared-rate-budget.js';
import { withFileLock, writeFileAtomic } from './file-lock.js';

export class FileBucketStore implements BucketStore {
  readonly #path: string;
  readonly #lockPath: string;

  constructor(dir: string) {
    this.#path = join(dir, 'rate-budgets.json');
    this.#lockPath = join(dir, 'rate-budgets.lock');
  }

  async #read(): Promise<Record<string, number>> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw e;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && Object.values(parsed).every((v) => typeof v === 'number')) return parsed as Record<string, number>;
    } catch {
      // Reported below, naming the file.
    }
    throw new KubeplaneError('invalid', `${this.#path} is not a rate-budget file (a JSON object of numbers); remove it and the budgets start full`, {
      resource: this.#path,
    });
  }

  /** Reads, lets `next` decide the key's new `fullAt` (undefined: unchanged), writes only a change. */
  async #update(key: string, next: (current: number | null) => number | undefined): Promise<number | null> {
    return withFileLock(this.#lockPath, async () => {
      const all = await this.#read();
      const value = next(all[key] ?? null);
      if (value === undefined) return all[key] ?? null;
      all[key] = value;
      await writeFileAtomic(this.#path, JSON.stringify(all), 0o600);
      return value;
    });
  }

  async take(key: string, now: number, addMs: number, slackMs: number): Promise<BucketTakeResult> {
    let granted = false;
    const fullAt = await this.#update(key, (current) => {
      const result = applyTake(current, now, addMs, slackMs);
      granted = result.granted;
      return result.granted ? (result.fullAt ?? undefined) : undefined;
    });
    return { granted, fullAt };
  }

  async raise(key: string, to: number, ifBelow: number): Promise<void> {
    await this.#update(key, (current) => (current === null || current < ifBelow ? to : undefined));
  }
}

/** Budgets shared by every kubeplane process using the state directory `dir`. */
export function fileRateBudgets(dir: string, clock: Clock = systemClock, options: SharedRateBudgetsOptions = {}): SharedRateBudgets {
  return new SharedRateBudgets(new FileBucketStore(dir), clock, options);
}
