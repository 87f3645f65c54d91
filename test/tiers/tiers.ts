// The test tiers, by file name: a `*.e2e.test.ts` file needs real programs or real clients (network namespaces,
// sshd, kubectl and the clouds' CLIs, npm, the serverless emulators' whole lifecycles, the chaos window) and runs in
// `npm run test:e2e`; every other test file is the fast tier, `npm test`. docs/testing.md says what each proves.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export const TIERS = ['fast', 'e2e'] as const;
export type Tier = (typeof TIERS)[number];

/** Where test files live, relative to the repository root (vitest's include globs say the same). */
export const TEST_ROOTS = ['packages/sdk/src', 'packages/providers/src', 'packages/sandbox/src', 'packages/handlers/src', 'test'];
export const E2E_SUFFIX = '.e2e.test.ts';

export function tierOf(file: string): Tier {
  return file.endsWith(E2E_SUFFIX) ? 'e2e' : 'fast';
}

/** Every test file of the repository, relative to `root`, sorted. */
export function testFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(relative(root, path));
    }
  };
  for (const dir of TEST_ROOTS) walk(join(root, dir));
  return found.sort();
}
