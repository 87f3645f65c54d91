// The third-party clients the served-sandbox tests drive, found where Debian installs them (.ci/run installs
// them). A missing tool fails the test that needs it, with the package to install: it is never skipped.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runTool(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<ToolRun> {
  try {
    const { stdout, stderr } = await run(file, args, { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    if (typeof err.code !== 'number') throw e;
    return { code: err.code, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

async function onPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    if (await executable(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return undefined;
}

/** The Debian-installed tool first (/usr/bin), then PATH; throws naming the package when there is none. */
export async function requireTool(name: string, debianPackage: string): Promise<string> {
  const found = (await executable(`/usr/bin/${name}`)) ? `/usr/bin/${name}` : await onPath(name);
  if (!found) throw new Error(`${name} is required by this test and was not found: install the Debian package ${debianPackage} (.ci/run does)`);
  return found;
}

/** A python3 that can import the hcloud library (python3-hcloud installs it for Debian's /usr/bin/python3). */
export async function requirePythonWithHcloud(): Promise<string> {
  for (const candidate of ['/usr/bin/python3', await onPath('python3')]) {
    if (!candidate) continue;
    const r = await runTool(candidate, ['-c', 'import hcloud'], { PATH: process.env.PATH ?? '' }).catch(() => undefined);
    if (r?.code === 0) return candidate;
  }
  throw new Error('a python3 with the hcloud library is required by this test: install the Debian package python3-hcloud (.ci/run does)');
}

/** curl (Debian's) with `args`: the HTTP status and the body; throws when curl itself fails. */
export async function curl(args: string[]): Promise<{ status: number; body: string }> {
  const bin = await requireTool('curl', 'curl');
  const run = await runTool(bin, ['-sS', '-w', '\n%{http_code}', ...args], { PATH: process.env.PATH ?? '' });
  if (run.code !== 0) throw new Error(`curl exit ${run.code}: ${run.stderr}`);
  const cut = run.stdout.lastIndexOf('\n');
  return { status: Number(run.stdout.slice(cut + 1)), body: run.stdout.slice(0, cut) };
}
