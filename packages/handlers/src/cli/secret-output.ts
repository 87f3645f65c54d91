// Writes a document that holds credentials (a kubeconfig) where the user asked, readable by the owner only:
// to --out FILE, or to standard output — made 0600 first when it is a regular file (`kubeplane kubeconfig > file`).
import { fstatSync, fchmodSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIo } from './io.js';

const PRIVATE = 0o600;

/** The file descriptor behind a stream, when it has one (process.stdout, an fs.WriteStream once open). */
function fdOf(stream: NodeJS.WritableStream): number | undefined {
  const fd = (stream as { fd?: unknown }).fd;
  return typeof fd === 'number' ? fd : undefined;
}

/**
 * `out` relative to the working directory, created or replaced with mode 0600 (an existing file is chmod'ed before
 * a byte is written, since open() keeps the mode of a file it does not create); standard output otherwise.
 */
export async function writeSecretDocument(io: CliIo, text: string, out?: string): Promise<void> {
  if (out !== undefined) {
    const file = await open(resolve(io.cwd, out), 'w', PRIVATE);
    try {
      await file.chmod(PRIVATE);
      await file.writeFile(text);
    } finally {
      await file.close();
    }
    return;
  }
  const fd = fdOf(io.stdout);
  // A shell's `>` creates the file with the umask's mode (0644 usually) before kubeplane starts: narrow it first.
  // A terminal, pipe or socket has no mode worth changing.
  if (fd !== undefined && fstatSync(fd).isFile()) fchmodSync(fd, PRIVATE);
  io.stdout.write(text);
}
