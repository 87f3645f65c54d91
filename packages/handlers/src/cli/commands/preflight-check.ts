// The check before anything is recorded, shared by `apply` and `sandbox lifecycle`: every manifest against its
// providers' live catalogs, each problem one line with the file:line validation gives (the engine's first step checks
// again, from the cache, for the runtimes that have no file).
import { type Clock, formatIssue, type Kubeplane, type Manifest, type ValidationIssue, type ValidationResult } from '@kubeplane/sdk';
import { println, type CliIo } from '../io.js';
import { sandboxRefusalHints } from './sandbox-hints.js';

export async function preflightAll(
  kp: Kubeplane,
  validated: ValidationResult,
  io: CliIo,
  /** The sandbox's clock when the clouds are the sandbox's (its lines are marked, and its refusals get their hints). */
  sandbox: Clock | undefined,
  json: boolean,
  manifests: readonly Manifest[] = validated.manifests,
): Promise<{ ok: boolean; issues: ValidationIssue[] }> {
  let ok = true;
  const all: ValidationIssue[] = [];
  for (const m of manifests) {
    const issues = validated.locate(m, await kp.preflight(m));
    all.push(...issues);
    if (!json)
      for (const issue of issues) println(io.stderr, `${sandbox ? '[sandbox] ' : ''}${issue.severity === 'error' ? 'preflight: ' : ''}${formatIssue(issue)}`);
    if (issues.some((i) => i.severity === 'error')) ok = false;
  }
  if (!ok && !json) {
    println(io.stderr, `${sandbox ? '[sandbox] ' : ''}preflight failed: nothing was created`);
    if (sandbox) for (const hint of sandboxRefusalHints(all, sandbox.now())) println(io.stderr, `[sandbox] ${hint}`);
  }
  return { ok, issues: all };
}
