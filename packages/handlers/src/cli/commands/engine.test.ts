// The engine commands as separate invocations on one state directory: apply --sandbox, status, kubeconfig,
// plan against the stored state, destroy --sandbox — each opens the sandbox world the previous one saved.
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EC2Client, RunInstancesCommand, type Tag } from '@aws-sdk/client-ec2';
import { Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { runCli } from '../../../../../test/helpers/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');

/** `aws ec2 run-instances` in eu-west-1 against the state directory's sandbox world, with `tags`; the world saved back. */
async function runInstanceByHand(dir: string, tags: Tag[]): Promise<void> {
  const file = join(dir, 'sandbox', 'world.json');
  const sandbox = Sandbox.fromSnapshot(JSON.parse(await readFile(file, 'utf8')) as Parameters<typeof Sandbox.fromSnapshot>[0]).listen();
  try {
    const ec2 = new EC2Client({
      region: 'eu-west-1',
      credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
    });
    await ec2.send(
      new RunInstancesCommand({
        ImageId: 'ami-0965bd5ba4d59211c',
        InstanceType: 't3.medium',
        MinCount: 1,
        MaxCount: 1,
        ...(tags.length ? { TagSpecifications: [{ ResourceType: 'instance', Tags: tags }] } : {}),
      }),
    );
    ec2.destroy();
    await writeFile(file, JSON.stringify(sandbox.snapshot()), { mode: 0o600 });
  } finally {
    await sandbox.close();
  }
}

describe('kubeplane apply / status / kubeconfig / destroy on a persisted sandbox world', () => {
  it('acts on the same world across separate commands, and says it is the sandbox on every line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const flags = ['--sandbox', '--state-dir', dir];

    const applied = await runCli(['apply', 'examples/minimal.yaml', ...flags], { cwd: root });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const progress = applied.stdout.split('\n').filter((l) => /^\[sandbox\] \+/.test(l));
    expect(progress.length).toBeGreaterThan(5);
    expect(applied.stdout).toMatch(/\[sandbox\] minimal: DONE after \S+ \(virtual\)/);
    expect((await stat(join(dir, 'sandbox', 'world.json'))).mode & 0o777).toBe(0o600);

    const status = await runCli(['status', ...flags], { cwd: root });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^\[sandbox\] minimal: DONE \(generation 1\)/m);
    expect(status.stdout).toMatch(/minimal \[minimal-[a-z0-9]{7}\]: DONE/);
    // Pool counts as the engine last read the machines from the cloud, and when (status itself asks no cloud).
    expect(status.stdout).toMatch(/^ {4}pool workers: 2 wanted, 2 running \(as the cloud reported at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)$/m);
    const json = JSON.parse((await runCli(['status', '--json', ...flags], { cwd: root })).stdout) as {
      projects: Array<{ clusters: Record<string, { pools?: Array<{ name: string; running: number; readAt?: string }> }> }>;
    };
    expect(json.projects[0]?.clusters['minimal']?.pools?.find((p) => p.name === 'workers')).toMatchObject({
      running: 2,
      readAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const kubeconfig = await runCli(['kubeconfig', 'minimal', ...flags], { cwd: root });
    expect(kubeconfig.code).toBe(0);
    expect(kubeconfig.stdout).toContain('apiVersion: v1');
    expect(kubeconfig.stdout).toContain('client-key-data:');

    const again = await runCli(['apply', 'examples/minimal.yaml', ...flags], { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('no changes');

    const plan = await runCli(['plan', 'examples/minimal.yaml', ...flags], { cwd: root });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('no changes');

    const wrongMode = await runCli(['status', '--state-dir', dir], { cwd: root });
    expect(wrongMode.code).toBe(1);
    expect(wrongMode.stderr).toContain('holds a sandbox world; add --sandbox');

    const destroyed = await runCli(['destroy', 'examples/minimal.yaml', ...flags], { cwd: root });
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('[sandbox] resources left in the sandbox clouds: 0');
    const after = await runCli(['status', ...flags], { cwd: root });
    expect(after.stdout).toContain('no projects');
    // The world file carries machines' user-data (cluster keys): readable by its owner only.
    expect((await readFile(join(dir, 'mode'), 'utf8')).trim()).toBe('sandbox');
  });

  it('destroys one cluster by name, and applying the manifest again brings it back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const flags = ['--sandbox', '--state-dir', dir];
    const manifest = join(dir, 'team.yaml');
    await writeFile(manifest, (await readFile(join(root, 'examples', 'minimal.yaml'), 'utf8')).replace('name: minimal\n', 'name: team\n'));
    expect((await runCli(['apply', manifest, ...flags], { cwd: root })).code).toBe(0);
    const one = await runCli(['destroy', 'minimal', ...flags], { cwd: root });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('team: deleting cluster minimal');
    expect((await runCli(['status', 'team', ...flags], { cwd: root })).stdout).not.toContain('minimal [');
    const again = await runCli(['apply', manifest, ...flags], { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/create-cluster minimal/);
    expect((await runCli(['destroy', manifest, ...flags], { cwd: root })).stdout).toContain('resources left in the sandbox clouds: 0');
  });

  it('stops a second writer on the same state directory with a clear message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const { acquireProcessLock } = await import('../../runtime/process-lock.js');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'mode'), 'sandbox\n');
    const lock = await acquireProcessLock(join(dir, 'writer.lock'), 'kubeplane sandbox serve');
    try {
      const run = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir], { cwd: root });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('another kubeplane process');
      expect(run.stderr).toContain('kubeplane sandbox serve');
    } finally {
      await lock.release();
    }
  });

  it("a reader leaves an empty folder as it found it, so the README's next apply --sandbox works", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const status = await runCli(['status', '--state-dir', dir], { cwd: root });
    expect(status.code).toBe(0);
    const kubeconfig = await runCli(['kubeconfig', 'minimal', '--state-dir', dir], { cwd: root });
    expect(kubeconfig.code).toBe(1);
    expect(kubeconfig.stderr).toContain('no cluster named minimal');
    await expect(stat(join(dir, 'mode'))).rejects.toThrow();
    const applied = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  });

  it('names an unknown project or cluster and exits 1 (status, destroy)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const flags = ['--sandbox', '--state-dir', dir];
    const status = await runCli(['status', 'nope', ...flags], { cwd: root });
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/^kubeplane status: not-found: no project named nope in .*\n$/);
    const destroyed = await runCli(['destroy', 'nope', ...flags], { cwd: root });
    expect(destroyed.code).toBe(1);
    expect(destroyed.stderr).toMatch(/^kubeplane destroy: not-found: no project or cluster named nope in .*\n$/);
  });

  it("counts as left only the deleted clusters' resources: one made by hand in another region leaves destroy at exit 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const flags = ['--sandbox', '--state-dir', dir];
    expect((await runCli(['apply', 'examples/minimal.yaml', ...flags], { cwd: root })).code).toBe(0);
    // As docs/sandbox.md suggests: an instance run by hand, in a region minimal (on Hetzner) never uses.
    await runInstanceByHand(dir, []);
    const destroyed = await runCli(['destroy', 'minimal', ...flags], { cwd: root });
    expect(destroyed.stderr).toBe('');
    expect(destroyed.code).toBe(0);
    // The instance and what EC2 made with it (its root volume), none of them the cluster's.
    expect(destroyed.stdout).toMatch(
      /^\[sandbox\] resources left in the sandbox clouds: 0 \(besides \d+ not of the deleted clusters: made by hand, or another project's\)$/m,
    );
  });

  it('exits 1 when destroy leaves resources of the deleted clusters behind in the sandbox clouds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const flags = ['--sandbox', '--state-dir', dir];
    expect((await runCli(['apply', 'examples/minimal.yaml', ...flags], { cwd: root })).code).toBe(0);
    const status = JSON.parse((await runCli(['status', 'minimal', '--json', ...flags], { cwd: root })).stdout) as {
      projects: Array<{ clusters: Record<string, { id: string }> }>;
    };
    const id = status.projects[0]?.clusters['minimal']?.id ?? '';
    // Tagged with minimal's cluster id where kubeplane never looks (minimal has no AWS provider): a leak it cannot see.
    await runInstanceByHand(dir, [{ Key: 'kubeplane.dev/cluster-id', Value: id }]);
    const destroyed = await runCli(['destroy', 'minimal', ...flags], { cwd: root });
    expect(destroyed.stdout).toMatch(/minimal: DELETED/);
    expect(destroyed.stdout).toMatch(/^\[sandbox\] resources left in the sandbox clouds: 1 \(besides/m);
    expect(destroyed.code).toBe(1);
    expect(destroyed.stderr).toMatch(/^\[sandbox\] 1 resource\(s\) of the deleted clusters are left: ec2 node i-[0-9a-f]+\n$/);
  });

  it('says in one line, naming the file, that --state-dir is a file or that the world file is cut short', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const file = join(dir, 'not-a-folder');
    await writeFile(file, 'x');
    const onFile = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', file], { cwd: root });
    expect(onFile.code).toBe(1);
    expect(onFile.stderr).toBe(`kubeplane apply: invalid: the state directory ${file} is a file, not a folder; pass another --state-dir\n`);
    const flags = ['--sandbox', '--state-dir', dir];
    expect((await runCli(['apply', 'examples/minimal.yaml', ...flags], { cwd: root })).code).toBe(0);
    const world = join(dir, 'sandbox', 'world.json');
    const text = await readFile(world, 'utf8');
    await writeFile(world, text.slice(0, text.length >> 1));
    const cut = await runCli(['status', ...flags], { cwd: root });
    expect(cut.code).toBe(1);
    expect(cut.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(cut.stderr).toContain(`${world} is not valid JSON`);
  });

  it('stops after the step in hand when interrupted, exits 130, and the next apply finishes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    const flags = ['--sandbox', '--state-dir', dir];
    const interrupt = new AbortController();
    const { PassThrough } = await import('node:stream');
    const { main } = await import('../main.js');
    const out = new PassThrough();
    const err = new PassThrough();
    let errText = '';
    err.on('data', (c: Buffer) => (errText += c.toString()));
    let lines = 0;
    out.on('data', (c: Buffer) => {
      lines += c
        .toString()
        .split('\n')
        .filter((l) => /^\[sandbox\] \+/.test(l)).length;
      if (lines >= 3) interrupt.abort();
    });
    const code = await main(['apply', 'examples/minimal.yaml', ...flags], { stdout: out, stderr: err, cwd: root, env: {}, signal: interrupt.signal });
    expect(code).toBe(130);
    expect(errText).toContain('interrupted: the step in hand finished and everything is saved');
    const again = await runCli(['apply', 'examples/minimal.yaml', ...flags], { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/minimal: DONE/);
    const destroyed = await runCli(['destroy', 'examples/minimal.yaml', ...flags], { cwd: root });
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('resources left in the sandbox clouds: 0');
  });

  it('resumes at once after a crashed writer: its message in flight and its lease are reclaimed, not waited out', async () => {
    const seconds = (out: string): number => {
      const m = /minimal: DONE after (?:(\d+)m)?(\d+)s \(virtual\)/.exec(out);
      return m ? Number(m[1] ?? 0) * 60 + Number(m[2]) : Number.NaN;
    };
    const clean = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', await mkdtemp(join(tmpdir(), 'kubeplane-cli-'))], { cwd: root });
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-cli-'));
    // A writer that took the first step's message and the cluster's lease, and died without a word.
    const { LocalRuntime } = await import('../../runtime/local.js');
    const { validateManifestFile } = await import('@kubeplane/sdk');
    const rt = await LocalRuntime.open({ stateDir: dir, sandbox: true, write: true, env: {}, cwd: root, command: 'apply (crashes)' });
    const manifest = (await validateManifestFile(join(root, 'examples', 'minimal.yaml'))).manifests[0];
    if (!manifest) throw new Error('no manifest');
    await rt.kubeplane.apply(manifest);
    const { FileQueue, FileLease } = await import('@kubeplane/sdk');
    const [message] = await new FileQueue<{ clusterId: string }>(dir, 'steps', { clock: rt.clock, visibilityTimeoutSeconds: 300 }).receive(1);
    await new FileLease(dir, rt.clock).acquire(`clusters/${message?.body.clusterId ?? ''}`, 'crashed/1', 120);
    await rt.close();
    const resumed = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('resuming after an interrupted run: 1 step message(s) in flight and 1 lease(s) released');
    // Virtual time, deterministic: no 300 s visibility timeout or 120 s lease is sat out.
    expect(seconds(resumed.stdout)).toBeLessThanOrEqual(seconds(clean.stdout) + 30);
  });
});
