// The package.json a published package carries: the workspace's own export condition (`@kubeplane/source`, which
// points at src/*.ts for this repository's tests and tools) is left out, as is any export that only it served (the
// sandbox's `./testing`). npm has no publishConfig for `exports`, so each package's prepack runs `strip` (the file
// is kept beside as .package.json.packing) and postpack runs `restore`. A pack that failed half-way is restored by
// the next `strip` before anything else.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const CONDITION = '@kubeplane/source';
const file = 'package.json';
const kept = '.package.json.packing';

/** `exports` without the workspace condition; an entry left with no target is dropped. */
export function publishedExports(exports) {
  const out = {};
  for (const [path, target] of Object.entries(exports)) {
    if (typeof target === 'string') {
      out[path] = target;
      continue;
    }
    const conditions = Object.fromEntries(Object.entries(target).filter(([condition]) => condition !== CONDITION));
    if (Object.keys(conditions).length > 0) out[path] = conditions;
  }
  return out;
}

const mode = process.argv[2];
if (mode === 'strip') {
  if (existsSync(kept)) renameSync(kept, file);
  const text = readFileSync(file, 'utf8');
  const manifest = JSON.parse(text);
  writeFileSync(kept, text);
  if (manifest.exports) manifest.exports = publishedExports(manifest.exports);
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(kept)) renameSync(kept, file);
} else if (mode !== undefined) {
  process.stderr.write(`pack-manifest: strip or restore, not ${mode}\n`);
  process.exit(2);
}
