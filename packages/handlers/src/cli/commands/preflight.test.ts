// Preflight before the first create (issue 15, item 7): `kubeplane apply` of a manifest naming what its clouds do not
// offer fails with one line per problem (file:line, the alternatives) and exit 1, and the sandbox clouds hold nothing.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '@kubeplane/sdk';
import { Sandbox } from '@kubeplane/sandbox';
import { runCli } from '../../../../../test/helpers/cli.js';
import { LocalRuntime } from '../../runtime/local.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');
const fixture = 'test/fixtures/preflight/unavailable.yaml';

async function inventoryOf(stateDir: string): Promise<ReturnType<Sandbox['inventory']>> {
  const world = JSON.parse(await readFile(join(stateDir, 'sandbox', 'world.json'), 'utf8')) as Parameters<typeof Sandbox.fromSnapshot>[0];
  return Sandbox.fromSnapshot(world).inventory();
}

/** `kubeplane apply --sandbox` of a fixture that preflight must refuse: its problem lines, and what the clouds hold after. */
async function applyRefused(fixture: string): Promise<{ problems: string[]; inventory: ReturnType<Sandbox['inventory']> }> {
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-preflight-'));
  const run = await runCli(['apply', fixture, '--sandbox', '--state-dir', dir], { cwd: root });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('preflight failed: nothing was created');
  return { problems: run.stderr.split('\n').filter((l) => l.startsWith('[sandbox] preflight: ')), inventory: await inventoryOf(dir) };
}

describe('kubeplane apply: preflight before the first create', () => {
  it('refuses a retired server type, a missing image, zone and location, one line each with file:line and what Hetzner offers, and creates nothing for any cluster', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-preflight-'));
    const run = await runCli(['apply', fixture, '--sandbox', '--state-dir', dir], { cwd: root });
    expect(run.code).toBe(1);
    const problems = run.stderr.split('\n').filter((l) => l.startsWith('[sandbox] preflight: '));
    expect(problems).toEqual([
      `[sandbox] preflight: ${fixture}:22 nodePools.dynamic[1].serverType: hetzner server type cpx21 was deprecated and cannot be ordered since 2025-12-31T00:00:00Z; it offers in fsn1-dc14: cpx22, cax11, cpx32, cpx42`,
      `[sandbox] preflight: ${fixture}:28 nodePools.dynamic[2].image: hetzner has no image ubuntu-25.10 in nbg1; it offers: ubuntu-20.04, ubuntu-22.04, ubuntu-24.04`,
      `[sandbox] preflight: ${fixture}:30 nodePools.dynamic[3].providerSpec.zone: hetzner has no zone ash-dc9 in ash; it offers: ash-dc1`,
      `[sandbox] preflight: ${fixture}:32 nodePools.dynamic[3].serverType: hetzner server type ccx13 is not offered in ash-dc9 (only in fsn1, nbg1, hel1); it offers in ash-dc9: cax11, cpx22, cpx32, cpx42`,
      `[sandbox] preflight: ${fixture}:35 nodePools.dynamic[4].providerSpec.region: hetzner has no region fsn9 for provider hetzner-1; it offers: fsn1, ash, hel1, nbg1`,
    ]);
    expect(run.stderr).toContain('preflight failed: nothing was created');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await inventoryOf(dir)).toEqual([]);
    // Nothing was recorded either: the good cluster of the same manifest was not started.
    const status = await runCli(['status', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(status.stdout).toContain('no projects in this state directory');
  });

  it('refuses an AWS Region that does not exist, one the account has not enabled, and a GPU type its zone or Region does not offer, asked of DescribeRegions and the offerings, and creates nothing', async () => {
    const f = 'test/fixtures/preflight/aws-unavailable.yaml';
    const { problems, inventory } = await applyRefused(f);
    expect(problems).toEqual([
      `[sandbox] preflight: ${f}:26 nodePools.dynamic[2].providerSpec.region: aws has no region eu-central-9 for provider aws-1; it offers: eu-central-1, eu-central-2, eu-north-1, eu-west-1`,
      `[sandbox] preflight: ${f}:31 nodePools.dynamic[3].providerSpec.region: aws region ap-east-1 is not enabled for the account of provider aws-1 (it must be opted in first); enabled regions: us-east-1, us-east-2, eu-west-1, ap-southeast-1`,
      `[sandbox] preflight: ${f}:38 nodePools.dynamic[4].serverType: aws server type g5.xlarge is not offered in eu-central-1c (only in eu-central-1a, eu-central-1b); it offers in eu-central-1c: t3.xlarge, c6i.xlarge, m6i.xlarge, t3.large`,
      `[sandbox] preflight: ${f}:43 nodePools.dynamic[5].serverType: aws has no server type g5.xlarge in eu-north-1; it offers in eu-north-1: t3.xlarge, c6i.xlarge, m6i.xlarge, t3.large`,
    ]);
    expect(inventory).toEqual([]);
  });

  it('refuses a Crusoe location that does not exist and a GPU type the named location does not offer, asked of GET /locations and GET /capacities, and creates nothing', async () => {
    const f = 'test/fixtures/preflight/crusoe-unavailable.yaml';
    const { problems, inventory } = await applyRefused(f);
    expect(problems).toEqual([
      `[sandbox] preflight: ${f}:23 nodePools.dynamic[1].providerSpec.region: crusoe has no region us-west9-a for provider crusoe-1; it offers: us-east1-a, eu-iceland1-a, us-northcentral1-a, us-southcentral1-a`,
      `[sandbox] preflight: ${f}:30 nodePools.dynamic[2].serverType: crusoe server type gb200-186gb-nvl-ib.4x is not offered in us-east1-a (only in us-southcentral1-a); it offers in us-east1-a: h200-141gb-sxm-ib.8x, a100-80gb-sxm-ib.8x, h100-80gb-sxm-ib.8x, a100-80gb.8x`,
    ]);
    expect(inventory).toEqual([]);
  });

  it("refuses a DNS zone the account does not hold when the sandbox accounts are not given the manifest's zones", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-preflight-dns-'));
    const manifest = join(dir, 'missing-zone.yaml');
    const text = (await readFile(join(root, 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8')).replaceAll(
      'dnsZone: example.com',
      'dnsZone: missing-zone.example',
    );
    await writeFile(manifest, text);
    const line = text.split('\n').findIndex((l) => l.includes('dnsZone: missing-zone.example')) + 1;
    const run = await runCli(['apply', manifest, '--sandbox', '--without-dns-zones', '--state-dir', join(dir, 'state')], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `[sandbox] preflight: missing-zone.yaml:${line} loadBalancers.clusters[0].dns.dnsZone: the aws account of provider aws-1 holds no DNS zone missing-zone.example; create it there first (it holds: example.com)`,
    );
    expect(await inventoryOf(join(dir, 'state'))).toEqual([]);
  });

  it('stops every cluster at its first step when apply is called without the CLI (the serverless runtimes), creating nothing', async () => {
    const text = await readFile(join(root, fixture), 'utf8');
    const manifest = validateManifestText(text).manifests[0];
    if (!manifest) throw new Error('fixture does not parse');
    const rt = await LocalRuntime.open({ stateDir: '.kubeplane', sandbox: true, memory: true, env: {}, cwd: root });
    try {
      await rt.kubeplane.apply(manifest);
      await rt.kubeplane.run();
      const status = await rt.kubeplane.status(manifest.name);
      expect(status.state).toBe('ERROR');
      for (const c of Object.values(status.clusters)) {
        expect(c.state).toBe('ERROR');
        expect(c.message).toMatch(/^preflight: preflight found 5 problem\(s\); nothing was created:\nnodePools\.dynamic\[1\]\.serverType: /);
      }
      expect(rt.sandbox?.inventory()).toEqual([]);
    } finally {
      await rt.close();
    }
  });

  it('lets an unchanged pool whose server type the cloud retired since it was built go on (a warning), and refuses to grow it', async () => {
    const text = (await readFile(join(root, 'examples', 'minimal.yaml'), 'utf8')).replace('serverType: cpx32', 'serverType: cx22');
    const manifest = validateManifestText(text).manifests[0];
    if (!manifest) throw new Error('example does not parse');
    const rt = await LocalRuntime.open({ stateDir: '.kubeplane', sandbox: true, memory: true, env: {}, cwd: root });
    try {
      await rt.kubeplane.apply(manifest);
      await rt.kubeplane.run();
      expect((await rt.kubeplane.status(manifest.name)).state).toBe('DONE');
      // Hetzner stops selling cx22 (the sandbox catalog retires it at the end of 2026).
      rt.sandbox!.clock.advanceTo(Date.parse('2027-01-15T00:00:00Z'));
      await rt.kubeplane.apply(manifest, { reconcile: true });
      await rt.kubeplane.run();
      expect((await rt.kubeplane.status(manifest.name)).state).toBe('DONE');
      const grown = validateManifestText(text.replace('count: 2', 'count: 3')).manifests[0]!;
      await rt.kubeplane.apply(grown);
      await rt.kubeplane.run();
      const status = await rt.kubeplane.status(manifest.name);
      expect(status.state).toBe('ERROR');
      expect(Object.values(status.clusters)[0]?.message).toContain(
        'nodePools.dynamic[1].serverType: hetzner server type cx22 was deprecated and cannot be ordered since 2026-12-31',
      );
    } finally {
      await rt.close();
    }
  }, 120_000);
});
