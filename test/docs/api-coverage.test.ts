import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coverage, DOC, renderCoverage, withCoverage } from './api-coverage.js';

describe("the served sandbox's coverage table in docs/sandbox.md", () => {
  it('is rendered from the emulators and the vendor documents (npx tsx --conditions=@kubeplane/source test/docs/api-coverage.ts --write)', () => {
    const doc = readFileSync(DOC, 'utf8');
    expect(withCoverage(doc, renderCoverage())).toBe(doc);
  });

  it('finds every API emulated in part, every operation either emulated or refused', () => {
    for (const api of coverage()) {
      expect(api.served.length, api.api).toBeGreaterThan(0);
      expect(
        api.served.filter((n) => api.refused.includes(n)),
        api.api,
      ).toEqual([]);
    }
  });
});
