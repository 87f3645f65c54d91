// The catalogue of bootstrap defects (test/mutations/): its shape, its table in docs/netns.md, the seam's errors, and
// a sample tried in the fast mode each run (the e2e tier tries every defect in the fast mode and a sample with --netns).
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { catalogue, documentedRows, expectedOf, outcomeOf, ROOT, sampleOf, tryDefect } from './catalogue.js';

const defects = await catalogue();

describe('the defect catalogue', () => {
  it('holds at least 25 defects, each with its upstream source, the modes that catch it, and a message family', () => {
    expect(defects.length).toBeGreaterThanOrEqual(25);
    expect(new Set(defects.map((d) => d.id)).size).toBe(defects.length);
    for (const d of defects) {
      expect(d.breaks.source.length, d.id).toBeGreaterThan(10);
      // netns runs the real programs: it must catch every defect a real machine fails on.
      if (d.caughtBy.length > 0) expect(d.caughtBy, d.id).toContain('netns');
      else expect(d.healedBy, d.id).toBeTruthy();
      if (d.caughtBy.length > 0 && !d.caughtBy.includes('fast')) expect(d.netnsOnlyBecause, d.id).toBeTruthy();
    }
  });

  it('is the table of docs/netns.md, row for row, each as the catalogue requires', () => {
    const rows = documentedRows(readFileSync(join(ROOT, 'docs', 'netns.md'), 'utf8'));
    expect([...rows.keys()].sort()).toEqual(defects.map((d) => d.id).sort());
    for (const d of defects) expect(rows.get(d.id), d.id).toEqual({ fast: expectedOf(d, 'fast'), netns: expectedOf(d, 'netns') });
  });

  // Of those on minimal.yaml (about 3 s each; the hybrid example's ten machines take longer): the e2e tier tries all.
  const light = defects.filter((d) => (d.example ?? 'minimal.yaml') === 'minimal.yaml');
  for (const d of sampleOf(light, 2, 'test/mutations/catalogue.test.ts')) {
    it(`${d.id}: the fast mode ${expectedOf(d, 'fast') === 'healed' ? 'ends DONE, as a real machine recovers' : 'catches it with its family of message'}`, async () => {
      const trial = await tryDefect(d, 'fast');
      expect(outcomeOf(trial, d), trial.output).toBe(expectedOf(d, 'fast'));
    });
  }
});

describe('--user-data-transform', () => {
  it('names a module that is not there, or that exports no function, before anything runs', async () => {
    const missing = await runCli(['sandbox', 'lifecycle', 'examples/minimal.yaml', '--user-data-transform', 'no-such-transform.mjs'], { cwd: ROOT });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--user-data-transform: no-such-transform.mjs does not exist');
    const file = join(tmpdir(), `kubeplane-not-a-transform-${process.pid}.mjs`);
    writeFileSync(file, 'export const answer = 42;\n');
    const none = await runCli(['sandbox', 'lifecycle', 'examples/minimal.yaml', '--user-data-transform', file], { cwd: ROOT });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('exports no function: export default (or export `transform`) a function (machine, files) => files');
    const apply = await runCli(['apply', 'examples/minimal.yaml', '--user-data-transform', file], { cwd: ROOT });
    expect(apply.stderr).toContain("--user-data-transform changes what the sandbox's machines boot from; add --sandbox");
  });

  it('applies a plain ES module of the user to every machine before it boots', async () => {
    const file = join(tmpdir(), `kubeplane-listen-port-${process.pid}.mjs`);
    writeFileSync(
      file,
      "export default (machine, files) => files.map((f) => f.path === '/etc/wireguard/wg0.conf' ? { ...f, content: f.content.replace(/^ListenPort = \\d+$/m, 'ListenPort = 51821') } : f);\n",
    );
    const run = await runCli(['sandbox', 'lifecycle', 'examples/minimal.yaml', '--user-data-transform', file], { cwd: ROOT });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no WireGuard handshake between \S+ and \S+: .* \(it listens at 198\.18\.\d+\.\d+:51821\)/);
  });
});
