import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '@kubeplane/sdk';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { runCli } from '../../../../../test/helpers/cli.js';
import { lifecycleStages } from './lifecycle.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');

describe('kubeplane sandbox lifecycle (the README main job)', () => {
  it('runs the hybrid example through create, scale up and down, add and remove a pool, an in-place upgrade and destroy, leaking nothing', async () => {
    const run = await runCli(['sandbox', 'lifecycle', 'examples/hybrid-aws-hetzner.yaml'], { cwd: root });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.filter((l) => l.trim().length > 0).every((l) => l.startsWith('[sandbox]') || l.startsWith('  '))).toBe(true);
    expect(run.stdout).toMatch(/create\s+DONE\s+\S+\s+10\s+8 /);
    expect(run.stdout).toMatch(/scale aws-worker up 2 -> 4\s+DONE\s+\S+\s+12\s+10 /);
    expect(run.stdout).toMatch(/scale aws-worker down 4 -> 1\s+DONE\s+\S+\s+9\s+7 /);
    expect(run.stdout).toMatch(/add pool extra\s+DONE\s+\S+\s+10\s+8 /);
    expect(run.stdout).toMatch(/remove pool extra\s+DONE\s+\S+\s+9\s+7 /);
    expect(run.stdout).toMatch(/upgrade 1\.34\.2 -> 1\.35\.0 in place\s+DONE\s+\S+\s+9\s+7 /);
    expect(run.stdout).toMatch(/destroy\s+DELETED/);
    expect(run.stdout).toContain('leaked resources: 0');
  });

  it('reports the summary as JSON with --json', async () => {
    const run = await runCli(['sandbox', 'lifecycle', 'examples/minimal.yaml', '--json'], { cwd: root });
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { leakedResources: number; stages: Array<{ state: string }> };
    expect(summary.leakedResources).toBe(0);
    expect(summary.stages.map((s) => s.state)).toEqual(['DONE', 'DONE', 'DONE', 'DONE', 'DONE', 'DONE', 'DELETED']);
  });

  it('destroys after a failed stage and counts what is left: a create refused in preflight for a DNS zone the account lacks leaks nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-lifecycle-'));
    const manifest = join(dir, 'no-zone.yaml');
    await writeFile(
      manifest,
      readFileSync(join(root, 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8').replaceAll('dnsZone: example.com', 'dnsZone: missing-zone.example'),
    );
    const run = await runCli(['sandbox', 'lifecycle', manifest, '--without-dns-zones'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/create\s+ERROR/);
    expect(run.stderr).toContain('loadBalancers.clusters[0].dns.dnsZone: the aws account of provider aws-1 holds no DNS zone missing-zone.example');
    expect(run.stdout).not.toMatch(/machines created|create-nodes/);
    expect(run.stdout).not.toMatch(/scale aws-worker/);
    expect(run.stdout).toMatch(/destroy\s+DELETED/);
    expect(run.stdout).toContain('leaked resources: 0');
  });

  it('derives its stages from the manifest: the first fixed-size compute pool is scaled and copied', () => {
    const m = validateManifestText(readFileSync(join(root, 'examples', 'minimal.yaml'), 'utf8')).manifests[0];
    if (!m) throw new Error('no manifest');
    expect(lifecycleStages(m).map((s) => s.name)).toEqual([
      'create',
      'scale workers up 2 -> 4',
      'scale workers down 4 -> 1',
      'add pool extra',
      'remove pool extra',
      'upgrade 1.34.2 -> 1.35.0 in place',
      'destroy',
    ]);
  });
});
