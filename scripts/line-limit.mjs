// Fails when a production source line (packages/*/src, not tests or benchmarks) is longer than the limit: the
// formatter (biome.json, lineWidth 160) wraps code, but not long strings or comments, which are split by hand.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const LIMIT = 160;
const production = (name) => name.endsWith('.ts') && !/\.(test|bench)\.ts$/.test(name) && !name.endsWith('.d.ts');

const over = [];
for (const pkg of readdirSync('packages')) {
  const src = join('packages', pkg, 'src');
  let files;
  try {
    files = readdirSync(src, { recursive: true, encoding: 'utf8' });
  } catch {
    continue;
  }
  for (const file of files.filter((f) => production(f) && !f.split('/').includes('test-support') && !f.includes('/served-sandbox/sweep/'))) {
    const path = join(src, file);
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (line.length > LIMIT) over.push(`${path}:${i + 1}: ${line.length} characters`);
      });
  }
}
if (over.length > 0) {
  console.error(`${over.length} production line(s) longer than ${LIMIT} characters:\n${over.join('\n')}`);
  process.exit(1);
}
