// What each kind of user installs (issue 30, issue 39), from the packages packed as they would be published and
// installed into fresh projects outside the repository: an app that only validates manifests (@kubeplane/sdk alone);
// the CLI without Google or the sandbox (sdk, providers, handlers; the optional peers left out); and what a Lambda
// function ships (@kubeplane/aws-cdk's bundle, with its dependencies inside). Sizes as `du -sk` counts them (disk
// blocks) and in bytes, the number of packages, and the biggest named; each against the target set in issue 39.
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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

const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;

/** Installs `tarballs` (file names in `dir`) into a fresh project `dir/<name>`; the size of its node_modules. */
async function installed(dir: string, name: string, tarballs: string[]) {
  const app = join(dir, name);
  await mkdir(app);
  await writeFile(join(app, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module' })}\n`);
  await exec('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', ...tarballs.map((t) => join(dir, t))], { cwd: app });
  const modules = join(app, 'node_modules');
  return { app, total: await sizeOf(modules), list: await packages(modules) };
}

export async function run(): Promise<BenchResult[]> {
  // Outside the repository, so npm treats each as a project of its own and nothing resolves from the workspace.
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-install-size-'));
  try {
    const packed = await exec(
      'npm',
      ['pack', '--json', '-w', 'packages/sdk', '-w', 'packages/providers', '-w', 'packages/handlers', '-w', 'packages/aws-cdk', '--pack-destination', dir],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    const tarball = Object.fromEntries((JSON.parse(packed.stdout) as Array<{ name: string; filename: string }>).map((t) => [t.name, t.filename]));
    const of = (...names: string[]) => names.map((n) => tarball[n] ?? '');
    const out: BenchResult[] = [];

    const validateOnly = await installed(dir, 'validate-only-app', of('@kubeplane/sdk'));
    // The app runs: the installed package validates a manifest with nothing else present.
    await writeFile(
      join(validateOnly.app, 'check.mjs'),
      "import { validateManifestText } from '@kubeplane/sdk';\nconsole.log(validateManifestText('{}').ok);\n",
    );
    const check = await exec(process.execPath, ['check.mjs'], { cwd: validateOnly.app });
    if (check.stdout.trim() !== 'false') throw new Error(`bench: the installed sdk did not run: ${check.stdout}${check.stderr}`);
    out.push({
      name: 'install of a validate-only app (@kubeplane/sdk alone, from its packed tarball): du -sk node_modules',
      value: validateOnly.total.diskKiB,
      unit: 'KiB',
      target: '<= 16,384 KiB, <= 8 packages',
      note: `${mb(validateOnly.total.bytes)} of files in ${validateOnly.list.length} packages; ${validateOnly.list.map((p) => `${p.name} ${mb(p.bytes)}`).join(', ')}`,
    });

    const cli = await installed(dir, 'cli-app', of('@kubeplane/sdk', '@kubeplane/providers', '@kubeplane/handlers'));
    const version = await exec(process.execPath, [join(cli.app, 'node_modules', '@kubeplane', 'handlers', 'bin', 'kubeplane.js'), '--version'], {
      cwd: cli.app,
    });
    if (!/^\d+\.\d+\.\d+/.test(version.stdout)) throw new Error(`bench: the installed CLI did not run: ${version.stdout}${version.stderr}`);
    const google = cli.list.filter((p) => /^@google-cloud\/|^google-|^@kubeplane\/sandbox$|^msw$/.test(p.name)).map((p) => p.name);
    if (google.length > 0) throw new Error(`bench: the CLI install holds optional packages: ${google.join(', ')}`);
    out.push({
      name: 'install of the CLI without Google or the sandbox (sdk, providers, handlers tarballs): du -sk node_modules',
      value: cli.total.diskKiB,
      unit: 'KiB',
      target: '<= 102,400 KiB, <= 200 packages',
      note: `${mb(cli.total.bytes)} of files in ${cli.list.length} packages (was 178 MB, 363 packages, with the sandbox and Google); biggest: ${cli.list
        .slice(0, 8)
        .map((p) => `${p.name} ${mb(p.bytes)}`)
        .join(', ')}`,
    });

    // A Lambda function ships one bundle with its dependencies inside; the AWS SDK is the nodejs22.x runtime's.
    await exec('tar', ['xzf', join(dir, tarball['@kubeplane/aws-cdk'] ?? ''), '-C', dir]);
    const bundles = join(dir, 'package', 'lambda');
    const licences = await readFile(join(bundles, 'THIRD-PARTY-LICENSES.md'), 'utf8');
    for (const fn of ['step', 'api', 'dead-letter', 'watchdog']) {
      const size = await sizeOf(join(bundles, fn, 'index.mjs'));
      const inside = licences.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| package') && l.includes(fn)).length;
      out.push({
        name: `Lambda bundle ${fn} (from the packed @kubeplane/aws-cdk; AWS SDK from the runtime)`,
        value: size.bytes / 1024,
        unit: 'KiB',
        target: '<= 1,024 KiB',
        note: `${inside} npm packages inside, nothing to install beside it`,
      });
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
