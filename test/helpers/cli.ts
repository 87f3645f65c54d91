// Runs the kubeplane CLI in-process and captures what it prints, as a person at a terminal would see it.
import { PassThrough } from 'node:stream';
import { main } from '../../packages/handlers/src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `stdin`: what a person types, on a terminal (`isTTY`), for commands that ask (destroy on real clouds); without it the
 * command runs as from a script, with no terminal to ask on.
 */
export async function runCli(
  argv: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: { tty: boolean; typed: string } } = {},
): Promise<CliRun> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  out.on('data', (c: Buffer) => chunks.stdout.push(c));
  err.on('data', (c: Buffer) => chunks.stderr.push(c));
  let stdin: (PassThrough & { isTTY?: boolean }) | undefined;
  if (options.stdin) {
    stdin = Object.assign(new PassThrough(), { isTTY: options.stdin.tty });
    stdin.end(options.stdin.typed);
  }
  const code = await main(argv, { stdout: out, stderr: err, cwd: options.cwd ?? process.cwd(), env: options.env ?? {}, ...(stdin ? { stdin } : {}) });
  return { code, stdout: Buffer.concat(chunks.stdout).toString('utf8'), stderr: Buffer.concat(chunks.stderr).toString('utf8') };
}
