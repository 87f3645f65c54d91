// Reading a manifest text is linear in its size (issue 15, item 9): validation of a manifest whose one pool has
// 50,000 labels, from YAML text, against the time to read the same text as JSON (the floor of any reader).
// Before the fix, the YAML parser's duplicate-key check compared every key with every other one: 84 s for 40,000.
// The last row keeps the reason the sdk reads YAML with js-yaml (issue 30): the `yaml` library, which it used to carry
// as well, only parsing the same text (no duplicate-key check, no values), next to js-yaml parsing and building values.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateManifestText } from '@kubeplane/sdk';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { parseAllDocuments } from 'yaml';
import type { BenchResult } from './types.js';

const LABELS = 50_000;

function manifestWithLabels(count: number): string {
  const base = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
  const labels = Array.from({ length: count }, (_, i) => `        team-${i}.example.com/owner: "group-${i}"`).join('\n');
  const text = base.replace(/(\n\s+- name: workers\n)/, `$1      labels:\n${labels}\n`);
  if (text === base) throw new Error('bench: the workers pool of examples/minimal.yaml was not found');
  return text;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function time(fn: () => void, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

export async function run(): Promise<BenchResult[]> {
  const text = manifestWithLabels(LABELS);
  const check = validateManifestText(text, { file: 'labels.yaml' });
  if (!check.ok) throw new Error(`bench manifest invalid: ${check.errors[0]?.message ?? ''}`);
  if (Object.keys(check.manifests[0]?.nodePools.dynamic[1]?.labels ?? {}).length !== LABELS) throw new Error('bench: labels were not read');
  const validate = time(() => validateManifestText(text, { file: 'labels.yaml' }), 5);
  const json = JSON.stringify({ labels: check.manifests[0]?.nodePools.dynamic[1]?.labels });
  const floor = time(() => JSON.parse(json), 5);
  // An error among the labels makes the line map be built too: the slow path, still linear.
  const broken = text.replace('team-7.example.com/owner: "group-7"', 'team-7.example.com/owner: "not a label value"');
  const withError = time(() => validateManifestText(broken, { file: 'labels.yaml' }), 3);
  const jsYaml = time(() => loadAll(text, { schema: CORE_SCHEMA }), 3);
  const yamlLibrary = time(() => parseAllDocuments(text, { uniqueKeys: false }), 3);
  return [
    {
      name: `validate a manifest with ${LABELS.toLocaleString('en')} label keys from YAML (median of 5)`,
      value: validate,
      unit: 'ms',
      target: '< 1000 ms',
      note: `${(text.length / 1024).toFixed(0)} KiB; JSON.parse of the labels alone: ${floor.toFixed(1)} ms`,
    },
    { name: 'same, with one bad label value (line numbers mapped; median of 3)', value: withError, unit: 'ms' },
    {
      name: 'the same text parsed by the `yaml` library, uniqueKeys off (the alternative the sdk dropped; median of 3)',
      value: yamlLibrary,
      unit: 'ms',
      note: `js-yaml reads it into values (what the sdk does) in ${jsYaml.toFixed(0)} ms`,
    },
  ];
}
