// `kubeplane validate <files...>`: checks manifests completely, before anything is touched; `-` is standard input.
// Exit 0 when every file is valid (warnings are printed), 1 with one line per issue otherwise.
import { parseCommandArgs } from '../command-args.js';
import { resolve, relative } from 'node:path';
import { formatIssue, validateManifestFile, validateManifestText, type ValidationResult } from '@kubeplane/sdk/manifest';
import { EXIT, println, UsageError, type CliIo } from '../io.js';
import { issueJson, jsonResult } from '../json-output.js';

export async function validate(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' } } });
  if (positionals.length === 0) throw new UsageError('validate needs at least one manifest file (- for standard input)');
  if (positionals.filter((f) => f === '-').length > 1) throw new UsageError('validate reads standard input (-) once; give - once');
  let failed = false;
  const report: unknown[] = [];
  for (const file of positionals) {
    const shown = file === '-' ? STDIN : relative(io.cwd, resolve(io.cwd, file)) || file;
    const result = file === '-' ? await validateStdin(io) : await validateManifestFile(resolve(io.cwd, file), { file: shown });
    failed ||= !result.ok;
    if (values.json) {
      report.push({ file: shown, ok: result.ok, issues: result.issues.map(issueJson) });
      continue;
    }
    for (const issue of result.issues) println(io.stdout, formatIssue(issue));
    if (result.ok) {
      const clusters = result.manifests.reduce((n, m) => n + m.kubernetes.clusters.length, 0);
      const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
      const warnings = result.warnings.length ? `, ${count(result.warnings.length, 'warning')}` : '';
      println(io.stdout, `${shown}: ok (${count(result.manifests.length, 'manifest')}, ${count(clusters, 'cluster')}${warnings})`);
    } else {
      println(io.stderr, `${shown}: ${result.errors.length} error${result.errors.length === 1 ? '' : 's'}`);
    }
  }
  const code = failed ? EXIT.failed : EXIT.ok;
  if (values.json)
    return jsonResult(io, 'validate', code, {
      files: report,
      ...(failed ? { error: { kind: 'invalid', message: 'a manifest has errors; see files[].issues' } } : {}),
    });
  return code;
}

/** How issues name a manifest read from standard input: `<stdin>:12:3 path: message`. */
const STDIN = '<stdin>';

/** The manifest piped in (`kubectl apply -f -` style), validated as a file named <stdin>. */
async function validateStdin(io: CliIo): Promise<ValidationResult> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin ?? []) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return validateManifestText(Buffer.concat(chunks).toString('utf8'), { file: STDIN });
}
