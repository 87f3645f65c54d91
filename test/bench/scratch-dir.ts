// A scratch folder for a benchmark inside the repository's node_modules/.cache, where a bundler resolving from it
// finds the workspace's packages as a user's project would. The cache folder is made first: a fresh clone has none.
import { mkdir, mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';

/** A new empty folder `<root>/node_modules/.cache/<prefix>XXXXXX`; the caller removes it. */
export async function benchScratchDir(root: string, prefix: string): Promise<string> {
  const cache = join(root, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  return mkdtemp(join(cache, prefix));
}
