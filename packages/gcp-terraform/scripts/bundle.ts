// Bundles the Cloud Functions entry module with esbuild for the nodejs22 runtime: one minified ESM file, index.js,
// and a package.json naming what Cloud Build installs beside it (https://cloud.google.com/functions/docs/writing/specifying-dependencies-nodejs).
// functions-framework stays outside the bundle: the entry module registers its functions with the framework's http(),
// which must be the very instance the runtime starts. The Google clients stay outside too: google-gax reads its
// protos' JSON from its own directory at run time, which a bundle would not carry; Cloud Build installs the exact
// versions the tests run against (packages/handlers/package.json's devDependencies).
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundledPackageDirs } from '../../../scripts/third-party-licences.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The module that registers kubeplaneStep, kubeplaneApi and kubeplaneWatchdog (packages/handlers/src/gcp/functions.ts). */
export const GCP_ENTRY = join(repo, 'packages', 'handlers', 'src', 'gcp', 'functions.ts');
/** What Cloud Build installs: the framework and the clients left out of the bundle, at the versions we test. */
export const INSTALLED = [
  '@google-cloud/functions-framework',
  '@google-cloud/firestore',
  '@google-cloud/secret-manager',
  '@google-cloud/tasks',
  'google-auth-library',
] as const;

export interface GcpBundle {
  dir: string;
  bytes: number;
  /** The directories of the npm packages bundled into index.js. */
  packages: string[];
  /** The package.json written beside index.js. */
  manifest: { name: string; type: 'module'; main: 'index.js'; engines: { node: string }; dependencies: Record<string, string> };
}

/** Writes `<outDir>/index.js` and `<outDir>/package.json` (what main.tf zips as the functions' source). */
export async function bundleGcpFunctions(outDir: string, options: { entry?: string } = {}): Promise<GcpBundle> {
  await mkdir(outDir, { recursive: true });
  // The exact versions the tests run against: the handlers' devDependencies (its published range is an optional peer).
  const pinned = (JSON.parse(await readFile(join(repo, 'packages', 'handlers', 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
    .devDependencies;
  const dependencies: Record<string, string> = {};
  for (const name of INSTALLED) {
    const version = pinned[name];
    if (!version) throw new Error(`packages/handlers/package.json has no devDependency ${name}, which the Cloud Functions bundle installs`);
    dependencies[name] = version;
  }
  const result = await build({
    metafile: true,
    entryPoints: [options.entry ?? GCP_ENTRY],
    outfile: join(outDir, 'index.js'),
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    conditions: ['@kubeplane/source'],
    // ssh2's optional native speed-ups (as in the Lambda bundles), and what Cloud Build installs; google-gax and
    // @grpc/* come with the clients.
    external: [...INSTALLED, 'google-gax', '@grpc/*', 'cpu-features', '*.node'],
    // Some dependencies still call require(); give the ESM bundle one.
    banner: { js: "import{createRequire as __kpRequire}from'node:module';const require=__kpRequire(import.meta.url);" },
    logLevel: 'error',
  });
  const manifest: GcpBundle['manifest'] = { name: 'kubeplane-functions', type: 'module', main: 'index.js', engines: { node: '22' }, dependencies };
  await writeFile(join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir: outDir, bytes: (await stat(join(outDir, 'index.js'))).size, packages: bundledPackageDirs(result.metafile), manifest };
}
