// The Lambda bundles this package ships: lambda/<function>/index.mjs beside dist/, written by scripts/prepack.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FUNCTIONS, type FunctionBundle, type FunctionName } from './functions.js';

/** The package's own directory: dist/ or src/ sit one level below it. */
const packageDir = join(import.meta.dirname, '..');

/**
 * The bundle directory of each function as this package ships them. Throws, naming the directory, when they are
 * missing: a source checkout has none until `npm run bundle -w packages/aws-cdk` (packing writes them too).
 */
export function packagedBundles(): Record<FunctionName, FunctionBundle> {
  const out = {} as Record<FunctionName, FunctionBundle>;
  for (const [name, dir] of Object.entries(FUNCTIONS) as Array<[FunctionName, string]>) {
    const path = join(packageDir, 'lambda', dir);
    if (!existsSync(join(path, 'index.mjs'))) {
      throw new Error(
        `@kubeplane/aws-cdk: no Lambda bundle at ${join(path, 'index.mjs')}; in a source checkout, run \`npm run bundle -w packages/aws-cdk\` first`,
      );
    }
    out[name] = { dir: path };
  }
  return out;
}
