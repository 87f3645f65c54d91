// `kubeplane plan <file> [--json]`: what apply would do, operation by operation, with the reason for each.
import { parseArgs } from 'node:util';
import { relative, resolve } from 'node:path';
import { buildDesiredState, emptyState, formatIssue, formatPlan, plan, validateManifestFile, type CurrentState } from '@kubeplane/sdk';
import { println, UsageError, type CliIo } from '../io.js';

export const planUsage = 'kubeplane plan <manifest> [--json]';

export async function planCommand(argv: string[], io: CliIo, loadCurrent: (project: string) => Promise<CurrentState> = async (p) => emptyState(p)): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' } } });
  if (positionals.length !== 1) throw new UsageError('plan needs exactly one manifest file');
  const file = positionals[0] as string;
  const shown = relative(io.cwd, resolve(io.cwd, file)) || file;
  const result = await validateManifestFile(resolve(io.cwd, file), { file: shown });
  for (const issue of result.issues) println(values.json && result.ok ? io.stderr : io.stdout, formatIssue(issue));
  if (!result.ok) return 1;
  const plans = [];
  let failed = false;
  for (const manifest of result.manifests) {
    const current = await loadCurrent(manifest.name);
    const planned = plan(buildDesiredState(manifest, current), current);
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
}
