// `kubeplane ssh-key` and `kubeplane metadata` on a sandbox cluster with a load balancer, used the way Claudie's guide
// uses its metadata Secret: the guide's four jq commands, and the key handed to ssh-keygen (openssh-client and jq:
// scripts/setup-test-machine.sh). Also a state made before the key format changed, and clusters not (yet) there.
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { generateKeyPairSync } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSecretStore, Redacted } from '@kubeplane/sdk';
import { secretName } from '@kubeplane/sdk/internal';
import { Sandbox } from '@kubeplane/sandbox';
import { runCli, type CliRun } from '../../../../../test/helpers/cli.js';
import { main } from '../main.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');

let dir = '';
let applied: CliRun;
let clusterId = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeplane-ssh-outputs-'));
  applied = await runCli(['apply', 'examples/hybrid-aws-hetzner.yaml', '--sandbox', '--state-dir', dir, '-v'], { cwd: root });
  expect(applied.code, `${applied.stdout.split('\n').slice(-10).join('\n')}\n${applied.stderr}`).toBe(0);
  const status = JSON.parse((await runCli(['status', '--json', '--sandbox', '--state-dir', dir], { cwd: root })).stdout.trim().split('\n').at(-1) ?? '{}') as {
    projects: Array<{ clusters: Record<string, { id: string }> }>;
  };
  clusterId = status.projects[0]?.clusters['hybrid']?.id ?? '';
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const flags = () => ['--sandbox', '--state-dir', dir];

/** `jq -r <filter>` over `input`, as the guide runs it. */
function jq(filter: string, input: string): string {
  const run = spawnSync('jq', ['-r', filter], { input, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/** `ssh-keygen -y -f` on `key` written to a 0600 file (ssh-keygen refuses a key others can read): its public line. */
async function publicKeyOf(key: string, name: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, key, { mode: 0o600 });
  const run = spawnSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim();
}

async function sandboxWorld(): Promise<Sandbox> {
  return Sandbox.fromSnapshot(JSON.parse(await readFile(join(dir, 'sandbox', 'world.json'), 'utf8')) as Parameters<typeof Sandbox.fromSnapshot>[0]);
}

describe('kubeplane ssh-key', () => {
  it('prints a key ssh-keygen -y reads, whose public half is the key the clouds put on the machines', async () => {
    const run = await runCli(['ssh-key', 'hybrid', ...flags()], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/);
    const line = await publicKeyOf(run.stdout, 'hybrid.key');
    expect(line).toMatch(new RegExp(`^ssh-ed25519 AAAA\\S+ kubeplane-${clusterId}$`));

    const world = await sandboxWorld();
    try {
      // Hetzner (the LB and burst workers): the project's SSH key the servers were created with.
      expect([...world.hetzner.sshKeys.values()].map((k) => k.publicKey)).toEqual([line]);
      // AWS (control planes and workers): the imported key pair's fingerprint, and every instance launched with it.
      const fingerprint = spawnSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'hybrid.key')], { encoding: 'utf8' }).stdout.split(' ')[1];
      const pairs = [...(world.ec2Regions.get('eu-central-1')?.keyPairs.values() ?? [])];
      expect(pairs.map((k) => `SHA256:${k.fingerprint}`)).toEqual([fingerprint]);
      const instances = [...(world.ec2Regions.get('eu-central-1')?.instances.values() ?? [])];
      expect(instances).toHaveLength(5);
      expect(new Set(instances.map((i) => i.keyName))).toEqual(new Set([pairs[0]?.name]));
    } finally {
      await world.close();
    }
  });

  it('never shows the key in the progress of apply or in the state', async () => {
    const key = (await runCli(['ssh-key', 'hybrid', ...flags()], { cwd: root })).stdout;
    const body = key.split('\n').slice(1, -2);
    expect(applied.stdout + applied.stderr).not.toContain('PRIVATE KEY');
    for (const line of body) expect(applied.stdout + applied.stderr).not.toContain(line);
    for (const file of await readdir(join(dir, 'state'), { recursive: true })) {
      if (!file.endsWith('.json')) continue;
      const text = await readFile(join(dir, 'state', file), 'utf8');
      expect(text, file).not.toContain('PRIVATE KEY');
      for (const line of body) expect(text, file).not.toContain(line);
    }
  });

  it('> file makes the file 0600 before writing the key; --out FILE writes it 0600', async () => {
    const redirected = join(dir, 'redirected.key');
    await writeFile(redirected, '', { mode: 0o644 });
    const stdout = createWriteStream(redirected, { flags: 'w' });
    await once(stdout, 'open');
    const code = await main(['ssh-key', 'hybrid', ...flags()], { stdout, stderr: new PassThrough(), cwd: root, env: {} });
    stdout.end();
    await once(stdout, 'close');
    expect(code).toBe(0);
    expect((await stat(redirected)).mode & 0o777).toBe(0o600);
    expect(await readFile(redirected, 'utf8')).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);

    const out = join(dir, 'out.key');
    await writeFile(out, 'old', { mode: 0o644 });
    const run = await runCli(['ssh-key', 'hybrid', ...flags(), '--out', out], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect(await readFile(out, 'utf8')).toBe(await readFile(redirected, 'utf8'));
  });
});

describe("kubeplane metadata, read with the jq commands of Claudie's guide", () => {
  let metadata = '';
  let key = '';
  beforeAll(async () => {
    const run = await runCli(['metadata', 'hybrid', ...flags()], { cwd: root });
    expect(run.code, run.stderr).toBe(0);
    metadata = run.stdout;
    key = (await runCli(['ssh-key', 'hybrid', ...flags()], { cwd: root })).stdout;
  });

  it('jq -r .cluster_private_key > ~/.ssh/my-super-cluster: a key ssh-keygen reads, the one ssh-key prints', async () => {
    const printed = jq('.cluster_private_key', metadata);
    expect(printed.trim()).toBe(key.trim());
    expect(await publicKeyOf(printed, 'guide.key')).toBe(await publicKeyOf(key, 'hybrid.key'));
  });

  it('jq -r .dynamic_nodepools.node_ips: every Kubernetes node with its public and overlay address', () => {
    const ips = JSON.parse(jq('.dynamic_nodepools.node_ips', metadata)) as Record<string, { public_ip: string; private_ip: string }>;
    expect(Object.keys(ips)).toHaveLength(8);
    for (const [name, ip] of Object.entries(ips)) {
      expect(name).toMatch(new RegExp(`^${clusterId}-(aws-control|aws-worker|htz-worker)-\\d\\d$`));
      expect(ip.public_ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(ip.private_ip).toMatch(/^192\.168\.2\.\d+$/);
    }
  });

  it(".dynamic_load_balancer_nodepools[] | .cluster_private_key and | .node_ips: the LB nodes' key and addresses", async () => {
    expect(jq('.dynamic_load_balancer_nodepools[] | .cluster_private_key', metadata).trim()).toBe(key.trim());
    const ips = JSON.parse(jq('.dynamic_load_balancer_nodepools[] | .node_ips', metadata)) as Record<string, { public_ip: string }>;
    expect(Object.keys(ips)).toEqual([expect.stringMatching(/-htz-lb-01$/), expect.stringMatching(/-htz-lb-02$/)]);
    expect(Object.values(ips).every((ip) => /^\d+\.\d+\.\d+\.\d+$/.test(ip.public_ip))).toBe(true);
  });

  it("keeps each pool in Claudie v0.9+'s shape under .nodepools, for the newer docs' commands", () => {
    const pools = JSON.parse(jq('.nodepools.dynamic_nodepools | map_values(.node_ips | length)', metadata)) as Record<string, number>;
    expect(pools).toEqual({ 'aws-control': 3, 'aws-worker': 2, 'htz-worker': 3 });
    expect(jq('.nodepools.dynamic_nodepools | map_values(.nodepool_private_key) | .["htz-worker"]', metadata).trim()).toBe(key.trim());
    const lb = JSON.parse(jq('.nodepools.dynamic_load_balancer_nodepools | .[] | map_values(.node_ips | length)', metadata)) as Record<string, number>;
    expect(lb).toEqual({ 'htz-lb': 2 });
  });

  it('metadata --out FILE writes it 0600, over a 0644 file', async () => {
    const out = join(dir, 'metadata.json');
    await writeFile(out, '', { mode: 0o644 });
    const run = await runCli(['metadata', 'hybrid', ...flags(), '--out', out], { cwd: root });
    expect(run.code).toBe(0);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(JSON.parse(metadata));
  });
});

describe('a cluster made before the key format changed', () => {
  it('has its PKCS#8 key printed in OpenSSH format, and its metadata in the new shape with that key', async () => {
    const old = await mkdtemp(join(tmpdir(), 'kubeplane-ssh-outputs-old-'));
    try {
      await cp(dir, old, { recursive: true });
      // What the secrets held then: the private key as PKCS#8 PEM, the metadata per pool with no top-level key.
      const { privateKey } = generateKeyPairSync('ed25519');
      const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      const raw = Buffer.from(privateKey.export({ format: 'jwk' }).x ?? '', 'base64url');
      const blob = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), raw]);
      const line = `ssh-ed25519 ${blob.toString('base64')} kubeplane-${clusterId}`;
      const secrets = new FileSecretStore(old);
      await secrets.put(secretName(clusterId, 'ssh'), Redacted.of(JSON.stringify({ publicKey: line, privateKey: { $secret: pem } })));
      const before = { dynamic_nodepools: { 'aws-control': { node_ips: {}, nodepool_private_key: pem } }, static_nodepools: {} };
      await secrets.put(secretName(clusterId, 'metadata'), Redacted.of(JSON.stringify(before)));
      expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);

      const key = await runCli(['ssh-key', 'hybrid', '--sandbox', '--state-dir', old], { cwd: root });
      expect(key.code).toBe(0);
      expect(key.stdout).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
      expect(await publicKeyOf(key.stdout, 'old.key')).toBe(line);

      const metadata = await runCli(['metadata', 'hybrid', '--sandbox', '--state-dir', old], { cwd: root });
      expect(metadata.code).toBe(0);
      expect(jq('.cluster_private_key', metadata.stdout).trim()).toBe(key.stdout.trim());
      expect(Object.keys(JSON.parse(jq('.dynamic_nodepools.node_ips', metadata.stdout)) as object)).toHaveLength(8);
      expect(metadata.stdout).not.toContain('BEGIN PRIVATE KEY');
    } finally {
      await rm(old, { recursive: true, force: true });
    }
  });
});

describe('clusters that are not there, or not yet', () => {
  it('an unknown cluster is one line naming it, exit 1', async () => {
    for (const command of ['ssh-key', 'metadata']) {
      const run = await runCli([command, 'nope', ...flags()], { cwd: root });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`kubeplane ${command}: not-found: no cluster named nope in this state directory\n`);
    }
  });

  it('an unknown project or cluster names no other project or cluster of the state directory', async () => {
    const runs = [
      await runCli(['status', 'nope', ...flags()], { cwd: root }),
      await runCli(['status', 'nope', '--json', ...flags()], { cwd: root }),
      await runCli(['destroy', 'nope', ...flags()], { cwd: root }),
      await runCli(['kubeconfig', 'nope', ...flags()], { cwd: root }),
      await runCli(['ssh-key', 'nope', '--project', 'other', ...flags()], { cwd: root }),
    ];
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1, 1, 1]);
    // The state directory holds project hybrid (cluster hybrid): the caller named neither.
    for (const r of runs) expect(r.stdout + r.stderr).not.toContain('hybrid');
    expect(runs[4]?.stderr).toBe('kubeplane ssh-key: not-found: no cluster named nope in project other\n');
  });

  it('a cluster whose apply stopped before its first step has no key and no metadata yet, and says its state', async () => {
    const early = await mkdtemp(join(tmpdir(), 'kubeplane-ssh-outputs-early-'));
    try {
      // Ctrl-C before the first step: the cluster is recorded, nothing of it is made.
      const stopped = new AbortController();
      stopped.abort();
      const io = { stdout: new PassThrough(), stderr: new PassThrough(), cwd: root, env: {}, signal: stopped.signal };
      expect(await main(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', early], io)).toBe(130);
      const key = await runCli(['ssh-key', 'minimal', '--sandbox', '--state-dir', early], { cwd: root });
      expect(key.code).toBe(1);
      expect(key.stderr).toMatch(/^kubeplane ssh-key: not-found: cluster minimal has no SSH key yet \(status: IN_PROGRESS, /);
      const metadata = await runCli(['metadata', 'minimal', '--sandbox', '--state-dir', early], { cwd: root });
      expect(metadata.code).toBe(1);
      expect(metadata.stderr).toMatch(/^kubeplane metadata: not-found: cluster minimal has no metadata yet \(status: IN_PROGRESS, /);
    } finally {
      await rm(early, { recursive: true, force: true });
    }
  });

  it('a cluster name and no cluster is a usage error', async () => {
    const run = await runCli(['ssh-key', ...flags()], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^kubeplane ssh-key: ssh-key needs a cluster name\nusage: kubeplane ssh-key <cluster>/);
  });
});
