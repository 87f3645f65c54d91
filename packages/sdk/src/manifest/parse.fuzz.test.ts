// Property-based tests: random mutations of valid manifests never make the parser throw (it returns a
// validation result), and any valid manifest round-trips through parse -> serialize -> parse unchanged.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse as parseYaml, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { serializeManifest } from './serialize.js';
import { validateManifestObject, validateManifestText, type ValidationResult } from './validate.js';

const examples = join(import.meta.dirname, '..', '..', '..', '..', 'examples');
const seeds = ['hybrid-aws-hetzner.yaml', 'claudie-bursting.yaml', 'static-and-dynamic.yaml', 'autoscaled.yaml'].map(
  (f) => parseYaml(readFileSync(join(examples, f), 'utf8')) as unknown,
);

type Json = unknown;
type PathStep = string | number;

function allPaths(value: Json, prefix: PathStep[] = []): PathStep[][] {
  const out: PathStep[][] = [prefix];
  if (Array.isArray(value)) for (const [i, v] of value.entries()) out.push(...allPaths(v, [...prefix, i]));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...allPaths(v, [...prefix, k]));
  return out;
}

type Mutation = { kind: 'delete' } | { kind: 'set'; value: Json } | { kind: 'duplicate' } | { kind: 'rename'; key: string };

function applyMutation(root: Json, path: PathStep[], m: Mutation): Json {
  const copy = structuredClone(root);
  if (path.length === 0) return m.kind === 'set' ? m.value : copy;
  let parent = copy as Record<PathStep, Json>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<PathStep, Json>;
  const last = path[path.length - 1] as PathStep;
  if (m.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (m.kind === 'set') parent[last] = m.value;
  else if (m.kind === 'duplicate' && Array.isArray(parent)) parent.push(structuredClone(parent[Number(last)]));
  else if (m.kind === 'rename' && !Array.isArray(parent)) {
    parent[m.key] = parent[last];
    delete parent[last];
  }
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant<Mutation>({ kind: 'delete' }),
  fc.constant<Mutation>({ kind: 'duplicate' }),
  fc.string({ maxLength: 12 }).map<Mutation>((key) => ({ kind: 'rename', key })),
  fc
    .oneof(
      fc.anything({ maxDepth: 2 }),
      fc.integer({ min: -1000, max: 100000 }),
      fc.constantFrom('', '0', '1.3', '6443', 'null', '10.0.0.0/8', 'a'.repeat(80), '-x-', 'v1.34.0', 'control'),
    )
    .map<Mutation>((value) => ({ kind: 'set', value })),
);

function expectWellFormed(r: ValidationResult): void {
  expect(typeof r.ok).toBe('boolean');
  for (const issue of r.issues) {
    expect(typeof issue.path).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
    expect(['error', 'warning']).toContain(issue.severity);
  }
  expect(r.ok).toBe(r.errors.length === 0);
}

describe('the manifest parser under random mutation', () => {
  it('returns a validation result for any mutation of a valid manifest, as an object and as YAML', () => {
    const arb = fc
      .constantFrom(...seeds)
      .chain((seed) => fc.tuple(fc.constant(seed), fc.constantFrom(...allPaths(seed)), fc.array(mutation, { minLength: 1, maxLength: 3 })));
    fc.assert(
      fc.property(arb, ([seed, path, mutations]) => {
        let doc = seed;
        for (const m of mutations) doc = applyMutation(doc, path, m);
        expectWellFormed(validateManifestObject(doc));
        let text: string;
        try {
          text = stringify(doc);
        } catch {
          return; // not representable as YAML (e.g. a symbol key); nothing to parse
        }
        // A document mutated to `undefined` has no YAML text (stringify gives undefined): nothing to parse
        // (seed -535454156, path 179).
        if (typeof text !== 'string') return;
        expectWellFormed(validateManifestText(text, { file: 'fuzz.yaml' }));
      }),
      { numRuns: 400 },
    );
  });

  it('returns a validation result for arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme-ascii', maxLength: 400 }), fc.json()), (text) => {
        expectWellFormed(validateManifestText(text));
      }),
      { numRuns: 300 },
    );
  });
});

// A generator of valid native manifests: up to three clusters of up to three pools each, with random names,
// counts, autoscaler ranges, labels and taints.
const dnsLabel = (max: number) => fc.stringMatching(new RegExp(`^[a-z][a-z0-9-]{0,${max - 2}}[a-z0-9]$`)).filter((s) => s.length <= max && !s.includes('--'));
const labelKey = fc.tuple(fc.constantFrom('', 'example.com/', 'kubeplane.dev/'), fc.stringMatching(/^[a-z][a-z0-9.-]{0,10}[a-z0-9]$/)).map(([p, n]) => p + n);
const labelValue = fc.stringMatching(/^([A-Za-z0-9]([A-Za-z0-9._-]{0,10}[A-Za-z0-9])?)?$/);

const validManifest = fc
  .record({
    name: dnsLabel(20),
    clusters: fc.uniqueArray(dnsLabel(12), { minLength: 1, maxLength: 3 }),
    poolNames: fc.uniqueArray(dnsLabel(14), { minLength: 6, maxLength: 9 }),
    sizes: fc.array(
      fc.oneof(
        fc.integer({ min: 1, max: 9 }).map((count) => ({ count })),
        fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 5 })).map(([min, extra]) => ({ autoscaler: { min, max: min + extra + 1 } })),
      ),
      { minLength: 9, maxLength: 9 },
    ),
    labels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
    taintEffect: fc.constantFrom('NoSchedule', 'PreferNoSchedule', 'NoExecute'),
    minor: fc.integer({ min: 30, max: 36 }),
    patch: fc.integer({ min: 0, max: 20 }),
  })
  .map((r) => {
    const dynamic: Record<string, unknown>[] = [];
    const clusters = r.clusters.map((cluster, ci) => {
      const control = r.poolNames[ci * 2] as string;
      const compute = r.poolNames[ci * 2 + 1] as string;
      dynamic.push({ name: control, providerSpec: { name: 'aws-1', region: 'eu-central-1' }, count: 1, serverType: 't3.medium', image: 'ami-1' });
      dynamic.push({
        name: compute,
        providerSpec: { name: 'htz-1', region: 'fsn1', zone: 'fsn1-dc14' },
        ...(r.sizes[ci] ?? { count: 1 }),
        serverType: 'cpx31',
        image: 'ubuntu-24.04',
        labels: r.labels,
        taints: [{ key: 'example.com/dedicated', value: 'batch', effect: r.taintEffect }],
      });
      return { name: cluster, version: `1.${r.minor}.${r.patch}`, network: `10.${ci}.0.0/24`, pools: { control: [control], compute: [compute] } };
    });
    return {
      apiVersion: 'kubeplane.dev/v1',
      kind: 'Manifest',
      metadata: { name: r.name },
      providers: [
        { name: 'aws-1', providerType: 'aws', secretRef: { env: { accesskey: 'AWS_ACCESS_KEY_ID', secretkey: 'AWS_SECRET_ACCESS_KEY' } } },
        { name: 'htz-1', providerType: 'hetzner', secretRef: { env: { credentials: 'HCLOUD_TOKEN' } } },
      ],
      nodePools: { dynamic },
      kubernetes: { clusters },
    };
  });

describe('round trips', () => {
  it('a valid manifest parses, serializes and parses again to the same model (YAML and JSON)', () => {
    fc.assert(
      fc.property(validManifest, fc.constantFrom<'yaml' | 'json'>('yaml', 'json'), (doc, format) => {
        const first = validateManifestObject(doc);
        expect(first.errors).toEqual([]);
        const manifest = first.manifests[0];
        if (!manifest) throw new Error('no manifest');
        const second = validateManifestText(serializeManifest(manifest, format));
        expect(second.errors).toEqual([]);
        expect(second.manifests[0]).toEqual(manifest);
      }),
      { numRuns: 200 },
    );
  });

  it('every example round-trips unchanged, Claudie documents included', () => {
    for (const seed of seeds) {
      const m = validateManifestObject(seed).manifests[0];
      if (!m) throw new Error('no manifest');
      expect(validateManifestText(serializeManifest(m)).manifests[0]).toEqual(m);
    }
  });
});
