// `npm pack` / `npm publish` of @kubeplane/gcp-terraform: the functions' bundle, written afresh into functions/ (the
// module's default bundle_dir), and THIRD-PARTY-LICENSES.md naming every npm package whose code it holds (NOTICE
// points there). What it prints goes to stderr: `npm pack --json` owns stdout.
import { rmSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeThirdPartyLicences } from '../../../scripts/third-party-licences.js';
import { bundleGcpFunctions } from './bundle.js';

const packageDir = join(import.meta.dirname, '..');
const building = await mkdtemp(join(packageDir, '.functions-'));
process.once('exit', () => rmSync(building, { recursive: true, force: true }));
const bundle = await bundleGcpFunctions(building);
process.stderr.write(`functions/index.js: ${(bundle.bytes / 1024).toFixed(0)} KiB, ${bundle.packages.length} packages\n`);
await writeThirdPartyLicences(
  packageDir,
  [{ name: 'functions/index.js', packages: bundle.packages }],
  "functions/index.js is kubeplane's code bundled with the npm packages below, minified; the Google clients and the\n" +
    'Functions Framework are not in it (Cloud Build installs them from functions/package.json). Each keeps its own\n' +
    "licence (the package's `license` field here; the text is in the package as published on npm).",
);
await rm(join(packageDir, 'functions'), { recursive: true, force: true });
await rename(building, join(packageDir, 'functions'));
