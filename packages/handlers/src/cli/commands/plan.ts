// `kubeplane plan <file> [--json]`: what apply would do, operation by operation, with the reason for each —
// against the state kept in the state directory (empty when there is none yet).
import { existsSync } from 'node:fs';
import { parseCommandArgs } from '../command-args.js';
import { join, relative, resolve } from 'node:path';
import { buildDesiredState, emptyState, plan } from '@kubeplane/sdk/internal';
import { formatIssue, formatPlan, validateManifestFile, type Plan, type PlanResult, type Manifest, type ValidationIssue } from '@kubeplane/sdk';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { EXIT, print, println, UsageError, type CliIo } from '../io.js';
import { invalidManifest, jsonResult } from '../json-output.js';

export async function planCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, sandbox: { type: 'boolean' }, 'state-dir': { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('plan needs exactly one manifest file');
  const file = positionals[0] as string;
  const shown = relative(io.cwd, resolve(io.cwd, file)) || file;
  const result = await validateManifestFile(resolve(io.cwd, file), { file: shown });
  const json = values.json ?? false;
  if (json && !result.ok) return jsonResult(io, 'plan', EXIT.failed, { error: invalidManifest(result.issues), issues: result.issues });
  if (!json) for (const issue of result.issues) println(io.stdout, formatIssue(issue));
  if (!result.ok) return EXIT.failed;

  const stateDir = resolve(io.cwd, values['state-dir'] ?? DEFAULT_STATE_DIR);
  const planAll = async (planOne: (m: Manifest) => Promise<PlanResult>): Promise<number> => {
    const plans: Plan[] = [];
    const issues: ValidationIssue[] = [...result.issues];
    let failed = false;
    for (const manifest of result.manifests) {
      const planned = await planOne(manifest);
      if (!planned.ok) {
        failed = true;
        // At the file and line of what cannot change, as validation's own issues are.
        const located = result.locate(manifest, planned.issues);
        issues.push(...located);
        if (!json) for (const issue of located) println(io.stdout, formatIssue(issue));
        continue;
      }
      plans.push(planned.plan);
      if (!json) print(io.stdout, formatPlan(planned.plan));
    }
    const code = failed ? EXIT.failed : EXIT.ok;
    if (json)
      return jsonResult(io, 'plan', code, {
        plans,
        issues,
        ...(failed ? { error: { kind: 'invalid', message: 'a manifest cannot be planned; see issues' } } : {}),
      });
    return code;
  };
  // Without a state directory there is nothing yet: plan against the empty state, touching nothing.
  if (!existsSync(join(stateDir, 'mode'))) return planAll(async (m) => plan(buildDesiredState(m), emptyState(m.name)));
  const rt = await LocalRuntime.open({ stateDir, sandbox: values.sandbox ?? false, env: io.env, cwd: io.cwd });
  try {
    if (rt.sandbox && !values.json) println(io.stdout, '[sandbox] planned against the sandbox world');
    return await planAll((m) => rt.kubeplane.plan(m));
  } finally {
    await rt.close();
  }
}
