// What a CLI command may touch: its output streams, working directory and environment. Commands take
// this instead of `process` so tests run them in-process and read what they print.
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export type Command = (argv: string[], io: CliIo) => Promise<number>;

export function println(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** A usage error: printed with the command's usage line, exit code 2. */
export class UsageError extends Error {}
