// Reads manifests from YAML (one or many documents), JSON or a plain object into the typed model.
// Each list element is checked on its own, so one broken pool does not hide the errors of the others,
// and the names of broken elements are kept so references to them are not reported twice.
import { z } from 'zod';
import { LineCounter, parseAllDocuments } from 'yaml';
import { formatPath, type Path, type ValidationIssue } from './issues.js';
import {
  CLAUDIE_API_VERSION,
  CLAUDIE_KIND,
  clusterSchema,
  dynamicPoolSchema,
  lbClusterSchema,
  lbRoleSchema,
  metadataSchema,
  NATIVE_API_VERSION,
  NATIVE_KIND,
  providerSchema,
  staticPoolSchema,
  type Manifest,
} from './schema.js';
import { YamlSourceMap } from './source-map.js';

/** The lists of a manifest, by their path under the spec. */
export const MANIFEST_LISTS = {
  providers: { path: ['providers'], schema: providerSchema },
  dynamic: { path: ['nodePools', 'dynamic'], schema: dynamicPoolSchema },
  static: { path: ['nodePools', 'static'], schema: staticPoolSchema },
  clusters: { path: ['kubernetes', 'clusters'], schema: clusterSchema },
  roles: { path: ['loadBalancers', 'roles'], schema: lbRoleSchema },
  lbClusters: { path: ['loadBalancers', 'clusters'], schema: lbClusterSchema },
} as const;
export type ManifestList = keyof typeof MANIFEST_LISTS;

/** For each list, the original index of every element kept in the model (broken ones are left out). */
export type ElementPositions = Record<ManifestList, number[]>;

export interface ParsedDocument {
  /** Null when the document could not be read as a manifest at all. */
  manifest: Manifest | null;
  issues: ValidationIssue[];
  positions: ElementPositions;
  /** Names of elements left out for structural errors; references to them are not reported again. */
  brokenNames: Record<ManifestList, Set<string>>;
  /** Pools named by clusters or load balancers left out, so those pools are not reported unused. */
  poolsReferencedByBroken: Set<string>;
  /** `['spec']` for Claudie documents, `[]` for native ones. */
  pathPrefix: Path;
  file?: string;
  sourceMap?: YamlSourceMap;
}

export interface ParseOptions {
  /** Shown in every issue as `file:line`. */
  file?: string;
}

/** Parses YAML or JSON text (JSON is YAML); a multi-document stream gives one result per document. */
export function parseManifestText(text: string, options: ParseOptions = {}): ParsedDocument[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (!Array.isArray(docs)) {
    // An empty stream: parseAllDocuments returns an EmptyStream.
    return [emptyFailure('the file holds no manifest document', options.file)];
  }
  const results: ParsedDocument[] = [];
  for (const doc of docs) {
    if (doc.contents === null && doc.errors.length === 0) continue; // a blank document between `---`
    if (doc.errors.length > 0) {
      const failure = emptyFailure('', options.file);
      failure.issues = doc.errors.map((e) => ({
        severity: 'error' as const,
        path: '(document)',
        message: `YAML syntax: ${e.message.split('\n')[0]}`,
        ...(options.file ? { file: options.file } : {}),
        ...lineOf(lines, e.pos[0]),
      }));
      // Later syntax errors are usually echoes of the first; one precise line is more useful than five.
      failure.issues = failure.issues.slice(0, 1);
      results.push(failure);
      continue;
    }
    const sourceMap = new YamlSourceMap(doc, lines);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      // Unresolved aliases and alias bombs surface only when the document is turned into values.
      const failure = emptyFailure(`YAML: ${(e as Error).message}`, options.file);
      results.push(failure);
      continue;
    }
    const parsed = parseManifestObject(value, options);
    parsed.sourceMap = sourceMap;
    attachPositions(parsed.issues, sourceMap, options.file);
    results.push(parsed);
  }
  if (results.length === 0) return [emptyFailure('the file holds no manifest document', options.file)];
  return results;
}

function lineOf(lines: LineCounter, offset: number): { line?: number; column?: number } {
  const pos = lines.linePos(offset);
  return pos.line > 0 ? { line: pos.line, column: pos.col } : {};
}

/** Parses a plain object (a document already read by the caller). */
export function parseManifestObject(value: unknown, options: ParseOptions = {}): ParsedDocument {
  const result = emptyFailure('', options.file);
  result.issues = [];
  const issues = result.issues;
  const fail = (path: Path, message: string) => issues.push({ severity: 'error', path: formatPath(path), message });

  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail([], 'a manifest must be a mapping with apiVersion, kind and metadata');
    return result;
  }
  const doc = value as Record<string, unknown>;
  let body: Record<string, unknown>;
  let source: Manifest['source'];
  let prefix: Path;
  if (doc.apiVersion === NATIVE_API_VERSION) {
    if (doc.kind !== NATIVE_KIND) fail(['kind'], `kind must be ${NATIVE_KIND} for apiVersion ${NATIVE_API_VERSION}`);
    source = 'kubeplane';
    prefix = [];
    body = doc;
    checkKeys(doc, ['$schema', 'apiVersion', 'kind', 'metadata', ...SPEC_KEYS], [], fail);
  } else if (doc.apiVersion === CLAUDIE_API_VERSION) {
    if (doc.kind !== CLAUDIE_KIND) fail(['kind'], `kind must be ${CLAUDIE_KIND} for apiVersion ${CLAUDIE_API_VERSION}`);
    source = 'claudie';
    prefix = ['spec'];
    checkKeys(doc, ['apiVersion', 'kind', 'metadata', 'spec', 'status'], [], fail);
    if (typeof doc.spec !== 'object' || doc.spec === null || Array.isArray(doc.spec)) {
      fail(['spec'], 'spec is required: a mapping with providers, nodePools, kubernetes and loadBalancers');
      return result;
    }
    body = doc.spec as Record<string, unknown>;
    checkKeys(body, SPEC_KEYS, ['spec'], fail);
  } else {
    fail(
      ['apiVersion'],
      doc.apiVersion === undefined
        ? `apiVersion is required: ${NATIVE_API_VERSION} (kind ${NATIVE_KIND}) or ${CLAUDIE_API_VERSION} (kind ${CLAUDIE_KIND})`
        : `apiVersion "${String(doc.apiVersion)}" is not supported; use ${NATIVE_API_VERSION} (kind ${NATIVE_KIND}) or ${CLAUDIE_API_VERSION} (kind ${CLAUDIE_KIND})`,
    );
    return result;
  }
  result.pathPrefix = prefix;

  const meta = metadataSchema.safeParse(doc.metadata, { error: explainIssue });
  if (!meta.success) pushZodIssues(issues, meta.error, ['metadata']);

  const lists = {} as Record<ManifestList, unknown[]>;
  for (const [key, list] of Object.entries(MANIFEST_LISTS) as Array<[ManifestList, (typeof MANIFEST_LISTS)[ManifestList]]>) {
    const parent = list.path.length === 2 ? body[list.path[0]] : body;
    const parentPath = [...prefix, ...list.path.slice(0, -1)];
    if (list.path.length === 2 && parent !== undefined && (typeof parent !== 'object' || parent === null || Array.isArray(parent))) {
      if (key === 'dynamic' || key === 'clusters' || key === 'roles') fail(parentPath, `${String(list.path[0])} must be a mapping`);
      lists[key] = [];
      continue;
    }
    if (list.path.length === 2 && parent && key !== 'static' && key !== 'lbClusters') {
      const allowed = key === 'dynamic' ? ['dynamic', 'static'] : key === 'clusters' ? ['clusters'] : ['roles', 'clusters'];
      checkKeys(parent as Record<string, unknown>, allowed, parentPath, fail);
    }
    const raw = parent === undefined ? undefined : (parent as Record<string, unknown>)[list.path[list.path.length - 1] as string];
    const listPath = [...prefix, ...list.path];
    if (raw === undefined || raw === null) {
      lists[key] = [];
      continue;
    }
    if (!Array.isArray(raw)) {
      fail(listPath, `${formatPath(list.path)} must be a list`);
      lists[key] = [];
      continue;
    }
    const kept: unknown[] = [];
    raw.forEach((element, index) => {
      const r = list.schema.safeParse(element, { error: explainIssue });
      if (r.success) {
        kept.push(r.data);
        result.positions[key].push(index);
      } else {
        pushZodIssues(issues, r.error, [...listPath, index]);
        const name = (element as { name?: unknown } | null)?.name;
        if (typeof name === 'string') result.brokenNames[key].add(name);
        for (const ref of poolReferences(key, element)) result.poolsReferencedByBroken.add(ref);
      }
    });
    lists[key] = kept;
  }

  const metadata = (meta.success ? meta.data : { name: '' }) as { name: string; namespace?: string; labels?: Record<string, string> };
  result.manifest = {
    source,
    name: metadata.name,
    ...(metadata.namespace !== undefined ? { namespace: metadata.namespace } : {}),
    labels: metadata.labels ?? {},
    providers: lists.providers as Manifest['providers'],
    nodePools: { dynamic: lists.dynamic as Manifest['nodePools']['dynamic'], static: lists.static as Manifest['nodePools']['static'] },
    kubernetes: { clusters: lists.clusters as Manifest['kubernetes']['clusters'] },
    loadBalancers: { roles: lists.roles as Manifest['loadBalancers']['roles'], clusters: lists.lbClusters as Manifest['loadBalancers']['clusters'] },
  };
  if (options.file) for (const i of issues) i.file = options.file;
  return result;
}

const SPEC_KEYS = ['providers', 'nodePools', 'kubernetes', 'loadBalancers'];

/** Pool names a (possibly malformed) cluster, load balancer or role element refers to. */
function poolReferences(list: ManifestList, element: unknown): string[] {
  const e = (element ?? {}) as Record<string, unknown>;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  if (list === 'clusters') {
    const pools = (e.pools ?? {}) as Record<string, unknown>;
    return [...strings(pools.control), ...strings(pools.compute)];
  }
  if (list === 'lbClusters') return strings(e.pools);
  return [];
}

function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], path: Path, fail: (p: Path, m: string) => void): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail([...path, key], unknownFieldMessage(key, allowed));
  }
}

function unknownFieldMessage(key: string, allowed: readonly string[]): string {
  const suggestion = closest(key, allowed);
  return `unknown field "${key}"${suggestion ? `; did you mean "${suggestion}"?` : `; allowed here: ${allowed.join(', ')}`}`;
}

function emptyFailure(message: string, file?: string): ParsedDocument {
  const empty = <T>(make: () => T) =>
    Object.fromEntries(Object.keys(MANIFEST_LISTS).map((k) => [k, make()])) as Record<ManifestList, T>;
  return {
    manifest: null,
    issues: message ? [{ severity: 'error', path: '(document)', message, ...(file ? { file } : {}) }] : [],
    positions: empty(() => [] as number[]),
    brokenNames: empty(() => new Set<string>()),
    poolsReferencedByBroken: new Set<string>(),
    pathPrefix: [],
    ...(file ? { file } : {}),
  };
}

/** Adds line and column to issues whose path resolves in the source. */
export function attachPositions(issues: ValidationIssue[], map: YamlSourceMap, file?: string): void {
  for (const issue of issues) {
    if (issue.line !== undefined) continue;
    const pos = map.locate(parsePath(issue.path));
    if (pos) {
      issue.line = pos.line;
      issue.column = pos.column;
    }
    if (file) issue.file = file;
  }
}

/** The inverse of formatPath. */
export function parsePath(text: string): Path {
  const out: Array<string | number> = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  for (const m of text.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(`"${m[3]}"`) as string);
  }
  return text === '(document)' ? [] : out;
}

function pushZodIssues(issues: ValidationIssue[], error: z.ZodError, base: Path): void {
  // A misspelt required field shows as "unknown field" plus "is required"; report the typo only.
  const typoFixes = new Set<string>();
  for (const iss of error.issues) {
    if (iss.code !== 'unrecognized_keys') continue;
    for (const key of iss.keys) {
      const fix = closest(key, KNOWN_FIELDS);
      if (fix) typoFixes.add(formatPath([...iss.path.map(String), fix]));
    }
  }
  for (const iss of error.issues) {
    if (iss.code === 'invalid_type' && iss.input === undefined && typoFixes.has(formatPath(iss.path.map(String)))) continue;
    const path: Path = [...base, ...(iss.path as PropertyKey[]).map((p) => (typeof p === 'symbol' ? String(p) : p))];
    let message = iss.message;
    if (iss.code === 'unrecognized_keys') {
      // One issue per unknown key, each pointing at the key itself.
      for (const key of iss.keys) {
        issues.push({ severity: 'error', path: formatPath([...path, key]), message: `unknown field "${key}"` + suggestFor(key) });
      }
      continue;
    }
    if (iss.code === 'invalid_type' && message.startsWith('__required__')) {
      message = `${String(path[path.length - 1])} is required`;
    }
    issues.push({ severity: 'error', path: formatPath(path), message });
  }
}

function suggestFor(key: string): string {
  const s = closest(key, KNOWN_FIELDS);
  return s ? `; did you mean "${s}"?` : '';
}

const KNOWN_FIELDS: string[] = [
  ...new Set([
    ...Object.keys(dynamicPoolSchema.shape),
    ...Object.keys(staticPoolSchema.shape),
    ...Object.keys(clusterSchema.shape),
    ...Object.keys(providerSchema.shape),
    ...Object.keys(lbRoleSchema.shape),
    ...Object.keys(lbClusterSchema.shape),
    ...['region', 'zone', 'externalNetworkName', 'min', 'max', 'control', 'compute', 'dnsZone', 'provider', 'hostname'],
    ...['alternativeNames', 'cpuCount', 'memory', 'nvidiaGpuCount', 'nvidiaGpuType', 'endpoint', 'username', 'key', 'value'],
    ...['effect', 'proxyProtocol', 'stickySessions', 'apiAllowedCidrs', 'sshAllowedCidrs', 'strategy', 'maxSurge'],
    ...['secretsAtRest', 'mode', 'noProxy', 'namespace', 'env', 'file', 'awsSecretsManager'],
  ]),
];

/** The allowed word within edit distance 2 of `word` (a likely typo), if any. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j] ?? 0;
      prev[j] = Math.min((prev[j] ?? 0) + 1, (prev[j - 1] ?? 0) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length] ?? 0;
}

/** zod's messages, rewritten to say what to write. */
export function explainIssue(iss: z.core.$ZodRawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_type': {
      if (iss.input === undefined) return '__required__';
      const got = Array.isArray(iss.input) ? 'a list' : iss.input === null ? 'null' : typeof iss.input === 'object' ? 'a mapping' : `${typeof iss.input} ${JSON.stringify(iss.input)}`;
      const want =
        iss.expected === 'int' || iss.expected === 'number' ? 'a whole number' : iss.expected === 'array' ? 'a list' : iss.expected === 'object' || iss.expected === 'record' ? 'a mapping' : `a ${iss.expected}`;
      return `must be ${want}, not ${got}`;
    }
    case 'too_small':
      if (iss.origin === 'array') return `needs at least ${String(iss.minimum)} entr${Number(iss.minimum) === 1 ? 'y' : 'ies'}`;
      return undefined;
    case 'invalid_value':
      return `must be ${iss.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    default:
      return undefined;
  }
}
