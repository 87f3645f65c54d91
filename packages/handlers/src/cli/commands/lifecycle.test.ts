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

  it("prints a create's preflight problems with the file:line apply gives, creates nothing, and destroys to DELETED", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-lifecycle-'));
    const text = readFileSync(join(root, 'examples', 'minimal.yaml'), 'utf8').replace('serverType: cpx22', 'serverType: cpx99');
    await writeFile(join(dir, 'retired.yaml'), text);
    const line = text.split('\n').findIndex((l) => l.includes('cpx99')) + 1;
    const run = await runCli(['sandbox', 'lifecycle', 'retired.yaml'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').filter((l) => l.includes('preflight'))).toEqual([
      `[sandbox] preflight: retired.yaml:${line} nodePools.dynamic[0].serverType: hetzner has no server type cpx99 in fsn1; it offers in fsn1: cpx12, cpx22, cpx32, cpx42`,
      '[sandbox] preflight failed: nothing was created',
    ]);
    expect(run.stdout).toMatch(/create\s+ERROR\s+0s\s+0\s+0\s+0 /);
    expect(run.stdout).toMatch(/destroy\s+DELETED/);
    expect(run.stdout).toContain('leaked resources: 0');
  });

  it('refuses a provider type kubeplane has no provider for at its providerType line, and destroys to DELETED', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-lifecycle-'));
    const text = readFileSync(join(root, 'test', 'fixtures', 'claudie', 'docs', 'verda-1.yaml'), 'utf8');
    await writeFile(join(dir, 'verda.yaml'), text);
    const line = text.split('\n').findIndex((l) => l.includes('providerType: verda')) + 1;
    const run = await runCli(['sandbox', 'lifecycle', 'verda.yaml', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as {
      stages: Array<{ stage: string; state: string }>;
      issues: Array<{ severity: string; path: string; line: number; message: string }>;
    };
    expect(summary.stages.map((s) => [s.stage, s.state])).toEqual([
      ['create', 'ERROR'],
      ['destroy', 'DELETED'],
    ]);
    const atType = summary.issues.filter((i) => i.path === 'spec.providers[0].providerType');
    expect(atType.map((i) => [i.severity, i.line, i.message.split(';')[0]])).toEqual([
      [
        'warning',
        line,
        'kubeplane has no verda provider yet: apply refuses the pools and DNS of provider "verda-1" (kubeplane creates on aws, hetzner, crusoe, cloudflare)',
      ],
      ['error', line, 'the sandbox has no verda cloud'],
    ]);
  });

  it('takes only opt-in Regions for --aws-opt-in-regions, and only with the sandbox', async () => {
    const enabled = await runCli(['sandbox', 'lifecycle', 'examples/minimal.yaml', '--aws-opt-in-regions', 'eu-west-3'], { cwd: root });
    expect(enabled.code).toBe(2);
    expect(enabled.stderr).toContain('--aws-opt-in-regions: eu-west-3 needs no opt-in; every account has it enabled');
    const real = await runCli(['apply', 'examples/minimal.yaml', '--aws-opt-in-regions', 'eu-central-2'], { cwd: root });
    expect(real.code).toBe(2);
    expect(real.stderr).toContain("--aws-opt-in-regions enables opt-in Regions in the sandbox's AWS account; add --sandbox");
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
