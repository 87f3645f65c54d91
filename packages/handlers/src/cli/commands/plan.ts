// `kubeplane plan <file> [--json]`: what apply would do, operation by operation, with the reason for each —
// against the state kept in the state directory (empty when there is none yet).
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, relative, resolve } from 'node:path';
import { buildDesiredState, emptyState, formatIssue, formatPlan, plan, validateManifestFile, type Plan, type PlanResult, type Manifest } from '@kubeplane/sdk';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { println, UsageError, type CliIo } from '../io.js';

export const planUsage = 'kubeplane plan <manifest> [--json] [--sandbox] [--state-dir DIR]';

export async function planCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, sandbox: { type: 'boolean' }, 'state-dir': { type: 'string' } },
  });
  if (positionals.length !== 1) throw new UsageError('plan needs exactly one manifest file');
  const file = positionals[0] as string;
  const shown = relative(io.cwd, resolve(io.cwd, file)) || file;
  const result = await validateManifestFile(resolve(io.cwd, file), { file: shown });
  for (const issue of result.issues) println(values.json && result.ok ? io.stderr : io.stdout, formatIssue(issue));
  if (!result.ok) return 1;

  const stateDir = resolve(io.cwd, values['state-dir'] ?? DEFAULT_STATE_DIR);
  const planAll = async (planOne: (m: Manifest) => Promise<PlanResult>): Promise<number> => {
    const plans: Plan[] = [];
    let failed = false;
    for (const manifest of result.manifests) {
      const planned = await planOne(manifest);
      if (!planned.ok) {
        failed = true;
        for (const issue of planned.issues) println(io.stdout, formatIssue({ ...issue, file: shown }));
        continue;
      }
      plans.push(planned.plan);
      if (!values.json) io.stdout.write(formatPlan(planned.plan));
    }
    if (values.json) println(io.stdout, JSON.stringify(plans.length === 1 ? plans[0] : plans, null, 2));
    return failed ? 1 : 0;
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
