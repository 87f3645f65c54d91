// `kubeplane --help` and `kubeplane validate` start in a fraction of a second because each command loads its own
// modules when it runs: help loads no command and no schema, validate only the sdk's manifest part (zod and the YAML
// parser), neither the engine, the providers, the sandbox, nor a cloud SDK. Checked from outside, on the built CLI, by
// recording every module the process resolves (the figures are in `npm run bench cli-startup`).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..', '..');
let dir = '';
let runs = 0;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The modules a CLI run resolved (URLs relative to the repository), and what it printed. */
async function importsOf(args: string[]): Promise<{ stdout: string; modules: string[] }> {
  dir ||= await mkdtemp(join(tmpdir(), 'kubeplane-startup-'));
  const log = join(dir, `imports-${++runs}.log`);
  const env = { PATH: process.env.PATH ?? '', HOME: dir, KUBEPLANE_IMPORT_LOG: log };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', './test/helpers/record-imports.mjs', 'packages/handlers/bin/kubeplane.js', ...args],
    { cwd: root, env, timeout: 30_000 },
  );
  const modules = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  return { stdout, modules: [...new Set(modules.map((m) => m.replace(`file://${root}/`, '')))] };
}

/** What no command that touches no cloud needs: the engine, the providers, the sandbox, any cloud or HTTP client. */
const HEAVY =
  /^packages\/(sdk\/(dist|src)\/(engine|bootstrap|plan|provider)\/|providers\/|sandbox\/)|node_modules\/(@aws-sdk|@smithy|@grpc|@google-cloud|@kubernetes|msw|@mswjs|got)\//;

describe('kubeplane starts with only what the command needs', () => {
  it.each([[['--help']], [['help', 'apply']], [['completion', 'bash']]])('%j loads no command, no schema and nothing heavy', async (args) => {
    const run = await importsOf(args);
    expect(run.stdout.length).toBeGreaterThan(0);
    // The bin script and main.js ran (the log is real), and none of the commands.
    expect(run.modules).toContain('packages/handlers/dist/cli/main.js');
    expect(run.modules.filter((m) => /\/cli\/commands\/(?!command-help\.js)/.test(m))).toEqual([]);
    expect(run.modules.filter((m) => HEAVY.test(m) || /node_modules\/(zod|yaml|js-yaml)\//.test(m) || /^packages\/sdk\/.*\/manifest\//.test(m))).toEqual([]);
  });

  it('validate loads the manifest part of the sdk, and not the engine, the providers, the sandbox or a cloud SDK', async () => {
    const run = await importsOf(['validate', 'examples/minimal.yaml']);
    expect(run.stdout).toBe('examples/minimal.yaml: ok (1 manifest, 1 cluster)\n');
    expect(run.modules.some((m) => m.startsWith('packages/sdk/dist/manifest/'))).toBe(true);
    expect(run.modules.filter((m) => HEAVY.test(m))).toEqual([]);
    expect(run.modules).not.toContain('packages/sdk/dist/index.js');
  });
});
