// Runs the kubeplane CLI in-process and captures what it prints, as a person at a terminal would see it.
import { PassThrough } from 'node:stream';
import { main } from '../../packages/handlers/src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  out.on('data', (c: Buffer) => chunks.stdout.push(c));
  err.on('data', (c: Buffer) => chunks.stderr.push(c));
  const code = await main(argv, { stdout: out, stderr: err, cwd: options.cwd ?? process.cwd(), env: options.env ?? {} });
  return { code, stdout: Buffer.concat(chunks.stdout).toString('utf8'), stderr: Buffer.concat(chunks.stderr).toString('utf8') };
}
