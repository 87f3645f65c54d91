// A command on real clouds never loads the sandbox clouds or msw (which patches node:http when it intercepts): the
// sandbox is loaded only by `--sandbox` and `kubeplane sandbox ...`. Checked from outside, on the built CLI, by
// recording every module the process resolves. Here nothing real is reached: the token is made up, so the apply stops
// at its preflight (no network: the name does not resolve; with one: 401), after the runtime and providers are loaded.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The modules a CLI run resolved, and how it ended. */
async function importsOf(args: string[], stateDir = true): Promise<{ code: number; stderr: string; modules: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-imports-'));
  dirs.push(dir);
  const log = join(dir, 'imports.log');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, HCLOUD_TOKEN: 'a'.repeat(64), KUBEPLANE_IMPORT_LOG: log };
  const run = promisify(execFile)(
    process.execPath,
    ['--import', './test/helpers/record-imports.mjs', 'packages/handlers/bin/kubeplane.js', ...args, ...(stateDir ? ['--state-dir', join(dir, 'state')] : [])],
    { cwd: root, env, timeout: 45_000 },
  );
  const result = await run.then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (e: { code?: number; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : -1, stderr: e.stderr ?? '' }),
  );
  const modules = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { ...result, modules };
}

const sandboxOrMsw = (url: string): boolean => /\/packages\/sandbox\/|\/node_modules\/(msw|@mswjs)\//.test(url);

describe('kubeplane on real clouds', () => {
  it('apply loads the runtime, the engine and the providers, and neither the sandbox nor msw', async () => {
    const run = await importsOf(['apply', 'examples/minimal.yaml']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/hetzner/);
    // It went the real-cloud way: the Hetzner client and the engine were loaded.
    expect(run.modules.some((m) => m.includes('/packages/providers/') && m.includes('/hetzner/client.js'))).toBe(true);
    expect(run.modules.some((m) => m.includes('/packages/sdk/') && m.includes('/engine/'))).toBe(true);
    expect(run.modules.filter(sandboxOrMsw)).toEqual([]);
  }, 60_000);

  it('status, validate and plan load neither either', async () => {
    for (const [args, stateDir] of [
      [['status'], true],
      [['validate', 'examples/minimal.yaml'], false],
      [['plan', 'examples/minimal.yaml'], true],
    ] as const) {
      const run = await importsOf([...args], stateDir);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.modules.length).toBeGreaterThan(10);
      expect(run.modules.filter(sandboxOrMsw), args.join(' ')).toEqual([]);
    }
  }, 60_000);
});
