// `npm pack` / `npm publish` of @kubeplane/aws-cdk: the package's own Lambda bundles, written afresh into lambda/, with
// lambda/THIRD-PARTY-LICENSES.md naming every npm package whose code they hold, its version and licence (NOTICE
// points there). What it prints goes to stderr: `npm pack --json` owns stdout.
import { rmSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeThirdPartyLicences } from '../../../scripts/third-party-licences.js';
import { bundleHandlers } from './bundle.js';

const packageDir = join(import.meta.dirname, '..');
const outDir = join(packageDir, 'lambda');
// Built beside and then swapped in, so a reader of lambda/ (a test synthesising the stack) never sees it half-written.
const building = await mkdtemp(join(packageDir, '.lambda-'));
process.once('exit', () => rmSync(building, { recursive: true, force: true }));
const bundles = await bundleHandlers(building);
for (const b of Object.values(bundles)) process.stderr.write(`lambda/${basename(b.dir)}: ${(b.bytes / 1024).toFixed(0)} KiB, ${b.packages.length} packages\n`);
await writeThirdPartyLicences(
  building,
  Object.values(bundles).map((b) => ({ name: basename(b.dir), packages: b.packages })),
  "Each function's index.mjs is kubeplane's code bundled with the npm packages below, minified. Each keeps its own\n" +
    "licence (the package's `license` field here; the text is in the package as published on npm).",
);
await rm(outDir, { recursive: true, force: true });
await rename(building, outDir);
