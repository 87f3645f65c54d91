// Claudie's own manifests (its end-to-end test sets and the InputManifests of its docs, copied under test/fixtures/claudie
// with their source and commit in a header) validate with no errors, as Claudie accepts them, and plan. Warnings are allowed: they
// carry kubeplane's stricter advice and say why.
//
// Test sets with static nodes say `endpoint: replace-me`: Claudie's testing framework puts the addresses of the
// machines it prepared there before applying (Claudie itself refuses the placeholder: `ip_addr` in
// internal/api/manifest/manifest.go). The corpus does the same with TEST-NET-1 addresses (RFC 5737), one per node.
//
// test/fixtures/claudie-retired holds test sets from older releases that Claudie rejects today (a provider type it
// dropped, load-balancer roles without targetPools, unused pools): each says why in its header, and its
// `# rejected: <path> :: <words>` lines are exactly the errors kubeplane reports.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDesiredState, emptyState, plan } from '@kubeplane/sdk/internal';
import { validateManifestText } from '@kubeplane/sdk';

const root = join(import.meta.dirname, 'fixtures', 'claudie');
const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const retiredRoot = join(import.meta.dirname, 'fixtures', 'claudie-retired');
const retired = readdirSync(retiredRoot)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

/** What Claudie's testing framework does before applying a test set with static nodes. */
function fillStaticEndpoints(text: string): string {
  let n = 0;
  return text.replace(/endpoint: replace-me$/gm, () => `endpoint: 192.0.2.${++n}`);
}

describe("Claudie's own manifests are accepted as Claudie accepts them", () => {
  it('has a corpus: every InputManifest of its e2e test sets and docs that Claudie accepts today', () => {
    expect(files.length).toBeGreaterThanOrEqual(74);
    // A file from the repository names its commit; one from the published docs site (newer than any stored commit) its address.
    for (const file of files)
      expect(readFileSync(join(root, file), 'utf8')).toMatch(
        /^# Source: berops\/claudie \S+ (@ [0-9a-f]{40}|as published at https:\/\/docs\.claudie\.io\/\S+)\n/,
      );
  });

  it.each(files)('%s validates with no errors and plans', (file) => {
    const r = validateManifestText(fillStaticEndpoints(readFileSync(join(root, file), 'utf8')), { file });
    expect(r.errors).toEqual([]);
    expect(r.manifests.length).toBeGreaterThan(0);
    for (const m of r.manifests) {
      expect(m.source).toBe('claudie');
      const planned = plan(buildDesiredState(m), emptyState(m.name));
      expect(planned.ok).toBe(true);
    }
  });

  it("warns, without refusing, where Claudie's current release would refuse the Kubernetes version its older docs use", () => {
    const text = readFileSync(join(root, 'docs', 'hetzner-1.yaml'), 'utf8');
    expect(text).toContain('version: v1.31.0');
    const claudie = validateManifestText(text, { file: 'hetzner-1.yaml' });
    expect(claudie.errors).toEqual([]);
    expect(claudie.warnings.map((w) => `${w.path}: ${w.message}`)).toContain(
      "spec.kubernetes.clusters[0].version: Claudie's current release accepts Kubernetes 1.34–1.36 only and would refuse v1.31.0; kubeplane installs it",
    );
    const current = validateManifestText(text.replace('version: v1.31.0', 'version: v1.35.0'), { file: 'hetzner-1.yaml' });
    expect(current.warnings.filter((w) => w.path.endsWith('.version'))).toEqual([]);
  });
});

describe('test sets of older Claudie releases that Claudie rejects today are rejected for the same reasons', () => {
  it.each(retired)('%s', (file) => {
    const text = readFileSync(join(retiredRoot, file), 'utf8');
    const expected = [...text.matchAll(/^# rejected: (\S+) :: (.+)$/gm)].map((m) => ({ path: m[1] ?? '', words: m[2] ?? '' }));
    expect(expected.length).toBeGreaterThan(0);
    const r = validateManifestText(fillStaticEndpoints(text), { file });
    const shown = r.errors.map((e) => ({ path: e.path, message: e.message, line: e.line }));
    expect(shown).toHaveLength(expected.length);
    for (const { path, words } of expected) {
      expect(shown, `${path} :: ${words}`).toContainEqual(expect.objectContaining({ path, message: expect.stringContaining(words), line: expect.any(Number) }));
    }
  });
});
