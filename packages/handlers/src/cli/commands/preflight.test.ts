// Preflight before the first create (issue 15, item 7): `kubeplane apply` of a manifest naming what its clouds do not
// offer fails with one line per problem (file:line, the alternatives) and exit 1, and the sandbox clouds hold nothing.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
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
      `[sandbox] preflight: ${fixture}:23 nodePools.dynamic[1].serverType: hetzner server type cpx21 was deprecated and cannot be ordered in fsn1-dc14 since 2025-12-31T00:00:00Z; it offers in fsn1-dc14: cax21, cpx22, cax11, cax31`,
      `[sandbox] preflight: ${fixture}:29 nodePools.dynamic[2].image: hetzner has no image ubuntu-25.10 in nbg1; it offers: ubuntu-20.04, ubuntu-22.04, ubuntu-24.04, debian-12`,
      `[sandbox] preflight: ${fixture}:31 nodePools.dynamic[3].providerSpec.zone: hetzner has no zone ash-dc9 in ash; it offers: ash-dc1`,
      `[sandbox] preflight: ${fixture}:33 nodePools.dynamic[3].serverType: hetzner server type cax11 is not offered in ash-dc9 (only in fsn1, nbg1, hel1); it offers in ash-dc9: cpx11, ccx13, cpx21, cpx31`,
      `[sandbox] preflight: ${fixture}:36 nodePools.dynamic[4].providerSpec.region: hetzner has no region fsn9 for provider hetzner-1; it offers: fsn1, ash, sin, hel1`,
    ]);
    expect(run.stderr).toContain('preflight failed: nothing was created');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await inventoryOf(dir)).toEqual([]);
    // Nothing was recorded either: the good cluster of the same manifest was not started.
    const status = await runCli(['status', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(status.stdout).toContain('no projects in this state directory');
  });

  it('refuses an AWS Region that does not exist, opt-in Regions a new account has not enabled, and a GPU type its Region does not offer, asked of DescribeRegions and the offerings, and creates nothing', async () => {
    // The sandbox's account is a new AWS account (catalogs/aws/regions.json): ap-east-1 and eu-central-2 need an opt-in,
    // and P4de is not offered in Stockholm (catalogs/aws/instance-types.json).
    const f = 'test/fixtures/preflight/aws-unavailable.yaml';
    const { problems, inventory } = await applyRefused(f);
    expect(problems).toEqual([
      `[sandbox] preflight: ${f}:26 nodePools.dynamic[2].providerSpec.region: aws has no region eu-central-9 for provider aws-1; it offers: eu-central-1, ca-central-1, eu-north-1, eu-west-1`,
      `[sandbox] preflight: ${f}:31 nodePools.dynamic[3].providerSpec.region: aws region ap-east-1 is not enabled for the account of provider aws-1: it is an opt-in region, which the account's owner must enable first; regions the account has enabled, closest first: sa-east-1, us-east-1, us-east-2, ap-south-1`,
      `[sandbox] preflight: ${f}:36 nodePools.dynamic[4].providerSpec.region: aws region eu-central-2 is not enabled for the account of provider aws-1: it is an opt-in region, which the account's owner must enable first; regions the account has enabled, closest first: eu-central-1, ca-central-1, eu-west-2, eu-north-1`,
      `[sandbox] preflight: ${f}:43 nodePools.dynamic[5].serverType: aws has no server type p4de.24xlarge in eu-north-1; it offers in eu-north-1: p4d.24xlarge, c5d.24xlarge, g4dn.2xlarge, g4dn.4xlarge`,
    ]);
    expect(inventory).toEqual([]);
  });

  it('names the sandbox option that changes a refusal of its account or its day: --aws-opt-in-regions, --sandbox-date', async () => {
    const aws = await runCli(['apply', 'test/fixtures/preflight/aws-unavailable.yaml', '--sandbox', '--state-dir', await mkdtemp(join(tmpdir(), 'kp-'))], {
      cwd: root,
    });
    expect(aws.stderr).toContain(
      "[sandbox] the sandbox's AWS account is a new account, with no opt-in region enabled: --aws-opt-in-regions ap-east-1,eu-central-2 enables them",
    );
    expect(aws.stderr).not.toContain('--sandbox-date');
    const hetzner = await runCli(['apply', fixture, '--sandbox', '--state-dir', await mkdtemp(join(tmpdir(), 'kp-'))], { cwd: root });
    expect(hetzner.stderr).toContain(
      "[sandbox] the sandbox's clouds sell what they sell on its day, 2026-01-01: --sandbox-date YYYY-MM-DD starts its clock on an earlier day, when the type was still sold",
    );
    expect(hetzner.stderr).not.toContain('--aws-opt-in-regions');
  });

  it('takes an image Hetzner lists as deprecated (servers can still be made from it) with a warning, asking GET /images for deprecated ones too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kp-'));
    const manifest = join(dir, 'focal.yaml');
    await writeFile(manifest, (await readFile(join(root, 'examples/minimal.yaml'), 'utf8')).replaceAll('image: ubuntu-24.04', 'image: ubuntu-20.04'));
    const run = await runCli(['apply', manifest, '--sandbox', '--state-dir', dir], { cwd: root });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('preflight failed');
    expect(run.stderr).toContain(
      'nodePools.dynamic[0].image: warning: hetzner lists image ubuntu-20.04 as deprecated since 2025-05-31T00:00:00Z; consider ubuntu-22.04, ubuntu-24.04',
    );
  });

  it('--sandbox-date starts the sandbox on an earlier day: a type sold until 2025-12-31 is sold then; a day that does not exist is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kp-'));
    const run = await runCli(['apply', fixture, '--sandbox', '--state-dir', dir, '--sandbox-date', '2025-12-01'], { cwd: root });
    expect(run.code).toBe(1);
    const problems = run.stderr.split('\n').filter((l) => l.startsWith('[sandbox] preflight: '));
    expect(problems.some((l) => l.includes('nodePools.dynamic[1]'))).toBe(false);
    expect(problems.length).toBe(4);
    // Sold, and said to be on its way out, with current types to consider (not another deprecated one: cpx11 is too).
    expect(run.stderr).toContain(
      `[sandbox] ${fixture}:23 nodePools.dynamic[1].serverType: warning: hetzner lists server type cpx21 as deprecated: it cannot be ordered after 2025-12-31T00:00:00Z; consider cax21, cpx22`,
    );
    for (const bad of ['2026-02-30', '1.12.2025', 'yesterday']) {
      const r = await runCli(['sandbox', 'lifecycle', fixture, '--sandbox-date', bad], { cwd: root });
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain(`--sandbox-date must be a day as YYYY-MM-DD (2025-12-01), not "${bad}"`);
    }
    const real = await runCli(['apply', fixture, '--sandbox-date', '2025-12-01'], { cwd: root });
    expect(real.code).toBe(2);
    expect(real.stderr).toContain("--sandbox-date sets the day the sandbox's clock starts; add --sandbox");
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
    // Built in December 2025, while Hetzner still sold cx22 (deprecated on 2025-10-16, orderable until 2025-12-31).
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-preflight-retired-'));
    await mkdir(join(dir, 'sandbox'), { recursive: true });
    const world = new Sandbox({ seed: 1, clock: new VirtualClock(Date.parse('2025-12-01T00:00:00Z')) });
    await writeFile(join(dir, 'sandbox', 'world.json'), JSON.stringify(world.snapshot()), { mode: 0o600 });
    await writeFile(join(dir, 'mode'), 'sandbox\n');
    const rt = await LocalRuntime.open({ stateDir: dir, sandbox: true, env: {}, cwd: root });
    try {
      await rt.kubeplane.apply(manifest);
      await rt.kubeplane.run();
      expect((await rt.kubeplane.status(manifest.name)).state).toBe('DONE');
      // Hetzner stopped selling cx22 after 2025-12-31: GET /server_types no longer lists it.
      rt.sandbox!.clock.advanceTo(Date.parse('2026-01-15T00:00:00Z'));
      await rt.kubeplane.apply(manifest, { reconcile: true });
      await rt.kubeplane.run();
      expect((await rt.kubeplane.status(manifest.name)).state).toBe('DONE');
      const grown = validateManifestText(text.replace('count: 2', 'count: 3')).manifests[0]!;
      await rt.kubeplane.apply(grown);
      await rt.kubeplane.run();
      const status = await rt.kubeplane.status(manifest.name);
      expect(status.state).toBe('ERROR');
      expect(Object.values(status.clusters)[0]?.message).toContain('nodePools.dynamic[1].serverType: hetzner has no server type cx22 in fsn1');
    } finally {
      await rt.close();
    }
  }, 120_000);

  it("passes Hetzner's current server types where Hetzner sells them: cpx52 in hel1, cx23 in nbg1, cax41 in fsn1, ccx13 in hil, cpx62 in sin", async () => {
    const manifest = validateManifestText(`apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: current-types }
providers:
  - { name: hetzner-1, providerType: hetzner, secretRef: { env: { credentials: HCLOUD_TOKEN } } }
nodePools:
  dynamic:
    - { name: big, providerSpec: { name: hetzner-1, region: hel1, zone: hel1-dc2 }, count: 1, serverType: cpx52, image: ubuntu-24.04 }
    - { name: cheap, providerSpec: { name: hetzner-1, region: nbg1 }, count: 1, serverType: cx23, image: ubuntu-24.04 }
    - { name: arm, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cax41, image: ubuntu-24.04 }
    - { name: dedicated, providerSpec: { name: hetzner-1, region: hil }, count: 1, serverType: ccx13, image: ubuntu-24.04 }
    - { name: asia, providerSpec: { name: hetzner-1, region: sin }, count: 1, serverType: cpx62, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - { name: c, version: "1.34.2", network: 10.0.0.0/24, pools: { control: [big], compute: [cheap, arm, dedicated, asia] } }
`).manifests[0];
    if (!manifest) throw new Error('manifest does not parse');
    const rt = await LocalRuntime.open({ stateDir: '.kubeplane', sandbox: true, memory: true, env: {}, cwd: root });
    try {
      expect((await rt.kubeplane.preflight(manifest)).filter((i) => i.severity === 'error')).toEqual([]);
    } finally {
      await rt.close();
    }
  });
});
