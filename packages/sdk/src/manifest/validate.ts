// The manifest's public entry points: read text, a file or an object, run every structural and
// cross-reference rule, and return the typed manifests with every issue found (never throwing on bad input).
import { readFile } from 'node:fs/promises';
import { formatPath, type IssueFinding, type ValidationIssue } from './issues.js';
import { crusoeManifestWarnings } from './crusoe-warnings.js';
import { attachPositions, parseManifestObject, parseManifestText, parsePath, type ParsedDocument, type ParseOptions } from './parse.js';
import { checkManifestRules, checkManifestUpdate } from './rules.js';
import type { Manifest } from './schema.js';

/** What every validation result holds, valid or not. */
export interface ValidationOutcome {
  /** The manifests read: to be acted on only when `ok` (an invalid one is kept so its other problems can be located). */
  manifests: Manifest[];
  /** Every issue, errors and warnings, in file and line order. */
  issues: ValidationIssue[];
  warnings: ValidationIssue[];
  /**
   * Issues found later about one of `manifests` (preflight's, with spec paths) as this result reports its own: the
   * document's path prefix (`spec.` for Claudie documents), file and line.
   */
  locate(manifest: Manifest, found: ReadonlyArray<IssueFinding>): ValidationIssue[];
}

/** Valid manifests: no issue is an error (warnings may remain). */
export interface ValidationSuccess extends ValidationOutcome {
  ok: true;
  errors: [];
}

/** At least one error: nothing may be acted on. */
export interface ValidationFailure extends ValidationOutcome {
  ok: false;
  errors: [ValidationIssue, ...ValidationIssue[]];
}

/**
 * The outcome of validating manifests: the manifests read, and every issue, each located in the text it came from.
 * Narrow on `ok`: `errors` is empty when it is true and holds at least one error when it is false.
 */
export type ValidationResult = ValidationSuccess | ValidationFailure;

/** How manifests are validated: parse options, and the manifests as last applied for the update rules. */
export interface ValidateOptions extends ParseOptions {
  /** The manifests as last applied (by metadata.name): enables the update rules (immutable fields). */
  previous?: readonly Manifest[];
}

/** Validates manifest text (YAML or JSON, one or more documents). */
export function validateManifestText(text: string, options: ValidateOptions = {}): ValidationResult {
  return finish(parseManifestText(text, options), options);
}

/**
 * Validates a manifest already read into an object (a `ManifestInput` written in TypeScript, or JSON parsed by the
 * caller). Its issues have no file, line or column: there is no text to point into.
 */
export function validateManifestObject(value: unknown, options: ValidateOptions = {}): ValidationResult {
  return finish([parseManifestObject(value)], options);
}

/** Reads and validates a manifest file. */
export async function validateManifestFile(path: string, options: Omit<ValidateOptions, 'file'> & { file?: string } = {}): Promise<ValidationResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    // No text, so no line: the issue names the file in its message, and has no file of its own (a file always has a line).
    const issue: ValidationIssue = { severity: 'error', path: '(document)', message: `cannot read ${options.file ?? path}: ${(e as Error).message}` };
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
    issues.push(...found);
    manifests.push(doc.manifest);
    documents.set(doc.manifest, doc);
  }
  const names = new Map<string, number>();
  for (const m of manifests) names.set(m.name, (names.get(m.name) ?? 0) + 1);
  for (const [name, n] of names) {
    if (n > 1 && name !== '') {
      // At the name of the second document that has it, where the reader sees the clash.
      const second = manifests.filter((m) => m.name === name)[1];
      const doc = second ? documents.get(second) : undefined;
      // metadata sits at the top of both kinds of document (not under a Claudie document's spec).
      const found: ValidationIssue[] = [
        { severity: 'error', path: 'metadata.name', message: `${n} documents are named "${name}"; each manifest needs its own name` },
      ];
      if (doc?.sourceMap) attachPositions(found, doc.sourceMap, doc.file);
      issues.push(...found);
    }
  }
  issues.sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0));
  const locate = (manifest: Manifest, found: ReadonlyArray<IssueFinding>): ValidationIssue[] => {
    const doc = documents.get(manifest);
    const out: ValidationIssue[] = found.map((f) => ({
      severity: f.severity,
      path: doc ? formatPath([...doc.pathPrefix, ...parsePath(f.path)]) : f.path,
      message: f.message,
    }));
    if (doc?.sourceMap) attachPositions(out, doc.sourceMap, doc.file);
    return out;
  };
  const warnings = issues.filter((i) => i.severity === 'warning');
  const [firstError, ...moreErrors] = issues.filter((i) => i.severity === 'error');
  if (firstError) return { ok: false, manifests, issues, errors: [firstError, ...moreErrors], warnings, locate };
  return { ok: true, manifests, issues, errors: [], warnings, locate };
}
