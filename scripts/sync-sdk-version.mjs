// After `changeset version`: writes the new version of @kubeplane/sdk into SDK_VERSION (packages/sdk/src/version.ts),
// the tag of the images kubeplane runs in clusters for itself; version.test.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync('packages/sdk/package.json', 'utf8'));
const file = 'packages/sdk/src/version.ts';
const text = readFileSync(file, 'utf8');
const next = text.replace(/export const SDK_VERSION = '[^']*';/, `export const SDK_VERSION = '${version}';`);
if (!next.includes(`SDK_VERSION = '${version}'`)) throw new Error(`${file}: no \`export const SDK_VERSION = '…';\` line to update`);
writeFileSync(file, next);
