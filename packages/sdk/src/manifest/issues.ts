// A validation finding: what is wrong, where (manifest path, and file:line when parsed from YAML or JSON),
// and how bad (an error stops everything; a warning is shown and the manifest is still used).

/** One step of a path into a manifest: a field name or a list index. */
export type PathSegment = string | number;
/** A path into a manifest, such as `nodePools.dynamic[2].count`. */
export type Path = readonly PathSegment[];

/** What every issue says: how bad, where in the manifest, and what is wrong. */
export interface IssueFinding {
  severity: 'error' | 'warning';
  /** `nodePools.dynamic[2].count`; prefixed by `spec.` for Claudie documents. */
  path: string;
  message: string;
}

/**
 * An issue found in manifest text (validateManifestText, validateManifestFile): its 1-based line and column are
 * always there, and `file` too when the text came from a file (or `options.file` named one).
 */
export interface LocatedIssue extends IssueFinding {
  file?: string;
  line: number;
  column: number;
}

/**
 * An issue with no place in a text: found in an object (validateManifestObject, or a manifest given to the engine),
 * or about a file that could not be read at all (the message names the file). It has no file, line or column.
 */
export interface UnlocatedIssue extends IssueFinding {
  file?: undefined;
  line?: undefined;
  column?: undefined;
}

/**
 * A problem found in a manifest: error or warning, its path and message, and where it is in the text it was read
 * from. A `file` always comes with its `line` and `column`: narrow on `issue.file !== undefined` (or on
 * `issue.line !== undefined`) to print `file:line`.
 */
export type ValidationIssue = LocatedIssue | UnlocatedIssue;

/** The finding at a line and column of a text, in `file` when the text came from one. */
export function locatedIssue(finding: IssueFinding, at: { line: number; column: number }, file?: string): LocatedIssue {
  return {
    severity: finding.severity,
    path: finding.path,
    message: finding.message,
    ...(file !== undefined ? { file } : {}),
    line: at.line,
    column: at.column,
  };
}

/** `['nodePools', 'dynamic', 2, 'count']` -> `nodePools.dynamic[2].count`. */
export function formatPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out || '(document)';
}

/** One line per issue, as the CLI prints it: `file:line path: message` (`path: message` when no file is known). */
export function formatIssue(issue: ValidationIssue): string {
  const where = issue.file !== undefined ? `${issue.file}:${issue.line} ` : '';
  const tag = issue.severity === 'warning' ? 'warning: ' : '';
  return `${where}${issue.path}: ${tag}${issue.message}`;
}

/** Collects issues under a path prefix, so rules can be written against the spec's own paths. */
export class IssueCollector {
  readonly issues: ValidationIssue[] = [];
  constructor(private readonly prefix: Path = []) {}

  /** Records an error at a path (under the collector's prefix). */
  error(path: Path, message: string): void {
    this.issues.push({ severity: 'error', path: formatPath([...this.prefix, ...path]), message });
  }

  /** Records a warning at a path (under the collector's prefix). */
  warning(path: Path, message: string): void {
    this.issues.push({ severity: 'warning', path: formatPath([...this.prefix, ...path]), message });
  }

  get hasErrors(): boolean {
    return this.issues.some((i) => i.severity === 'error');
  }
}
