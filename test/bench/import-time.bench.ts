// How long a fresh process takes to import each package (what a script, a service's cold start or a Lambda pays
// before its first line), next to a bare @aws-sdk/client-ec2 import measured in the same run as the baseline, and
// the size of a bundle of a script that imports only validateManifestText (what a browser or edge validator ships).
import { execFile } from 'node:child_process';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { benchScratchDir } from './scratch-dir.js';
import type { BenchResult } from './types.js';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const RUNS = 7;

/** Median over fresh processes of `await import(specifier)` (ms), resolved from the repository as a user's would be. */
async function importMs(specifier: string): Promise<number> {
  const script = `const t=performance.now();await import(${JSON.stringify(specifier)});console.log(performance.now()-t)`;
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    samples.push(Number(stdout.trim()));
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN;
}

export async function run(): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  // Interleaved in one loop would be fairer still; one after another, with the baseline first and last, shows drift.
  const before = await importMs('@aws-sdk/client-ec2');
  const sdk = await importMs('@kubeplane/sdk');
  const providers = await importMs('@kubeplane/providers');
  const handlers = await importMs('@kubeplane/handlers');
  const handlersAws = await importMs('@kubeplane/handlers/aws');
  const handlersGcp = await importMs('@kubeplane/handlers/gcp');
  const sandbox = await importMs('@kubeplane/sandbox');
  const after = await importMs('@aws-sdk/client-ec2');
  const baseline = (before + after) / 2;
  const note = `bare @aws-sdk/client-ec2 in the same run: ${before.toFixed(0)} ms before, ${after.toFixed(0)} ms after`;
  out.push(
    { name: `import @aws-sdk/client-ec2 (baseline; median of ${RUNS} fresh processes)`, value: baseline, unit: 'ms' },
    { name: `import @kubeplane/sdk (median of ${RUNS})`, value: sdk, unit: 'ms', note: `${(sdk / baseline).toFixed(2)}x the baseline; ${note}` },
    {
      name: `import @kubeplane/providers (median of ${RUNS})`,
      value: providers / baseline,
      unit: 'x baseline',
      target: '<= 1.3x',
      note: `${providers.toFixed(0)} ms; ${note}`,
    },
    {
      name: `import @kubeplane/handlers: createKubeplane, createSandboxKubeplane (median of ${RUNS})`,
      value: handlers,
      unit: 'ms',
      note: `${(handlers / baseline).toFixed(2)}x the baseline`,
    },
    {
      name: `import @kubeplane/handlers/aws: the Lambda runtime (median of ${RUNS})`,
      value: handlersAws,
      unit: 'ms',
      note: `${(handlersAws / baseline).toFixed(2)}x the baseline`,
    },
    {
      name: `import @kubeplane/handlers/gcp: the Cloud Functions runtime (median of ${RUNS})`,
      value: handlersGcp,
      unit: 'ms',
      note: `${(handlersGcp / baseline).toFixed(2)}x the baseline`,
    },
    {
      name: `import @kubeplane/sandbox (median of ${RUNS})`,
      value: sandbox,
      unit: 'ms',
      note: `${(sandbox / baseline).toFixed(2)}x the baseline; only tests, --sandbox and createSandboxKubeplane load it`,
    },
  );
  const dir = await benchScratchDir(root, 'kubeplane-validate-only-');
  try {
    await writeFile(
      join(dir, 'entry.mjs'),
      "import { validateManifestText } from '@kubeplane/sdk';\nconsole.log(validateManifestText(process.argv[2] ?? '').ok);\n",
    );
    await build({
      entryPoints: [join(dir, 'entry.mjs')],
      outfile: join(dir, 'out.mjs'),
      bundle: true,
      minify: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      logLevel: 'error',
    });
    const bytes = (await stat(join(dir, 'out.mjs'))).size;
    out.push({ name: 'bundle of a script importing only validateManifestText (minified ESM)', value: bytes / 1e3, unit: 'KB', target: '<= 500 KB' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}
