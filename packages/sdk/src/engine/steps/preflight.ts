// The first step of every apply: the whole project's manifest against the providers' live catalogs (engine/preflight.ts),
// before any cluster of it creates anything. Every cluster's flow runs it on the same manifest, so one bad pool stops
// them all; the catalog answers are cached per run, so the clouds are asked once.
import { preflight as check, preflightError } from '../preflight.js';
import { next, type StepDefinition } from './types.js';

export const preflight: StepDefinition = {
  phase: 'infrastructure',
  timeoutSeconds: 30 * 60,
  timeoutMessage: (r) => `the providers' catalogs of ${r.name}'s project could not be read within 30 minutes (throttled or unreachable); apply again later`,
  async run(ctx) {
    const manifest = ctx.project.manifest ?? ctx.record.lastManifest;
    if (!manifest) return next('preflight: no manifest to check');
    const issues = await check(manifest, (name, region) => ctx.provider(name, region), ctx.catalogs, ctx.now, {
      established: new Set(ctx.project.establishedPools ?? []),
    });
    if (issues.some((i) => i.severity === 'error')) return { kind: 'failed', error: preflightError(manifest.name, issues) };
    const warnings = issues.length;
    return next(
      `preflight: the providers offer every region, zone, server type, image and DNS zone of ` +
        `${manifest.name}${warnings ? ` (${warnings} warning(s): ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')})` : ''}`,
    );
  },
};
