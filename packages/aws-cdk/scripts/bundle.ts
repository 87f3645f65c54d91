// Bundles the Lambda entry points (packages/handlers/src/aws/lambda) with esbuild for the nodejs22.x runtime: one
// minified ESM file per function. Run before packing (`prepack`): the published package carries the bundles in
// `lambda/`, so a user synthesises the stack without esbuild or kubeplane's sources. Tests and the bench call
// bundleHandlers() into a directory of their own.
// By default the AWS SDK v3 is left to the runtime, which ships it (as CDK's NodejsFunction does): that keeps a
// bundle under 1 MB instead of about 2.5 MB. `awsSdk: 'bundled'` pins the exact SDK version we test against instead.
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundledPackageDirs } from '../../../scripts/third-party-licences.js';
import { FUNCTIONS, type FunctionName } from '../src/functions.js';

const entries = join(import.meta.dirname, '..', '..', 'handlers', 'src', 'aws', 'lambda');

/** A bundle: where it is, its size in bytes, and the directories of the npm packages it holds code of. */
export interface Bundle {
  dir: string;
  bytes: number;
  packages: string[];
}

/** Writes `<outDir>/<function>/index.mjs` for each function; returns each directory, bundle size and packages bundled. */
export async function bundleHandlers(outDir: string, options: { awsSdk?: 'runtime' | 'bundled' } = {}): Promise<Record<FunctionName, Bundle>> {
  const out = {} as Record<FunctionName, Bundle>;
  for (const [name, entry] of Object.entries(FUNCTIONS) as Array<[FunctionName, string]>) {
    const dir = join(outDir, entry);
    await mkdir(dir, { recursive: true });
    const result = await build({
      metafile: true,
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
    out[name] = { dir, bytes: (await stat(join(dir, 'index.mjs'))).size, packages: bundledPackageDirs(result.metafile) };
  }
  return out;
}
