// Reads manifests from YAML (one or many documents), JSON or a plain object into the typed model.
// Each list element is checked on its own, so one broken pool does not hide the errors of the others,
// and the names of broken elements are kept so references to them are not reported twice.
import type * as z from 'zod';
import { CORE_SCHEMA, constructFromEvents, parseEvents, YAMLException, type Event } from 'js-yaml';
import { formatPath, locatedIssue, type Path, type ValidationIssue } from './issues.js';
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
import { StreamSourceMaps, type SourceLocator } from './source-map.js';

/** The lists of a manifest, by their path under the spec. */
export const MANIFEST_LISTS = {
  providers: { path: ['providers'], schema: providerSchema },
  dynamic: { path: ['nodePools', 'dynamic'], schema: dynamicPoolSchema },
  static: { path: ['nodePools', 'static'], schema: staticPoolSchema },
  clusters: { path: ['kubernetes', 'clusters'], schema: clusterSchema },
  roles: { path: ['loadBalancers', 'roles'], schema: lbRoleSchema },
  lbClusters: { path: ['loadBalancers', 'clusters'], schema: lbClusterSchema },
} as const;
/** The name of one of a manifest's lists. */
export type ManifestList = keyof typeof MANIFEST_LISTS;

/** For each list, the original index of every element kept in the model (broken ones are left out). */
export type ElementPositions = Record<ManifestList, number[]>;

/** A manifest document as parsed: the manifest, its issues, and what is needed to locate them in the file. */
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
  sourceMap?: SourceLocator;
  /** Set when the document is another kind of object (a Claudie TemplateGitReference, a Secret): its kind. */
  otherKind?: string;
}

/** How a manifest is parsed: the file name to report and the size limits. */
export interface ParseOptions {
  /**
   * The file the text was read from, shown in every issue of text as `file:line`. Issues of an object
   * (parseManifestObject, validateManifestObject) have no line, so they name no file either.
   */
  file?: string;
  /** Tighter (or looser) limits than MANIFEST_LIMITS, e.g. an API's body size. */
  limits?: Partial<ManifestLimits>;
}

/**
 * Limits on one manifest text, checked before anything else is done with it, so a hostile or broken input
 * costs bounded time and memory (the API and the CLI both read through here).
 */
export interface ManifestLimits {
  /** Size of the text in bytes (UTF-8). */
  bytes: number;
  /** Nesting of mappings and lists. */
  depth: number;
  /** Mapping keys and list entries in the whole stream (aliases counted as often as they are used). */
  keys: number;
  /** `*alias` references per document. */
  aliases: number;
}

export const MANIFEST_LIMITS: ManifestLimits = { bytes: 4 * 1024 * 1024, depth: 64, keys: 250_000, aliases: 100 };

/** Parses YAML or JSON text (JSON is YAML); a multi-document stream gives one result per document. */
export function parseManifestText(text: string, options: ParseOptions = {}): ParsedDocument[] {
  const limits = { ...MANIFEST_LIMITS, ...options.limits };
  const size = Buffer.byteLength(text, 'utf8');
  if (size > limits.bytes) {
    return [emptyFailure(`the manifest is ${formatBytes(size)}; at most ${formatBytes(limits.bytes)} is accepted (size limit)`, options.file, TEXT_START)];
  }
  // js-yaml reads the text in one linear pass into events that carry source offsets, refusing deep nesting as it
  // goes; values are built from those events (refusing duplicate keys and alias bombs), and the same events give
  // the line of any issue (source-map.ts), so the text is parsed once. It is the sdk's one YAML library because of
  // test/bench/manifest-parse.bench.ts (50,000 label keys, this machine): validation 0.50-0.55 s, 0.59-0.67 s with an
  // error to map to its line, where the `yaml` library's parser alone takes 1.1-1.4 s (and its duplicate-key check is
  // quadratic: 6.3 s for 10,000 keys); mapping lines with `yaml` made that error case 2.2 s.
  let events: Event[];
  let values: unknown[];
  try {
    events = parseEvents(text, { maxDepth: limits.depth });
    values = constructFromEvents(events, { source: text, schema: CORE_SCHEMA, maxAliases: limits.aliases });
  } catch (e) {
    return [yamlFailure(e, text, limits, options.file)];
  }
  const budget = { left: limits.keys };
  for (const value of values) {
    if (!withinKeyBudget(value, budget, 0, limits.depth)) {
      return [
        emptyFailure(
          `the manifest holds more than ${limits.keys.toLocaleString('en')} keys and list entries ` +
            `(aliases counted each time they are used); split it into several manifests (keys limit)`,
          options.file,
          TEXT_START,
        ),
      ];
    }
  }
  const maps = new StreamSourceMaps(text, events);
  const results: ParsedDocument[] = [];
  values.forEach((value, index) => {
    if (value === null || value === undefined) return; // a blank document between `---`
    const parsed = parseManifestObject(value);
    parsed.sourceMap = maps.forDocument(index);
    if (options.file !== undefined) parsed.file = options.file;
    if (parsed.issues.length > 0) attachPositions(parsed.issues, parsed.sourceMap, options.file);
    results.push(parsed);
  });
  if (results.length === 0) return [emptyFailure('the file holds no manifest document', options.file, TEXT_START)];
  // Other documents beside manifests (a Claudie TemplateGitReference, a Secret) are skipped with a warning.
  if (results.some((r) => r.manifest !== null)) {
    for (const r of results) {
      if (r.otherKind === undefined) continue;
      for (const issue of r.issues) {
        issue.severity = 'warning';
        issue.message = `${issue.message}; this document is skipped`;
      }
    }
  }
  return results;
}

/** Counts keys and entries down to the budget; stops early, so an alias bomb costs at most the budget. */
function withinKeyBudget(value: unknown, budget: { left: number }, depth: number, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth > maxDepth) return false;
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  budget.left -= children.length;
  if (budget.left < 0) return false;
  for (const child of children) if (!withinKeyBudget(child, budget, depth + 1, maxDepth)) return false;
  return true;
}

function yamlFailure(e: unknown, text: string, limits: ManifestLimits, file?: string): ParsedDocument {
  if (!(e instanceof YAMLException)) {
    // js-yaml documents that any exception may escape on broken input; none may reach the user as a stack.
    return emptyFailure('YAML: the text could not be read as YAML', file, TEXT_START);
  }
  let message = `YAML syntax: ${e.reason}`;
  if (e.reason.startsWith('duplicated mapping key')) {
    const key = e.mark ? keyAt(text, e.mark.position) : '';
    message = `duplicate key${key ? ` "${key}"` : ''}: a mapping may hold each key once`;
  } else if (e.reason.startsWith('nesting exceeded maxDepth')) {
    message = `the manifest is nested more than ${limits.depth} levels deep (depth limit)`;
  } else if (e.reason.startsWith('aliases exceeded maxAliases')) {
    message = `the manifest uses more than ${limits.aliases} YAML aliases (*name) in one document (alias limit)`;
  }
  return emptyFailure(message, file, e.mark ? { line: e.mark.line + 1, column: e.mark.column + 1 } : TEXT_START);
}

/** The key written at `offset` (where js-yaml marks a duplicate), without quotes. */
function keyAt(text: string, offset: number): string {
  const m = /^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^:#\n]*?))\s*:/.exec(text.slice(offset, offset + 300));
  return (m?.[1] ?? m?.[2]?.replace(/''/g, "'") ?? m?.[3] ?? '').trim();
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(0)} KiB` : `${n} bytes`;
}

/** Parses a plain object (a document already read by the caller); its issues have no file or line (there is no text). */
export function parseManifestObject(value: unknown): ParsedDocument {
  const result = emptyFailure('');
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
  } else if (doc.apiVersion === CLAUDIE_API_VERSION && typeof doc.kind === 'string' && doc.kind !== CLAUDIE_KIND && CLAUDIE_OTHER_KINDS[doc.kind]) {
    // One line that says what the file is, instead of every field of it reported as unknown.
    result.otherKind = doc.kind;
    fail(
      ['kind'],
      `this is a Claudie ${doc.kind} (${CLAUDIE_OTHER_KINDS[doc.kind]}), not a manifest; kubeplane reads InputManifest documents ` +
        `(apiVersion ${CLAUDIE_API_VERSION}, kind ${CLAUDIE_KIND}) or its own (apiVersion ${NATIVE_API_VERSION}, kind ${NATIVE_KIND})`,
    );
    return result;
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
    // A document saved from the cluster (`kubectl get inputmanifest -o yaml`) carries what Claudie's operator wrote.
    if (doc.status !== undefined && doc.status !== null)
      issues.push({
        severity: 'warning',
        path: 'status',
        message: "status is what Claudie's operator wrote about this InputManifest; kubeplane reads nothing from it (see kubeplane status)",
      });
  } else if (typeof doc.apiVersion === 'string' && typeof doc.kind === 'string' && doc.kind !== '' && doc.kind !== NATIVE_KIND && doc.kind !== CLAUDIE_KIND) {
    // Another Kubernetes object (a Secret for the credentials, a Namespace) kept in the same file.
    result.otherKind = doc.kind;
    fail(
      ['kind'],
      `this is a Kubernetes ${doc.kind} (apiVersion ${doc.apiVersion}), not a manifest; kubeplane reads ` +
        `apiVersion ${NATIVE_API_VERSION} (kind ${NATIVE_KIND}) or ${CLAUDIE_API_VERSION} (kind ${CLAUDIE_KIND})`,
    );
    return result;
  } else {
    fail(
      ['apiVersion'],
      doc.apiVersion === undefined
        ? `apiVersion is required: ${NATIVE_API_VERSION} (kind ${NATIVE_KIND}) or ${CLAUDIE_API_VERSION} (kind ${CLAUDIE_KIND})`
        : `apiVersion "${String(doc.apiVersion)}" is not supported; use ${NATIVE_API_VERSION} ` +
            `(kind ${NATIVE_KIND}) or ${CLAUDIE_API_VERSION} (kind ${CLAUDIE_KIND})`,
    );
    return result;
  }
  result.pathPrefix = prefix;

  const meta = metadataSchema.safeParse(doc.metadata, { error: explainIssue });
  if (!meta.success) pushZodIssues(issues, meta.error, ['metadata'], metadataSchema);

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
        pushZodIssues(issues, r.error, [...listPath, index], list.schema);
        const name = (element as { name?: unknown } | null)?.name;
        if (typeof name === 'string') result.brokenNames[key].add(name);
        for (const ref of poolReferences(key, element)) result.poolsReferencedByBroken.add(ref);
      }
    });
    lists[key] = kept;
  }

  const metadata = (meta.success ? meta.data : { name: '' }) as {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  result.manifest = {
    source,
    name: metadata.name,
    ...(metadata.namespace !== undefined ? { namespace: metadata.namespace } : {}),
    labels: metadata.labels ?? {},
    ...(metadata.annotations !== undefined ? { annotations: metadata.annotations } : {}),
    providers: lists.providers as Manifest['providers'],
    nodePools: { dynamic: lists.dynamic as Manifest['nodePools']['dynamic'], static: lists.static as Manifest['nodePools']['static'] },
    kubernetes: { clusters: lists.clusters as Manifest['kubernetes']['clusters'] },
    loadBalancers: { roles: lists.roles as Manifest['loadBalancers']['roles'], clusters: lists.lbClusters as Manifest['loadBalancers']['clusters'] },
  };
  return result;
}

const SPEC_KEYS = ['providers', 'nodePools', 'kubernetes', 'loadBalancers'];

/**
 * Claudie's other kinds in claudie.io/v1beta1, and what they are (berops/claudie manifests/claudie/crd:
 * claudie.io_templategitreferences.yaml, claudie.io_settings.yaml).
 */
const CLAUDIE_OTHER_KINDS: Record<string, string> = {
  TemplateGitReference: "a git repository of Claudie's OpenTofu and Ansible templates; kubeplane renders its own and ignores providers[].templatesRef",
  Setting: 'Claudie operator settings; kubeplane has no operator to configure',
  Settings: 'Claudie operator settings; kubeplane has no operator to configure',
};

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
  if (suggestion) return `unknown field "${key}"; did you mean "${suggestion}"?`;
  return allowed.length > 0 ? `unknown field "${key}" here; allowed here: ${allowed.join(', ')}` : `unknown field "${key}"`;
}

/** Where an issue about a whole text (its size, a YAML error with no mark) is shown: where the text starts. */
const TEXT_START = { line: 1, column: 1 } as const;

/**
 * A document that could not be read as a manifest, with one issue about it: at `at` in the text it came from (and
 * in `file`), or, for an object, nowhere.
 */
function emptyFailure(message: string, file?: string, at?: { line: number; column: number }): ParsedDocument {
  const empty = <T>(make: () => T) => Object.fromEntries(Object.keys(MANIFEST_LISTS).map((k) => [k, make()])) as Record<ManifestList, T>;
  const finding = { severity: 'error', path: '(document)', message } as const;
  return {
    manifest: null,
    issues: message ? [at ? locatedIssue(finding, at, file) : finding] : [],
    positions: empty(() => [] as number[]),
    brokenNames: empty(() => new Set<string>()),
    poolsReferencedByBroken: new Set<string>(),
    pathPrefix: [],
    ...(at && file !== undefined ? { file } : {}),
  };
}

/**
 * Puts each issue not yet located at the line and column of its path in the source (the nearest part of the path
 * the text holds), in `file`; an issue whose document the source does not hold stays without file or line.
 */
export function attachPositions(issues: ValidationIssue[], map: SourceLocator, file?: string): void {
  issues.forEach((issue, i) => {
    if (issue.line !== undefined) return;
    const pos = map.locate(parsePath(issue.path));
    if (pos) issues[i] = locatedIssue(issue, pos, file);
  });
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

function pushZodIssues(issues: ValidationIssue[], error: z.ZodError, base: Path, schema: z.ZodType): void {
  const keyPath = (p: readonly PropertyKey[]) => p.map((k) => (typeof k === 'symbol' ? String(k) : k));
  // A misspelt required field shows as "unknown field" plus "is required"; report the typo only.
  const typoFixes = new Set<string>();
  for (const iss of error.issues) {
    if (iss.code !== 'unrecognized_keys') continue;
    const allowed = allowedKeysAt(schema, keyPath(iss.path)) ?? [];
    for (const key of iss.keys) {
      const fix = closest(key, allowed);
      if (fix) typoFixes.add(formatPath([...keyPath(iss.path), fix]));
    }
  }
  for (const iss of error.issues) {
    if (iss.code === 'invalid_type' && iss.input === undefined && typoFixes.has(formatPath(keyPath(iss.path)))) continue;
    const path: Path = [...base, ...keyPath(iss.path)];
    let message = iss.message;
    if (iss.code === 'unrecognized_keys') {
      // One issue per unknown key, each pointing at the key itself.
      const allowed = allowedKeysAt(schema, keyPath(iss.path)) ?? [];
      for (const key of iss.keys) {
        issues.push({ severity: 'error', path: formatPath([...path, key]), message: unknownFieldMessage(key, allowed) });
      }
      continue;
    }
    if (iss.code === 'invalid_type' && message.startsWith('__required__')) {
      message = `${fieldName(path)} is required`;
    } else if (/^(must|may|needs) /.test(message)) {
      // Our sentences start with the verb; the field they concern goes first.
      message = `${fieldName(path)} ${message}`;
    }
    issues.push({ severity: 'error', path: formatPath(path), message });
  }
}

/** `port`, or `targetPools[0]` for a list entry. */
function fieldName(path: Path): string {
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    const parent = path[path.length - 2];
    return `${typeof parent === 'string' ? parent : 'entry'}[${last}]`;
  }
  return last === undefined ? 'the document' : String(last);
}

interface ZodDefLike {
  type?: string;
  innerType?: unknown;
  shape?: Record<string, unknown>;
  element?: unknown;
  valueType?: unknown;
  in?: unknown;
}

/** The field names a strict object of `schema` allows at `path`, for suggestions; undefined when unknown. */
function allowedKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] | undefined {
  const def = (s: unknown): ZodDefLike | undefined => (s as { _zod?: { def?: ZodDefLike } } | undefined)?._zod?.def;
  const unwrap = (s: unknown): unknown => {
    let cur = s;
    for (let i = 0; i < 10; i++) {
      const d = def(cur);
      if (d && (d.type === 'optional' || d.type === 'nullable' || d.type === 'default' || d.type === 'prefault') && d.innerType) cur = d.innerType;
      else if (d && d.type === 'pipe' && d.in) cur = d.in;
      else break;
    }
    return cur;
  };
  let cur = unwrap(schema);
  for (const seg of path) {
    const d = def(cur);
    if (d?.type === 'object' && d.shape && typeof seg === 'string') cur = unwrap(d.shape[seg]);
    else if (d?.type === 'array' && typeof seg === 'number') cur = unwrap(d.element);
    else if (d?.type === 'record') cur = unwrap(d.valueType);
    else return undefined;
  }
  const d = def(cur);
  return d?.type === 'object' && d.shape ? Object.keys(d.shape) : undefined;
}

/** The allowed word within edit distance 2 of `word` (a likely typo), if any. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    if (c === word) continue; // suggesting what was typed helps nobody
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
      const got = Array.isArray(iss.input)
        ? 'a list'
        : iss.input === null
          ? 'null'
          : typeof iss.input === 'object'
            ? 'a mapping'
            : `${typeof iss.input} ${JSON.stringify(iss.input)}`;
      const want =
        iss.expected === 'int' || iss.expected === 'number'
          ? 'a whole number'
          : iss.expected === 'array'
            ? 'a list'
            : iss.expected === 'object' || iss.expected === 'record'
              ? 'a mapping'
              : `a ${iss.expected}`;
      return `must be ${want}, not ${got}`;
    }
    case 'too_small':
      if (iss.origin === 'array') return `needs at least ${String(iss.minimum)} entr${Number(iss.minimum) === 1 ? 'y' : 'ies'}`;
      if (iss.origin === 'string') return `must be at least ${String(iss.minimum)} characters long`;
      return `must be ${iss.inclusive === false ? 'more than' : 'at least'} ${String(iss.minimum)}`;
    case 'too_big':
      if (iss.origin === 'array') return `may hold at most ${String(iss.maximum)} entries`;
      if (iss.origin === 'string') return `must be at most ${String(iss.maximum)} characters long`;
      return `must be ${iss.inclusive === false ? 'less than' : 'at most'} ${String(iss.maximum)}`;
    case 'invalid_format':
      return `must be ${iss.format === 'regex' ? 'in the documented form' : `a valid ${iss.format}`}`;
    case 'invalid_value':
      return `must be ${iss.values.map((v) => JSON.stringify(v)).join(' or ')}`;
    default:
      return undefined;
  }
}
