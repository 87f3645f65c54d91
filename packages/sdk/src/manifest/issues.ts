// A validation finding: what is wrong, where (manifest path, and file:line when parsed from YAML or JSON),
// and how bad (an error stops everything; a warning is shown and the manifest is still used).

/** One step of a path into a manifest: a field name or a list index. */
export type PathSegment = string | number;
/** A path into a manifest, such as `nodePools.dynamic[2].count`. */
export type Path = readonly PathSegment[];

/** A problem found in a manifest: error or warning, its path, message and, when known, file and line. */
export interface ValidationIssue {
  severity: 'error' | 'warning';
  /** `nodePools.dynamic[2].count`; prefixed by `spec.` for Claudie documents. */
  path: string;
  message: string;
  file?: string;
  line?: number;
  column?: number;
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

/** One line per issue, as the CLI prints it: `file:line path: message`. */
export function formatIssue(issue: ValidationIssue): string {
  const where = issue.file ? `${issue.file}${issue.line ? `:${issue.line}` : ''} ` : '';
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
