// What the CLI prints with --json: JSON lines on standard output, each an object with a `type`, the last one
// always {"type":"result"} — failures included — so a program reads one stream and one schema (docs/cli.md).
import type { ValidationIssue } from '@kubeplane/sdk';
import { EXIT, println, type CliIo } from './io.js';

/** `--json` anywhere before a `--`. */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * The version of the --json format, on every line as `formatVersion`: raised when a field is removed, renamed or
 * changes meaning; a field or an event type added keeps it (readers ignore what they do not know; docs/cli.md).
 */
export const JSON_FORMAT_VERSION = 1;

/** The text of one JSON line: `type` and `formatVersion` first, then the rest. */
export function jsonText(value: { type: string } & Record<string, unknown>): string {
  const { type, ...rest } = value;
  return JSON.stringify({ type, formatVersion: JSON_FORMAT_VERSION, ...rest });
}

/** One JSON line (println escapes the control characters JSON.stringify leaves raw, with JSON's own \uXXXX). */
export function jsonLine(io: CliIo, value: { type: string } & Record<string, unknown>): void {
  println(io.stdout, jsonText(value));
}

export interface JsonError {
  /** An ErrorKind, `usage` for a wrong command line, `invalid` for a manifest with errors, `internal` for a bug. */
  kind: string;
  message: string;
  resource?: string;
  usage?: string[];
}

/** The last line of a --json run; returns the exit code it reports. */
export function jsonResult(
  io: CliIo,
  command: string,
  exitCode: number,
  payload: { error?: JsonError; issues?: ValidationIssue[] } & Record<string, unknown> = {},
): number {
  const { issues, ...rest } = payload;
  jsonLine(io, { type: 'result', command, ok: exitCode === EXIT.ok, exitCode, ...rest, ...(issues?.length ? { issues: issues.map(issueJson) } : {}) });
  return exitCode;
}

/** An issue with every field present in a fixed order: severity, file, line, column, path, message. */
export function issueJson(issue: ValidationIssue): Record<string, unknown> {
  return {
    severity: issue.severity,
    file: issue.file ?? null,
    line: issue.line ?? null,
    column: issue.column ?? null,
    path: issue.path,
    message: issue.message,
  };
}

/** The error of a run stopped by invalid manifests. */
export function invalidManifest(issues: ValidationIssue[]): JsonError {
  const errors = issues.filter((i) => i.severity === 'error').length;
  return { kind: 'invalid', message: `the manifest has ${errors} error${errors === 1 ? '' : 's'}; see issues` };
}
