// What an app that only validates manifests installs (issue 30): @kubeplane/sdk packed as it would be published,
// installed alone from the registry into a fresh project outside the repository, and the size of its node_modules,
// both as `du -sk` counts it (disk blocks) and in bytes, with the biggest packages named.
import { execFile } from 'node:child_process';
import { lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchResult } from './types.js';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

interface Size {
  /** Allocated blocks, in KiB, as `du -sk` prints them. */
  diskKiB: number;
  bytes: number;
}

async function sizeOf(path: string): Promise<Size> {
  const info = await lstat(path);
  const own = { diskKiB: info.blocks / 2, bytes: info.size };
  if (!info.isDirectory()) return own;
  for (const entry of await readdir(path)) {
    const child = await sizeOf(join(path, entry));
    own.diskKiB += child.diskKiB;
    own.bytes += child.bytes;
  }
  return own;
}

/** Each installed package (scoped ones by their full name) and its size. */
async function packages(modules: string): Promise<Array<{ name: string } & Size>> {
  const out: Array<{ name: string } & Size> = [];
  for (const entry of await readdir(modules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      for (const inner of await readdir(join(modules, entry))) out.push({ name: `${entry}/${inner}`, ...(await sizeOf(join(modules, entry, inner))) });
    } else {
      out.push({ name: entry, ...(await sizeOf(join(modules, entry))) });
    }
  }
  return out.sort((a, b) => b.bytes - a.bytes);
}

export async function run(): Promise<BenchResult[]> {
  // Outside the repository, so npm treats it as a project of its own and nothing resolves from the workspace.
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-validate-only-app-'));
  try {
    const { stdout } = await exec('npm', ['pack', '-w', 'packages/sdk', '--pack-destination', dir, '--silent'], { cwd: root });
    const tarball = stdout.trim().split('\n').pop() ?? '';
    const app = join(dir, 'app');
    await exec('mkdir', [app]);
    await writeFile(join(app, 'package.json'), `${JSON.stringify({ name: 'validate-only-app', private: true, type: 'module' })}\n`);
    await exec('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', join(dir, tarball)], { cwd: app });
    // The app runs: the installed package validates a manifest with nothing else present.
    await writeFile(join(app, 'check.mjs'), "import { validateManifestText } from '@kubeplane/sdk';\nconsole.log(validateManifestText('{}').ok);\n");
    const check = await exec(process.execPath, ['check.mjs'], { cwd: app });
    if (check.stdout.trim() !== 'false') throw new Error(`bench: the installed sdk did not run: ${check.stdout}${check.stderr}`);
    const modules = join(app, 'node_modules');
    const total = await sizeOf(modules);
    const list = await packages(modules);
    const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
    return [
      {
        name: 'install of a validate-only app (@kubeplane/sdk alone, from its packed tarball): du -sk node_modules',
        value: total.diskKiB,
        unit: 'KiB',
        note: `${mb(total.bytes)} of files in ${list.length} packages; ${list.map((p) => `${p.name} ${mb(p.bytes)}`).join(', ')}`,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
