// The editor schemas, checked by a real JSON Schema validator (ajv, draft-07 as the YAML language server reads
// them): the committed files are the generated ones; every manifest `validate` accepts (Claudie's e2e sets, the
// examples, random variations of them) passes its schema; manifests with a structural fault are refused at the
// place `validate` names.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import {
  claudieManifestJsonSchema,
  MANIFEST_FORMATS,
  MANIFEST_SCHEMA_IDS,
  manifestJsonSchema,
  nativeManifestJsonSchema,
  type ManifestFormat,
} from './json-schema.js';
import { CLAUDIE_API_VERSION, NATIVE_API_VERSION } from './schema.js';
import { validateManifestObject, validateManifestText } from './validate.js';

const repo = join(import.meta.dirname, '..', '..', '..', '..');
const fixtures = join(repo, 'test', 'fixtures');

// Strict about unknown keywords (a misspelt one would silently check nothing); `required` inside oneOf naming
// properties defined beside it, and union types, are plain draft-07 that ajv's stricter modes flag.
const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
const validators: Record<ManifestFormat, ValidateFunction> = {
  native: ajv.compile(nativeManifestJsonSchema()),
  claudie: ajv.compile(claudieManifestJsonSchema()),
};

function formatOf(doc: unknown): ManifestFormat {
  const apiVersion = (doc as { apiVersion?: unknown }).apiVersion;
  if (apiVersion === NATIVE_API_VERSION) return 'native';
  if (apiVersion === CLAUDIE_API_VERSION) return 'claudie';
  throw new Error(`not a manifest: apiVersion ${String(apiVersion)}`);
}

/** Documents as the validator reads them (js-yaml, YAML 1.2 core schema). */
function documents(text: string): unknown[] {
  return loadAll(text, { schema: CORE_SCHEMA }).filter((d) => d !== null && d !== undefined);
}

function schemaErrors(doc: unknown, format = formatOf(doc)): ErrorObject[] {
  const validate = validators[format];
  return validate(doc) ? [] : [...(validate.errors ?? [])];
}

/** Where an ajv error points, written as the validator writes paths (`spec.nodePools.dynamic[1].count`). */
function location(e: ErrorObject): string {
  const steps = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = e.params as { missingProperty?: string; additionalProperty?: string; propertyName?: string };
  const extra = params.missingProperty ?? params.additionalProperty ?? params.propertyName;
  if (extra !== undefined) steps.push(extra);
  return steps.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `${i === 0 ? '' : '.'}${s}` : `[${JSON.stringify(s)}]`)).join('');
}

/** Claudie's testing framework fills in its machines' addresses before applying (see test/claudie-corpus.test.ts). */
function fillStaticEndpoints(text: string): string {
  let n = 0;
  return text.replace(/endpoint: replace-me$/gm, () => `endpoint: 192.0.2.${++n}`);
}

const yamlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();

describe('the JSON Schemas for editors', () => {
  it.each(MANIFEST_FORMATS)('docs/schema holds the current %s schema (regenerate: npx kubeplane schema --format <format> --out <file>)', (format) => {
    const { file } = MANIFEST_SCHEMA_IDS[format];
    const committed = readFileSync(join(repo, file), 'utf8');
    expect(committed, `${file} is stale; run: npx kubeplane schema --format ${format} --out ${file}`).toBe(
      `${JSON.stringify(manifestJsonSchema(format), null, 2)}\n`,
    );
  });

  it("gives storageDiskSize its document kind's default: 50 in Claudie documents, 0 in native ones", () => {
    const find = (node: unknown): { default?: number; description?: string } | undefined => {
      if (typeof node !== 'object' || node === null) return undefined;
      const o = node as Record<string, unknown>;
      const own = (o['properties'] as Record<string, unknown> | undefined)?.['storageDiskSize'];
      if (own) return own as { default?: number; description?: string };
      for (const v of Object.values(o)) {
        const found = find(v);
        if (found) return found;
      }
      return undefined;
    };
    const field = (format: 'native' | 'claudie') => find(manifestJsonSchema(format));
    expect(field('native')).toMatchObject({ default: 0, description: expect.stringContaining('default 0 in kubeplane.dev/v1 documents') });
    expect(field('claudie')).toMatchObject({ default: 50, description: expect.stringContaining('/opt/claudie/data') });
  });

  it('both are draft-07 schemas that ajv compiles, each with its own $id and title', () => {
    for (const format of MANIFEST_FORMATS) {
      const schema = manifestJsonSchema(format);
      expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(schema.$id).toBe(MANIFEST_SCHEMA_IDS[format].$id);
      expect(schema.title).toBe(MANIFEST_SCHEMA_IDS[format].title);
      expect(ajv.validateSchema(schema)).toBe(true);
    }
  });

  it('lets a native document name its JSON Schema in $schema, as editors read it', () => {
    const text = readFileSync(join(repo, 'examples', 'minimal.yaml'), 'utf8').replace(
      /^apiVersion:/m,
      '$schema: ../docs/schema/kubeplane.schema.json\napiVersion:',
    );
    const [doc] = documents(text);
    // The schema it names accepts the key (an editor flags nothing), and validate reads the manifest without a word.
    expect(validators.native(doc), JSON.stringify(validators.native.errors)).toBe(true);
    expect(validateManifestText(text).issues).toEqual([]);
    expect(Object.keys((nativeManifestJsonSchema() as { properties: object }).properties)).toContain('$schema');
  });

  it('describes every field, so an editor shows what each one is for', () => {
    const undescribed: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as { properties?: Record<string, unknown>; items?: unknown; anyOf?: unknown[] };
      for (const [key, child] of Object.entries(n.properties ?? {})) {
        if (typeof (child as { description?: unknown }).description !== 'string' && key !== 'kind') undescribed.push(`${path}.${key}`);
        walk(child, `${path}.${key}`);
      }
      walk(n.items, `${path}[]`);
      for (const alt of n.anyOf ?? []) walk(alt, path);
    };
    for (const format of MANIFEST_FORMATS) walk(manifestJsonSchema(format), format);
    expect(undescribed).toEqual([]);
  });

  it("follows Claudie's CRD for what it requires and enumerates", () => {
    interface Node {
      properties?: Record<string, Node>;
      items?: Node;
      required?: string[];
      enum?: unknown[];
    }
    /** The schema of the field at a dotted path; `[]` steps into a list's items. */
    const at = (path: string): Node => {
      let node = claudieManifestJsonSchema() as Node;
      for (const step of path.split('.')) {
        const next = step === '[]' ? node.items : node.properties?.[step];
        if (!next) throw new Error(`no ${step} in ${path}`);
        node = next;
      }
      return node;
    };
    // berops/claudie manifests/claudie/crd/claudie.io_inputmanifests.yaml: `required` of each object, and the enums.
    expect(at('spec.providers.[]').required).toEqual(['name', 'providerType', 'secretRef']);
    expect(at('spec.nodePools.dynamic.[]').required).toEqual(['name', 'providerSpec', 'serverType', 'image']);
    expect(at('spec.nodePools.dynamic.[].providerSpec').required).toEqual(['name', 'region']);
    expect(at('spec.nodePools.dynamic.[].taints.[]').required).toEqual(['key', 'effect']);
    expect(at('spec.nodePools.static.[]').required).toEqual(['name', 'nodes']);
    expect(at('spec.nodePools.static.[].nodes.[]').required).toEqual(['endpoint', 'secretRef']);
    expect(at('spec.kubernetes.clusters.[]').required).toEqual(['name', 'version', 'network', 'pools']);
    expect(at('spec.kubernetes.clusters.[].installationProxy').required).toEqual(['mode']);
    expect(at('spec.loadBalancers.roles.[]').required).toEqual(['name', 'protocol', 'port', 'targetPort', 'targetPools']);
    expect(at('spec.loadBalancers.clusters.[]').required).toEqual(['name', 'roles', 'dns', 'targetedK8s', 'pools']);
    expect(at('spec.loadBalancers.clusters.[].dns').required).toEqual(['dnsZone', 'provider']);
    expect(at('spec.loadBalancers.roles.[].protocol').enum).toEqual(['tcp', 'udp']);
    expect(at('spec.nodePools.dynamic.[].taints.[].effect').enum).toEqual(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
    expect(at('spec.kubernetes.clusters.[].installationProxy.mode').enum).toEqual(['on', 'off', 'default']);
    expect(at('spec.providers.[].providerType').enum).toEqual(
      expect.arrayContaining(['gcp', 'hetzner', 'aws', 'oci', 'azure', 'cloudflare', 'openstack', 'exoscale', 'cloudrift', 'verda', 'ovh']),
    );
  });
});

describe('manifests validate accepts pass their schema', () => {
  const e2e = yamlFiles(join(fixtures, 'claudie', 'e2e'));

  it.each(e2e)('Claudie e2e set %s passes the claudie schema', (file) => {
    const text = fillStaticEndpoints(readFileSync(join(fixtures, 'claudie', 'e2e', file), 'utf8'));
    expect(validateManifestText(text).errors).toEqual([]);
    const docs = documents(text);
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) expect(schemaErrors(doc, 'claudie')).toEqual([]);
  });

  const examples = yamlFiles(join(repo, 'examples'));
  it('the examples hold both kinds of document', () => {
    const formats = examples.flatMap((f) => documents(readFileSync(join(repo, 'examples', f), 'utf8')).map(formatOf));
    expect(formats).toContain('native');
    expect(formats).toContain('claudie');
  });

  it.each(examples)('examples/%s passes the schema of its kind', (file) => {
    const text = readFileSync(join(repo, 'examples', file), 'utf8');
    expect(validateManifestText(text).errors).toEqual([]);
    for (const doc of documents(text)) expect(schemaErrors(doc)).toEqual([]);
  });

  it('accepts a list written with no entries (`static:`), which validate reads as none', () => {
    const [minimal] = documents(readFileSync(join(repo, 'examples', 'minimal.yaml'), 'utf8'));
    const doc = structuredClone(minimal) as { nodePools: Record<string, unknown>; loadBalancers?: unknown };
    doc.nodePools.static = null;
    doc.loadBalancers = { roles: null, clusters: null };
    expect(validateManifestObject(doc).errors).toEqual([]);
    expect(schemaErrors(doc)).toEqual([]);
  });

  it('never refuses what validate accepts: every field of some accepted manifests removed, emptied or nulled', () => {
    const seeds = ['hybrid-aws-hetzner.yaml', 'static-and-dynamic.yaml', 'crusoe-cmk.yaml', 'claudie-bursting.yaml'].flatMap((f) =>
      documents(readFileSync(join(repo, 'examples', f), 'utf8')),
    );
    const edits: unknown[] = [undefined, null, [], {}, '', 0];
    let accepted = 0;
    const refused: string[] = [];
    for (const seed of seeds) {
      for (const path of leafAndNodePaths(seed)) {
        if (path.length === 0) continue;
        for (const v of edits) {
          const doc = structuredClone(seed);
          setAt(doc, path, v);
          if (!validateManifestObject(doc).ok) continue;
          accepted += 1;
          if (schemaErrors(doc).length > 0) refused.push(`${path.join('.')} = ${JSON.stringify(v) ?? '(removed)'}`);
        }
      }
    }
    expect(refused).toEqual([]);
    expect(accepted).toBeGreaterThan(100);
  });

  it('never refuses what validate accepts: random edits of accepted manifests (property test)', () => {
    const seeds = [
      ...examples.map((f) => readFileSync(join(repo, 'examples', f), 'utf8')),
      ...['autoscaling-1_1.yaml', 'proxy-with-hetzner_1.yaml', 'test-set2_1.yaml', 'rolling-update-2_1.yaml'].map((f) =>
        fillStaticEndpoints(readFileSync(join(fixtures, 'claudie', 'e2e', f), 'utf8')),
      ),
    ].flatMap(documents);
    const value = fc.oneof(
      fc.anything({ maxDepth: 1 }),
      fc.integer({ min: -2, max: 70000 }),
      fc.constantFrom(
        null,
        '',
        '0',
        'a',
        '1.34.2',
        'v1.34.2',
        ' 1.34.2 ',
        '10.0.0.0/8',
        '192.0.2.7',
        'x'.repeat(15),
        'x'.repeat(21),
        'a/b',
        'NoSchedule',
        'tcp',
        0,
        49,
        50,
        255,
        256,
        6443,
        [],
        {},
      ),
    );
    let accepted = 0;
    fc.assert(
      fc.property(fc.nat(), fc.nat(), value, fc.boolean(), (seedPick, pathPick, v, remove) => {
        const doc = structuredClone(seeds[seedPick % seeds.length]);
        const paths = leafAndNodePaths(doc);
        const path = paths[pathPick % paths.length] ?? [];
        if (path.length === 0) return;
        setAt(doc, path, remove ? undefined : v);
        if (!validateManifestObject(doc).ok) return;
        accepted += 1;
        expect(schemaErrors(doc), `validate accepts ${JSON.stringify(path)} ${remove ? 'removed' : `= ${JSON.stringify(v)}`}`).toEqual([]);
      }),
      { numRuns: 400, seed: 15 },
    );
    // The property says something only if edits that validate accepts were tried.
    expect(accepted).toBeGreaterThan(40);
  });
});

type Step = string | number;

function leafAndNodePaths(value: unknown, prefix: Step[] = []): Step[][] {
  const out: Step[][] = [prefix];
  if (Array.isArray(value)) for (const [i, v] of value.entries()) out.push(...leafAndNodePaths(v, [...prefix, i]));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...leafAndNodePaths(v, [...prefix, k]));
  return out;
}

function setAt(root: unknown, path: Step[], v: unknown): void {
  let parent = root as Record<Step, unknown>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<Step, unknown>;
  const last = path[path.length - 1] as Step;
  if (v === undefined && Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (v === undefined) delete parent[last];
  else parent[last] = v;
}

/** Faults of one field's type, presence, enum, range or form: the schema alone sees them. */
const STRUCTURAL = {
  'invalid-claudie': [
    'missing-region.yaml',
    'missing-server-type.yaml',
    'dns-zone-missing.yaml',
    'provider-type-unknown.yaml',
    'role-protocol.yaml',
    'role-without-targets.yaml',
    'taint-bad-effect.yaml',
    'taint-bad-key.yaml',
    'taint-bad-value.yaml',
    'label-bad-key.yaml',
    'label-bad-value.yaml',
    'annotation-bad-key.yaml',
    'proxy-mode-invalid.yaml',
    'count-over-255.yaml',
    'count-and-autoscaler.yaml',
    'storage-disk-size.yaml',
    'secretref-without-namespace.yaml',
    'static-endpoint-not-ip.yaml',
    'network-not-cidr.yaml',
    'version-without-patch.yaml',
    'pool-name-too-long.yaml',
    'provider-name-too-long.yaml',
    'cluster-name-too-long.yaml',
    'lb-name-too-long.yaml',
  ],
  invalid: [
    'count-not-a-number.yaml',
    'count-zero.yaml',
    'claudie-count-zero.yaml',
    'count-over-255.yaml',
    'autoscaler-max-over-255.yaml',
    'no-count-no-autoscaler.yaml',
    'missing-image.yaml',
    'unknown-field-typo.yaml',
    'role-protocol-invalid.yaml',
    'taint-bad-effect.yaml',
    'provider-type-unknown.yaml',
    'provider-type-retired.yaml',
    'provider-name-not-dns1123.yaml',
    'secretref-empty.yaml',
    'secretref-two-forms.yaml',
    'secretref-missing-namespace.yaml',
    'static-endpoint-not-ipv4.yaml',
    'storage-disk-too-small.yaml',
    'network-not-a-cidr.yaml',
    'version-unquoted-number.yaml',
    'version-without-patch.yaml',
    'label-bad-key.yaml',
    'label-value-too-long.yaml',
    'pool-name-too-long.yaml',
  ],
} as const;

describe('manifests with a structural fault are refused by their schema, where validate points', () => {
  const cases = Object.entries(STRUCTURAL).flatMap(([dir, files]) => files.map((file) => [`${dir}/${file}`] as const));
  it.each(cases)('%s', (name) => {
    const text = readFileSync(join(fixtures, name), 'utf8');
    const expected = /^# expect: (.+?) :: /m.exec(text)?.[1];
    expect(expected, `${name} needs an "# expect:" line`).toBeDefined();
    expect(validateManifestText(text).errors.map((e) => e.path)).toContain(expected);
    const [doc] = documents(text);
    const locations = schemaErrors(doc).map(location);
    expect(locations.length, `${name}: the schema accepts it`).toBeGreaterThan(0);
    expect(
      locations.some((l) => relates(l, expected ?? '')),
      `${name}: schema errors at ${locations.join(', ')}; validate: ${expected}`,
    ).toBe(true);
  });
});

/** The schema's error is at the field validate names, at a field under it, or at the object holding it. */
function relates(schemaPath: string, validatorPath: string): boolean {
  if (schemaPath === validatorPath || schemaPath.startsWith(`${validatorPath}.`) || schemaPath.startsWith(`${validatorPath}[`)) return true;
  const parent = validatorPath.replace(/(\.[^.[\]]+|\[[^\]]+\])$/, '');
  return schemaPath === parent;
}
