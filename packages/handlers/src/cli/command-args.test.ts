// An option that takes one value, given twice: every command refuses it as a usage error, instead of quietly
// working with the last one (node:util parseArgs takes the last).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';
import { httpLeftIntercepted } from '../../../../test/helpers/http-intercepted.js';

// Every command closes what it opened, failing ones too: a sandbox left listening would serve the next test's requests.
afterEach(async () => {
  expect(await httpLeftIntercepted()).toBeNull();
});

const repo = join(import.meta.dirname, '..', '..', '..', '..');
const minimal = join(repo, 'examples', 'minimal.yaml');
const dirs: string[] = [];
/** A working directory of its own: were a command to run after all, what it writes lands there. */
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-twice-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('a single-value option given twice', () => {
  it('stops apply with a usage error naming both values, before anything is touched', async () => {
    const cwd = await fresh();
    const run = await runCli(['apply', minimal, '--sandbox', '--state-dir', 'a', '--state-dir=b'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^kubeplane apply: --state-dir was given twice \(a, b\); give it once\nusage: kubeplane apply /);
    expect(await readdir(cwd)).toEqual([]);
  });

  it('says how many times when it is more than twice', async () => {
    const run = await runCli(['schema', '--out', 'x.json', '--out', 'y.json', '--out', 'z.json'], { cwd: await fresh() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^kubeplane schema: --out was given 3 times \(x\.json, y\.json, z\.json\); give it once\n/);
  });

  it('is a usage error in --json too', async () => {
    const run = await runCli(['status', '--sandbox', '--state-dir', 'a', '--state-dir', 'b', '--json'], { cwd: await fresh() });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { kind: 'usage', message: '--state-dir was given twice (a, b); give it once' } });
  });

  it.each([
    ['plan', ['plan', minimal], 'state-dir'],
    ['destroy', ['destroy', 'minimal', '--sandbox'], 'state-dir'],
    ['kubeconfig', ['kubeconfig', 'minimal', '--sandbox'], 'out'],
    ['kubeconfig --served', ['kubeconfig', 'minimal', '--served'], 'server'],
    ['render', ['render', minimal], 'out'],
    ['sandbox lifecycle', ['sandbox', 'lifecycle', minimal], 'seed'],
    ['sandbox serve', ['sandbox', 'serve'], 'state-dir'],
    ['autoscaler-adapter', ['autoscaler-adapter', 'serve', '--sandbox'], 'state-dir'],
  ])('is refused by %s', async (_name, argv, option) => {
    const run = await runCli([...argv, `--${option}`, '1', `--${option}`, '2'], { cwd: await fresh() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`: --${option} was given twice (1, 2); give it once\n`);
  });

  it('accepts a flag given twice: it has no value to mix up', async () => {
    const run = await runCli(['validate', minimal, '--json', '--json'], { cwd: await fresh() });
    expect(run.code).toBe(0);
  });
});
