// Renders a plan for people: one line per operation, grouped by cluster, with a closing summary.
import type { Operation, Plan } from './types.js';

const SIGN: Record<string, string> = { create: '+', delete: '-', upsert: '~', update: '~', change: '~', upgrade: '^', patch: '~', write: '>' };

/** A plan as text for people: one line per operation, grouped by cluster, with a summary. */
export function formatPlan(plan: Plan, options: { maxLinesPerCluster?: number } = {}): string {
  const warnings = (plan.warnings ?? []).map((w) => `${w.path}: warning: ${w.message}\n`).join('');
  if (plan.operations.length === 0) return `project ${plan.project}: no changes; the clusters match the manifest\n${warnings}`;
  const max = options.maxLinesPerCluster ?? Infinity;
  const byCluster = new Map<string, Operation[]>();
  for (const op of plan.operations) byCluster.set(op.cluster, [...(byCluster.get(op.cluster) ?? []), op]);
  const lines: string[] = [];
  for (const [cluster, ops] of byCluster) {
    lines.push(`cluster ${cluster} (${ops[0]?.clusterId}):`);
    ops.slice(0, max).forEach((op, i) => {
      const verb = op.kind.split('-')[0] ?? '';
      const drain = op.drain ? ' [cordon+drain]' : '';
      lines.push(`  ${String(i + 1).padStart(4)}. ${SIGN[verb] ?? '*'} ${op.kind} ${op.target}${drain} [${op.phase}] — ${op.reason}`);
    });
    if (ops.length > max) lines.push(`  ... ${ops.length - max} more`);
  }
  lines.push(
    '',
    `plan: ${Object.entries(plan.summary)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ')}`,
  );
  return `${lines.join('\n')}\n${warnings}`;
}
