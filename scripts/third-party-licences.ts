// The third-party code in a bundle that a package ships (the Lambda bundles of @kubeplane/aws-cdk, the Cloud
// Functions bundle of @kubeplane/gcp-terraform): from esbuild's metafile, each npm package whose files went in, with
// its version and licence, written as THIRD-PARTY-LICENSES.md beside the bundles. NOTICE points at it.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Metafile } from 'esbuild';

/** The directories of the npm packages whose files are inputs of a build (`…/node_modules/<name>`). */
export function bundledPackageDirs(metafile: Metafile): string[] {
  const dirs = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.slice(at))?.[1];
    if (name) dirs.add(`${input.slice(0, at)}node_modules/${name}`);
  }
  return [...dirs].sort();
}

/**
 * Writes `<dir>/THIRD-PARTY-LICENSES.md`: one row per package (name, version, licence, the bundles it is in). Throws
 * when a package names no licence, so nothing ships whose terms are unknown.
 */
export async function writeThirdPartyLicences(dir: string, bundles: Array<{ name: string; packages: string[] }>, intro: string): Promise<void> {
  const used = new Map<string, { version: string; license: string; bundles: string[] }>();
  for (const b of bundles) {
    for (const pkgDir of b.packages) {
      const manifest = join(resolve(pkgDir), 'package.json');
      if (!existsSync(manifest)) continue;
      const p = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string; license?: string; licenses?: Array<{ type: string }> };
      if (p.name.startsWith('@kubeplane/')) continue;
      const key = `${p.name}@${p.version}`;
      const entry = used.get(key) ?? { version: p.version, license: p.license ?? (p.licenses?.map((l) => l.type).join(' OR ') || 'UNKNOWN'), bundles: [] };
      entry.bundles.push(b.name);
      used.set(key, entry);
    }
  }
  const unknown = [...used].filter(([, u]) => u.license === 'UNKNOWN').map(([k]) => k);
  if (unknown.length > 0) throw new Error(`bundled packages with no licence field: ${unknown.join(', ')}`);
  const rows = [...used]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, u]) => `| ${k.slice(0, k.lastIndexOf('@'))} | ${u.version} | ${u.license} | ${u.bundles.join(', ')} |`);
  const text = ['# Third-party code in these bundles', '', intro, '', '| package | version | licence | in |', '|---|---|---|---|', ...rows, ''].join('\n');
  await writeFile(join(dir, 'THIRD-PARTY-LICENSES.md'), text);
}
