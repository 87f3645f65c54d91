// `npm pack` / `npm publish` of @kubeplane/aws-cdk (what it prints goes to stderr: `npm pack --json` owns stdout): the package's own Lambda bundles, written afresh into lambda/,
// with lambda/THIRD-PARTY-LICENSES.md naming every npm package whose code the bundles hold, its version and licence
// (the licence texts are those packages' own, in their repositories; NOTICE points here).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { bundleHandlers } from './bundle.js';

const packageDir = join(import.meta.dirname, '..');
const outDir = join(packageDir, 'lambda');
// Built beside and then swapped in, so a reader of lambda/ (a test synthesising the stack) never sees it half-written.
const building = await mkdtemp(join(packageDir, '.lambda-'));
process.once('exit', () => rmSync(building, { recursive: true, force: true }));
const bundles = await bundleHandlers(building);
const used = new Map<string, { version: string; license: string; functions: string[] }>();
for (const b of Object.values(bundles)) {
  const fn = basename(b.dir);
  process.stderr.write(`lambda/${b.dir.slice(building.length + 1)}: ${(b.bytes / 1024).toFixed(0)} KiB, ${b.packages.length} packages\n`);
  for (const dir of b.packages) {
    const manifest = join(resolve(dir), 'package.json');
    if (!existsSync(manifest)) continue;
    const p = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string; license?: string; licenses?: Array<{ type: string }> };
    if (p.name.startsWith('@kubeplane/')) continue;
    const key = `${p.name}@${p.version}`;
    const entry = used.get(key) ?? { version: p.version, license: p.license ?? (p.licenses?.map((l) => l.type).join(' OR ') || 'UNKNOWN'), functions: [] };
    entry.functions.push(fn);
    used.set(key, entry);
  }
}
const unknown = [...used].filter(([, u]) => u.license === 'UNKNOWN').map(([k]) => k);
if (unknown.length > 0) throw new Error(`bundled packages with no licence field: ${unknown.join(', ')}`);
const rows = [...used]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([k, u]) => `| ${k.slice(0, k.lastIndexOf('@'))} | ${u.version} | ${u.license} | ${u.functions.join(', ')} |`);
await writeFile(
  join(building, 'THIRD-PARTY-LICENSES.md'),
  [
    '# Third-party code in these bundles',
    '',
    "Each function's index.mjs is kubeplane's code bundled with the npm packages below, minified. Each keeps its own",
    "licence (the package's `license` field here; the text is in the package as published on npm).",
    '',
    '| package | version | licence | in |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
await rm(outDir, { recursive: true, force: true });
await rename(building, outDir);
