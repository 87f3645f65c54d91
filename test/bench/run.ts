// `npm run bench`: runs every benchmark file (`*.bench.ts` beside the code, or in test/bench/), prints one
// table and writes the figures to bench-results.json. Benchmarks measure; they never assert on time.
import { readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchResult, BenchModule } from './types.js';

const root = join(import.meta.dirname, '..', '..');

async function findBenchFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await findBenchFiles(path)));
    else if (entry.name.endsWith('.bench.ts')) out.push(path);
  }
  return out.sort();
}

const filter = process.argv[2];
const files = [...(await findBenchFiles(join(root, 'packages'))), ...(await findBenchFiles(join(root, 'test')))].filter((f) => !filter || f.includes(filter));

const all: Array<BenchResult & { file: string }> = [];
for (const file of files) {
  const mod = (await import(pathToFileURL(file).href)) as BenchModule;
  const rel = relative(root, file);
  process.stderr.write(`bench: ${rel}\n`);
  for (const result of await mod.run()) all.push({ ...result, file: rel });
}

const rows = all.map((r) => [r.name, `${formatNumber(r.value)} ${r.unit}`, r.target ?? '', r.note ?? '']);
const header = ['benchmark', 'result', 'target', 'note'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of rows) console.log(line(row.map(String)));

await writeFile(join(root, 'bench-results.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, results: all }, null, 2)}\n`);
console.log(`\nwrote bench-results.json (${all.length} figures)`);

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 3 : 1);
}
