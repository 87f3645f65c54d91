// What every kubeplane command does the same way: --help, --json lines ending in a result, control characters
// escaped in messages, credentials checked before anything is recorded, kubeconfigs written private.
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_STATES, MANIFEST_STATES } from '@kubeplane/sdk';
import { runCli } from '../../../../test/helpers/cli.js';
import { main } from './main.js';
import { DELETED } from './progress.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..');
const minimal = readFileSync(join(root, 'examples', 'minimal.yaml'), 'utf8');

const COMMANDS = [
  ['validate'],
  ['plan'],
  ['apply'],
  ['status'],
  ['destroy'],
  ['kubeconfig'],
  ['ssh-key'],
  ['metadata'],
  ['sandbox'],
  ['sandbox', 'lifecycle'],
  ['sandbox', 'serve'],
  ['render'],
  ['schema'],
  ['completion'],
];

/** Every JSON line of a --json run, parsed; the run fails the test if any line is not a JSON object with a type. */
function jsonLines(stdout: string): Array<{ type: string } & Record<string, unknown>> {
  return stdout
    .trim()
    .split('\n')
    .map((line) => {
      const value = JSON.parse(line) as { type?: unknown } & Record<string, unknown>;
      expect(typeof value.type, line).toBe('string');
      expect(value['formatVersion'], line).toBe(1);
      return value as { type: string } & Record<string, unknown>;
    });
}

describe('kubeplane <command> --help', () => {
  it.each(COMMANDS.map((c) => [c.join(' '), c]))('%s --help prints its usage and options, exit 0, within 100 columns', async (_, words) => {
    for (const flag of ['--help', '-h']) {
      const run = await runCli([...words, flag], { cwd: root });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(new RegExp(`^usage: kubeplane ${words.join(' ')}`));
      expect(run.stdout).toContain('-h, --help');
      expect(run.stdout.split('\n').filter((l) => l.length > 100)).toEqual([]);
    }
  });

  it('the top-level help lists every command within 100 columns', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const words of COMMANDS.filter((c) => c.join(' ') !== 'sandbox')) expect(run.stdout).toMatch(new RegExp(`^  ${words.join(' ')} `, 'm'));
    expect(run.stdout.split('\n').filter((l) => l.length > 100)).toEqual([]);
  });

  it('help <command> is the same as <command> --help, and schema --help prints help, not the schema', async () => {
    const run = await runCli(['help', 'schema']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe((await runCli(['schema', '--help'])).stdout);
    expect(run.stdout).not.toContain('$schema');
  });

  it('help sandbox lifecycle is sandbox lifecycle --help, and help alone the command list', async () => {
    const run = await runCli(['help', 'sandbox', 'lifecycle']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe((await runCli(['sandbox', 'lifecycle', '--help'])).stdout);
    expect((await runCli(['help'])).stdout).toBe((await runCli(['--help'])).stdout);
  });

  it('help of an unknown command exits 2, naming it, with the command list on stderr', async () => {
    const run = await runCli(['help', 'frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`kubeplane: unknown command "frobnicate"\n${(await runCli(['--help'])).stdout}`);
  });

  it("schema's usage names the manifest formats the schema command takes", async () => {
    const { MANIFEST_FORMATS } = await import('@kubeplane/sdk');
    expect((await runCli(['schema', '--help'])).stdout).toContain(`[--format ${MANIFEST_FORMATS.join('|')}]`);
  });

  it('a usage error prints the usage wrapped within 100 columns', async () => {
    const run = await runCli(['apply'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^kubeplane apply: apply needs exactly one manifest file\nusage: kubeplane apply <manifest>/);
    expect(run.stderr.split('\n').filter((l) => l.length > 100)).toEqual([]);
  });
});

describe('--json: JSON lines with a type, the last one the result', () => {
  it("plan --json on an invalid manifest prints a failed result with each error's file, line, path and message", async () => {
    const run = await runCli(['plan', 'test/fixtures/invalid/count-zero.yaml', '--json'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const [result, ...more] = jsonLines(run.stdout);
    expect(more).toEqual([]);
    expect(result).toMatchObject({ type: 'result', command: 'plan', ok: false, exitCode: 1, error: { kind: 'invalid' } });
    expect(result?.['issues']).toEqual([
      {
        severity: 'error',
        file: 'test/fixtures/invalid/count-zero.yaml',
        line: expect.any(Number) as number,
        column: expect.any(Number) as number,
        path: 'nodePools.dynamic[1].count',
        message: 'count must be at least 1',
      },
    ]);
  });

  it('plan --json on a valid manifest prints the plan in the result', async () => {
    const [result] = jsonLines((await runCli(['plan', 'examples/minimal.yaml', '--json'], { cwd: root })).stdout);
    const plans = result?.['plans'] as Array<{ operations: Array<{ kind: string }> }>;
    expect(result).toMatchObject({ type: 'result', command: 'plan', ok: true });
    expect(plans[0]?.operations.filter((o) => o.kind === 'create-node')).toHaveLength(3);
  });

  it('a usage error under --json is a result with error kind usage, on stdout', async () => {
    const run = await runCli(['status', 'a', '--json', '--frobnicate'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('');
    expect(jsonLines(run.stdout)).toEqual([
      expect.objectContaining({ type: 'result', command: 'status', ok: false, exitCode: 2, error: expect.objectContaining({ kind: 'usage' }) as unknown }),
    ]);
  });

  it('an error under --json is a result with its kind and message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-json-'));
    const run = await runCli(['status', 'nope', '--sandbox', '--state-dir', dir, '--json'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const [result] = jsonLines(run.stdout);
    expect(result).toMatchObject({ type: 'result', command: 'status', ok: false, error: { kind: 'not-found' } });
    expect(String((result?.['error'] as { message: string }).message)).toContain('no project named nope');
    await rm(dir, { recursive: true, force: true });
  });
});

describe('apply --sandbox --json and kubeconfig on its cluster', () => {
  let dir = '';
  let applied: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubeplane-conventions-'));
    applied = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir, '--json'], { cwd: root });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('apply --json prints engine events, each with a type, and ends with a result holding the plan and the status', () => {
    expect(applied.code).toBe(0);
    const lines = jsonLines(applied.stdout);
    const result = lines.at(-1);
    expect(lines.slice(0, -1).map((l) => l.type)).toEqual(expect.arrayContaining(['phase-started', 'step-done', 'cluster-done']));
    expect(lines.slice(0, -1).some((l) => l.type === 'result')).toBe(false);
    expect(result).toMatchObject({ type: 'result', command: 'apply', ok: true, exitCode: 0, sandbox: true, projects: [{ project: 'minimal', state: 'DONE' }] });
    const plans = result?.['plans'] as Array<{ operations: Array<{ kind: string }> }>;
    expect(plans[0]?.operations.filter((o) => o.kind === 'create-node')).toHaveLength(3);
  });

  it('apply --json carries the format version on every line, and shows each cluster from its first phase, infrastructure', () => {
    const lines = jsonLines(applied.stdout);
    for (const line of lines) expect(Object.keys(line).slice(0, 2)).toEqual(['type', 'formatVersion']);
    // The first phase-started is emitted as apply queues the flow, before anything runs.
    expect(lines[0]).toMatchObject({ type: 'phase-started', project: 'minimal', cluster: 'minimal', phase: 'infrastructure' });
    const phases = lines.filter((l) => l.type === 'phase-started').map((l) => l['phase']);
    expect(phases[0]).toBe('infrastructure');
  });

  it('destroy --json shows the deletion from its first phase, and the status --json after it carries the format version', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'kubeplane-conventions-destroy-'));
    try {
      const again = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', copy], { cwd: root });
      expect(again.code).toBe(0);
      const destroyed = await runCli(['destroy', 'minimal', '--sandbox', '--state-dir', copy, '--json'], { cwd: root });
      expect(destroyed.code, destroyed.stdout + destroyed.stderr).toBe(0);
      const lines = jsonLines(destroyed.stdout);
      expect(lines[0]).toMatchObject({ type: 'phase-started', project: 'minimal', cluster: 'minimal' });
      const status = await runCli(['status', '--sandbox', '--state-dir', copy, '--json'], { cwd: root });
      expect(jsonLines(status.stdout)).toEqual([expect.objectContaining({ type: 'result', formatVersion: 1, command: 'status', projects: [] })]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('kubeconfig > file makes the file 0600 before writing the credentials into it', async () => {
    const file = join(dir, 'admin.kubeconfig');
    await writeFile(file, '', { mode: 0o644 });
    const stdout = createWriteStream(file, { flags: 'w' });
    await once(stdout, 'open');
    const stderr = new PassThrough();
    const code = await main(['kubeconfig', 'minimal', '--sandbox', '--state-dir', dir], { stdout, stderr, cwd: root, env: {} });
    stdout.end();
    await once(stdout, 'close');
    expect(code).toBe(0);
    expect(stderr.read()).toBeNull();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain('client-key-data:');
  });

  it('kubeconfig --out FILE writes it with mode 0600, even over a 0644 file', async () => {
    const file = join(dir, 'out.kubeconfig');
    await writeFile(file, 'old', { mode: 0o644 });
    const run = await runCli(['kubeconfig', 'minimal', '--sandbox', '--state-dir', dir, '--out', file], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain('client-key-data:');
  });
});

describe('control characters in names and values', () => {
  // ESC [31m (red), NUL, a C1 CSI, and RIGHT-TO-LEFT OVERRIDE: none may reach the terminal raw.
  const hostile = 'evil\u001b[31m\u0000\u009b\u202ename';
  const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  it.each([['validate'], ['plan'], ['apply', '--sandbox'], ['plan', '--json']])(
    '%s on a manifest whose cluster name holds an escape sequence and U+202E prints them escaped',
    async (...args) => {
      const dir = await mkdtemp(join(tmpdir(), 'kubeplane-control-'));
      const file = join(dir, 'hostile.yaml');
      await writeFile(
        file,
        minimal.replace(
          '    - name: minimal',
          `    - name: "${hostile.replace('\u0000', '\\0').replace('\u001b', '\\e').replace('\u009b', '\\x9b').replace('\u202e', '\\u202e')}"`,
        ),
      );
      const state = args[0] === 'validate' ? [] : ['--state-dir', join(dir, 'state')];
      const run = await runCli([...args, file, ...state], { cwd: root });
      expect(run.code).toBe(1);
      expect(run.stdout + run.stderr).not.toMatch(raw);
      expect(run.stdout + run.stderr).toContain('evil\\u001b[31m\\u0000\\u009b\\u202ename');
      await rm(dir, { recursive: true, force: true });
    },
  );

  it('a project name given on the command line is escaped in the error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-control-'));
    const run = await runCli(['status', hostile, '--sandbox', '--state-dir', dir], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(raw);
    expect(run.stderr).toContain('evil\\u001b[31m\\u0000\\u009b\\u202ename');
    await rm(dir, { recursive: true, force: true });
  });
});

describe('credentials are checked before anything is recorded', () => {
  it("apply with HCLOUD_TOKEN unset names the provider, the variable and the secretRef's line, and records no project", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-credentials-'));
    const state = join(dir, 'state');
    const run = await runCli(['apply', 'examples/minimal.yaml', '--state-dir', state], { cwd: root, env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'credentials: examples/minimal.yaml:11 providers[0].secretRef.env.credentials: hetzner provider hetzner-1: secret not found: environment variable HCLOUD_TOKEN is not set',
    );
    expect(run.stderr).toContain('nothing was recorded');
    expect(run.stdout).toBe('');
    expect(existsSync(join(state, 'state', 'projects', 'minimal.json'))).toBe(false);
    expect(existsSync(state)).toBe(false);
    await rm(dir, { recursive: true, force: true });
  });

  it("a credentials file that cannot be read is named, with its secretRef's path", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-credentials-'));
    const file = join(dir, 'm.yaml');
    await writeFile(file, minimal.replace('env: { credentials: HCLOUD_TOKEN }', 'file: ./hcloud-missing.yaml'));
    const run = await runCli(['apply', file, '--state-dir', join(dir, 'state'), '--json'], { cwd: dir, env: {} });
    expect(run.code).toBe(1);
    const [result] = jsonLines(run.stdout);
    expect(result).toMatchObject({ type: 'result', command: 'apply', ok: false, error: { kind: 'auth' } });
    expect(result?.['issues']).toEqual([
      expect.objectContaining({ line: 11, path: 'providers[0].secretRef.file', message: expect.stringContaining('hcloud-missing.yaml') as unknown }),
    ]);
    expect(existsSync(join(dir, 'state'))).toBe(false);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('docs/workflow.md', () => {
  it('explains every state the engine stores and the CLI prints', () => {
    const doc = readFileSync(join(root, 'docs', 'workflow.md'), 'utf8');
    const missing = [...MANIFEST_STATES, ...CLUSTER_STATES, DELETED].filter((s) => !doc.includes(`| \`${s}\` |`) && !doc.includes(`\`${s}\` (`));
    expect(missing).toEqual([]);
  });
});
