// Bundles the Lambda entry points with esbuild for the nodejs22.x runtime: one minified ESM file per function.
// By default the AWS SDK v3 is left to the runtime, which ships it (as CDK's NodejsFunction does): that keeps a
// bundle under 1 MB instead of about 2.5 MB. `awsSdk: 'bundled'` pins the exact SDK version we test against instead.
import { mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const FUNCTIONS = { step: 'step', api: 'api', deadLetter: 'dead-letter', watchdog: 'watchdog' } as const;
export type FunctionName = keyof typeof FUNCTIONS;

const entries = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'handlers', 'src', 'aws', 'lambda');

/** Writes `<outDir>/<function>/index.mjs` for each function; returns each directory and bundle size in bytes. */
export async function bundleHandlers(outDir: string, options: { awsSdk?: 'runtime' | 'bundled' } = {}): Promise<Record<FunctionName, { dir: string; bytes: number }>> {
  const out = {} as Record<FunctionName, { dir: string; bytes: number }>;
  for (const [name, entry] of Object.entries(FUNCTIONS) as Array<[FunctionName, string]>) {
    const dir = join(outDir, entry);
    await mkdir(dir, { recursive: true });
    await build({
      entryPoints: [join(entries, `${entry}.ts`)],
      outfile: join(dir, 'index.mjs'),
      bundle: true,
      minify: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      conditions: ['@kubeplane/source'],
      // ssh2 (static machines) loads its native speed-ups and cpu-features inside try/catch and falls back to pure JS:
      // left out, they are simply absent in the function.
      external: [...(options.awsSdk === 'bundled' ? [] : ['@aws-sdk/*', '@smithy/*']), 'cpu-features', '*.node'],
      // Some dependencies still call require(); give the ESM bundle one.
      banner: { js: "import{createRequire as __kpRequire}from'node:module';const require=__kpRequire(import.meta.url);" },
      logLevel: 'error',
    });
    out[name] = { dir, bytes: (await stat(join(dir, 'index.mjs'))).size };
  }
  return out;
}
