// `destroy` never says done while anything is left: a teardown that fails for good exits 1 and keeps the kubeconfig,
// a project whose cluster records were lost or spoiled is still swept by tag, and a state directory cannot change
// kind by accident. Each case starts from one applied sandbox directory, copied; the real-cloud cases turn the copy
// into real-cloud state with no credentials in the environment, so nothing real is ever called.
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileStateStore } from '@kubeplane/sdk';
import { runCli } from '../../../../../test/helpers/cli.js';
import { httpLeftIntercepted } from '../../../../../test/helpers/http-intercepted.js';
import { KIND_KEY } from '../../runtime/local.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');

let applied: string;

beforeAll(async () => {
  applied = await mkdtemp(join(tmpdir(), 'kubeplane-destroy-'));
  const run = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', applied], { cwd: root });
  expect(run.code, `${run.stdout.split('\n').slice(-15).join('\n')}\n${run.stderr}`).toBe(0);
}, 60_000);

// Every command closes what it opened, failing ones too: a sandbox left listening would serve the next test's requests.
afterEach(async () => {
  expect(await httpLeftIntercepted()).toBeNull();
});

/** A copy of the applied sandbox directory. */
async function sandboxCopy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-destroy-'));
  await cp(applied, dir, { recursive: true });
  return dir;
}

/** A copy turned into real-cloud state: the same records, no sandbox world, kind `cloud` in both places. */
async function cloudCopy(): Promise<string> {
  const dir = await sandboxCopy();
  await rm(join(dir, 'sandbox'), { recursive: true, force: true });
  const state = new FileStateStore(dir);
  await state.put(KIND_KEY, { kind: 'cloud' }, (await state.get(KIND_KEY))?.revision ?? 0);
  await writeFile(join(dir, 'mode'), 'cloud\n');
  return dir;
}

async function clusterFile(dir: string): Promise<string> {
  const [file] = (await readdir(join(dir, 'state', 'clusters'))).filter((f) => f.endsWith('.json'));
  if (!file) throw new Error('no cluster record');
  return join(dir, 'state', 'clusters', file);
}

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;

describe('destroy on real-cloud state whose teardown fails for good (no credentials)', () => {
  it('exits 1, says ok: false with what was not deleted, leaves the cluster in ERROR and keeps its kubeconfig', async () => {
    const dir = await cloudCopy();
    const json = await runCli(['destroy', 'minimal', '--yes', '--json', '--state-dir', dir], { cwd: root });
    expect(json.code).toBe(1);
    const result = lastJson(json.stdout);
    expect(result).toMatchObject({ type: 'result', ok: false, exitCode: 1 });
    expect(JSON.stringify(result.notDeleted)).toMatch(/minimal\/minimal ERROR: teardown: .*HCLOUD_TOKEN is not set/);

    const again = await runCli(['destroy', 'minimal', '--yes', '--state-dir', dir], { cwd: root });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not deleted: minimal\/minimal ERROR: .*its resources are left in the clouds: run `kubeplane destroy minimal` again/);
    expect(again.stdout).toMatch(/minimal: ERROR after/);

    const status = await runCli(['status', '--state-dir', dir], { cwd: root });
    expect(status.stdout).toMatch(/^minimal: ERROR/m);
    // The teardown did not happen, so the credentials of what still runs are kept.
    const kubeconfig = await runCli(['kubeconfig', 'minimal', '--state-dir', dir], { cwd: root });
    expect(kubeconfig.code).toBe(0);
    expect(kubeconfig.stdout).toContain('client-key-data:');
  }, 60_000);

  it('asks on a terminal; a script must pass --yes; anything but `yes` deletes nothing', async () => {
    const dir = await cloudCopy();
    const script = await runCli(['destroy', 'minimal', '--state-dir', dir], { cwd: root });
    expect(script.code).toBe(2);
    expect(script.stderr).toContain('destroy deletes real cloud resources; pass --yes to confirm');
    const declined = await runCli(['destroy', 'minimal', '--state-dir', dir], { cwd: root, stdin: { tty: true, typed: 'y\n' } });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain("Only 'yes' confirms");
    expect(declined.stderr).toContain('not confirmed; nothing was deleted');
    expect((await runCli(['status', '--state-dir', dir], { cwd: root })).stdout).toMatch(/^minimal: DONE/m);
    const confirmed = await runCli(['destroy', 'minimal', '--state-dir', dir], { cwd: root, stdin: { tty: true, typed: 'yes\n' } });
    expect(confirmed.stdout).toContain('minimal: deleting minimal');
    expect(confirmed.code).toBe(1);
  }, 60_000);
});

describe('destroy <project> sweeps by tag what the state lost', () => {
  it('a lost cluster record: swept from the manifest the project record kept, nothing left', async () => {
    const dir = await sandboxCopy();
    await rm(await clusterFile(dir));
    const run = await runCli(['destroy', 'minimal', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('minimal: no readable record of minimal: swept by the tag');
    expect(run.stdout).toContain('[sandbox] resources left in the sandbox clouds: 0');
    expect(run.stdout).toMatch(/\[sandbox\] minimal: DELETED/);
  }, 60_000);

  it('a record of the wrong shape: status names the file and the fix, apply refuses, destroy sweeps it', async () => {
    const dir = await sandboxCopy();
    const file = await clusterFile(dir);
    const stored = JSON.parse(await readFile(file, 'utf8')) as { revision: number };
    await writeFile(file, JSON.stringify({ ...stored, value: { hello: 'world' } }));
    const status = await runCli(['status', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`${file} (cluster minimal of project minimal) cannot be read: \`project\`, \`name\``);
    expect(status.stdout).toContain('`kubeplane destroy minimal`');
    const apply = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/kubeplane apply: invalid: .* cannot be read/);
    expect(apply.stderr).not.toContain('Cannot read properties');
    const destroyed = await runCli(['destroy', 'minimal', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('[sandbox] resources left in the sandbox clouds: 0');
  }, 60_000);

  it('a record cut short: the error names the file and a command that keeps the sweep, and that command works', async () => {
    const dir = await sandboxCopy();
    const file = await clusterFile(dir);
    await writeFile(file, (await readFile(file, 'utf8')).slice(0, 100));
    const blocked = await runCli(['destroy', 'minimal', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`${file} is not valid JSON`);
    expect(blocked.stderr).toContain('move it away and run `kubeplane destroy <project>`');
    expect(await httpLeftIntercepted(), 'the sandbox of the refused destroy is closed').toBeNull();
    await rm(file);
    const swept = await runCli(['destroy', 'minimal', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(swept.code).toBe(0);
    expect(swept.stdout).toContain('[sandbox] resources left in the sandbox clouds: 0');
  }, 60_000);
});

describe('a state directory cannot change kind by accident', () => {
  it('a sandbox directory without its mode file is never taken for real-cloud state', async () => {
    const dir = await sandboxCopy();
    await rm(join(dir, 'mode'));
    const run = await runCli(['destroy', 'minimal', '--yes', '--state-dir', dir], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${join(dir, 'mode')} is missing`);
    expect(run.stderr).toContain(`echo sandbox > ${join(dir, 'mode')}`);
    await expect(stat(join(dir, 'mode'))).rejects.toThrow(/ENOENT/);
    // Without its world too, the state itself still says what it is.
    await rm(join(dir, 'sandbox'), { recursive: true });
    expect((await runCli(['status', '--state-dir', dir], { cwd: root })).stderr).toContain(`echo sandbox > ${join(dir, 'mode')}`);
  }, 60_000);

  it('an empty, garbage or hand-changed mode file is an error that names it and the repair', async () => {
    const dir = await sandboxCopy();
    const mode = join(dir, 'mode');
    await writeFile(mode, '');
    const empty = await runCli(['status', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain(`${mode} is empty, not \`sandbox\` or \`cloud\``);
    await writeFile(mode, 'sndbox\n');
    const garbage = await runCli(['destroy', 'minimal', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(garbage.code).toBe(1);
    expect(garbage.stderr).toContain(`${mode} holds "sndbox"`);
    expect(garbage.stderr).toContain(`echo sandbox > ${mode}`);
    await writeFile(mode, 'cloud\n');
    const flipped = await runCli(['destroy', 'minimal', '--yes', '--state-dir', dir], { cwd: root });
    expect(flipped.code).toBe(1);
    expect(flipped.stderr).toContain(`${mode} says cloud, but a sandbox world is kept in`);
    await writeFile(mode, 'sandbox\n');
    expect((await runCli(['destroy', 'minimal', '--sandbox', '--state-dir', dir], { cwd: root })).code).toBe(0);
  }, 60_000);
});
