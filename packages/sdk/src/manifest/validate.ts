// The manifest's public entry points: read text, a file or an object, run every structural and
// cross-reference rule, and return the typed manifests with every issue found (never throwing on bad input).
import { readFile } from 'node:fs/promises';
import { formatPath, type ValidationIssue } from './issues.js';
import { crusoeManifestWarnings } from './crusoe-warnings.js';
import { attachPositions, parseManifestObject, parseManifestText, parsePath, type ParsedDocument, type ParseOptions } from './parse.js';
import { checkManifestRules, checkManifestUpdate } from './rules.js';
import type { Manifest } from './schema.js';

/** The outcome of validating manifest text: the manifests read, and every issue, each located in the file. */
export interface ValidationResult {
  /** True when no issue is an error (warnings allowed). */
  ok: boolean;
  /** The manifests read; only to be acted on when `ok`. */
  manifests: Manifest[];
  issues: ValidationIssue[];
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
  /**
   * Issues found later about one of `manifests` (preflight's, with spec paths) as this result reports its own: the
   * document's path prefix (`spec.` for Claudie documents), file and line.
   */
  locate(manifest: Manifest, found: ReadonlyArray<Omit<ValidationIssue, 'file' | 'line' | 'column'>>): ValidationIssue[];
}

/** How manifests are validated: parse options, and the manifests as last applied for the update rules. */
export interface ValidateOptions extends ParseOptions {
  /** The manifests as last applied (by metadata.name): enables the update rules (immutable fields). */
  previous?: readonly Manifest[];
}

/** Validates manifest text (YAML or JSON, one or more documents). */
export function validateManifestText(text: string, options: ValidateOptions = {}): ValidationResult {
  return finish(parseManifestText(text, options), options);
}

/** Validates a manifest already read into an object. */
export function validateManifestObject(value: unknown, options: ValidateOptions = {}): ValidationResult {
  return finish([parseManifestObject(value, options)], options);
}

/** Reads and validates a manifest file. */
export async function validateManifestFile(path: string, options: Omit<ValidateOptions, 'file'> & { file?: string } = {}): Promise<ValidationResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const issue: ValidationIssue = {
      severity: 'error',
      path: '(document)',
      message: `cannot read ${path}: ${(e as Error).message}`,
      file: options.file ?? path,
    };
    return { ok: false, manifests: [], issues: [issue], errors: [issue], warnings: [], locate: (_m, found) => found.map((f) => ({ ...f })) };
  }
  return validateManifestText(text, { ...options, file: options.file ?? path });
}

function finish(docs: ParsedDocument[], options: ValidateOptions): ValidationResult {
  const issues: ValidationIssue[] = [];
  const manifests: Manifest[] = [];
  const documents = new Map<Manifest, ParsedDocument>();
  for (const doc of docs) {
    issues.push(...doc.issues);
    if (!doc.manifest) continue;
    const found = checkManifestRules(doc);
    // Provider-specific advice from the seeds' tables (Crusoe CMK versions, images, add-ons): warnings only.
    if (doc.issues.length === 0) {
      for (const w of crusoeManifestWarnings(doc.manifest))
        found.push({ severity: 'warning', path: formatPath([...doc.pathPrefix, ...parsePath(w.path)]), message: w.message });
    }
    const previous = options.previous?.find((p) => p.name === doc.manifest?.name);
    if (previous) found.push(...checkManifestUpdate(previous, doc));
    if (doc.sourceMap) attachPositions(found, doc.sourceMap, doc.file);
    else if (doc.file) for (const f of found) f.file = doc.file;
    issues.push(...found);
    manifests.push(doc.manifest);
    documents.set(doc.manifest, doc);
  }
  const names = new Map<string, number>();
  for (const m of manifests) names.set(m.name, (names.get(m.name) ?? 0) + 1);
  for (const [name, n] of names) {
    if (n > 1 && name !== '') {
      issues.push({
        severity: 'error',
        path: 'metadata.name',
        message: `${n} documents are named "${name}"; each manifest needs its own name`,
        ...(options.file ? { file: options.file } : {}),
      });
    }
  }
  issues.sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0));
  const errors = issues.filter((i) => i.severity === 'error');
  const locate = (manifest: Manifest, found: ReadonlyArray<Omit<ValidationIssue, 'file' | 'line' | 'column'>>): ValidationIssue[] => {
    const doc = documents.get(manifest);
    const out: ValidationIssue[] = found.map((f) => ({ ...f, path: doc ? formatPath([...doc.pathPrefix, ...parsePath(f.path)]) : f.path }));
    if (doc?.sourceMap) attachPositions(out, doc.sourceMap, doc.file);
    else if (doc?.file) for (const f of out) f.file = doc.file;
    return out;
  };
  return { ok: errors.length === 0, manifests, issues, errors, warnings: issues.filter((i) => i.severity === 'warning'), locate };
}
