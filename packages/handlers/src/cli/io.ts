// What a CLI command may touch: its output streams, working directory and environment. Commands take
// this instead of `process` so tests run them in-process and read what they print.
import { escapeControl } from '@kubeplane/sdk/errors';

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * Aborted on the first Ctrl-C (SIGINT) or SIGTERM: apply and destroy then finish the step in hand, save, and
   * return EXIT.interrupted. The bin script sets it; in-process callers may.
   */
  signal?: AbortSignal;
  /** Where a command asks a person (destroy's confirmation on real clouds); it asks only when this is a terminal. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** The exit codes (docs/cli.md). */
export const EXIT = {
  ok: 0,
  /** Something failed, a cluster is not where it was asked to be, resources are left, or a name is unknown. */
  failed: 1,
  /** The command line is wrong: the usage line says how. */
  usage: 2,
  /** Stopped by Ctrl-C or SIGTERM after finishing the step in hand; run the same command again to continue. */
  interrupted: 130,
} as const;

export type Command = (argv: string[], io: CliIo) => Promise<number>;

/** Writes a message (not data: kubeconfigs and schemas are written as they are), its control characters escaped. */
export function print(stream: NodeJS.WritableStream, text: string): void {
  stream.write(escapeControl(text));
}

/** One message line; see print. */
export function println(stream: NodeJS.WritableStream, text = ''): void {
  print(stream, text.endsWith('\n') ? text : `${text}\n`);
}

/** A usage error: printed with the command's usage line, exit code 2. */
export class UsageError extends Error {}
