// teardown (delete phase): everything in the clouds carrying the cluster's tag (found by tag, so it works from any
// state: a failed create, or state lost altogether); static machines are reset, not deleted.
import { regionKey, resetStaticMachine, waitFor } from './common.js';
import { isPending } from '../../provider/outcome.js';
import { DELETION_CEILING_SECONDS, leftInLedger, providerToSweep, specs } from './deletion.js';
import { next, type StepDefinition, type StepResult } from './types.js';

export const teardown: StepDefinition = {
  phase: 'delete',
  // It retries (with backoff) and says why in the status, up to the ceiling; then ERROR, and destroy may be run again.
  timeoutSeconds: DELETION_CEILING_SECONDS,
  timeoutMessage: (r) =>
    `resources of ${r.name} are still present${leftInLedger(r)}; resources tagged ` +
    `kubeplane.dev/cluster-id=${r.clusterId} are left in the clouds: run destroy again to retry`,
  async run(ctx) {
    // Static machines are the user's: reset, not deleted (one at a time; each is removed from the ledger once clean).
    for (const [name, node] of Object.entries(ctx.record.ledger.nodes)) {
      if (!node.static) continue;
      await resetStaticMachine(ctx, name, node.static);
      delete ctx.record.ledger.nodes[name];
      ctx.emit({ type: 'resource-deleted', kind: 'machine', name, provider: node.provider });
      await ctx.checkpoint();
    }
    const regions = new Set(ctx.record.ledger.regions);
    for (const spec of specs(ctx)) for (const n of spec.networks) regions.add(regionKey(n.provider, n.region));
    // Every region not yet found clean gets its attempt, each time: one cloud that throttles or answers 5xx must not
    // hold up deleting what is in the others (a Hetzner network left for hours behind an EC2 storm), nor undo what
    // they finished: a region found clean stays so across attempts. Under fault storms on two clouds, each region's
    // sweep succeeds often but rarely in the same attempt as the other's; asking for both at once never finished.
    // Round 2 looks at every region once more after all were clean, so a machine a late create left in a region swept
    // early is still found. The wait is the first region's.
    const without: string[] = [];
    for (;;) {
      const sweep = ctx.record.ledger.sweep ?? { round: 1, clean: [] };
      let first: StepResult | undefined;
      for (const key of [...regions].sort()) {
        if (sweep.clean.includes(key)) continue;
        const [providerName = '', region = ''] = key.split('/');
        const provider = await providerToSweep(ctx, providerName, region);
        if (!provider) {
          if (!without.includes(key)) without.push(key);
          sweep.clean.push(key);
          continue;
        }
        const outcome = await provider.teardownCluster(ctx.record.clusterId, region);
        if (isPending(outcome)) first ??= waitFor(outcome, `tearing down ${key}`, ctx);
        else sweep.clean.push(key);
      }
      // Kept with the record when the step returns (its wait is written with it); a crash before that only repeats a look.
      ctx.record.ledger.sweep = sweep;
      if (first) return first;
      if (sweep.round === 2) break;
      ctx.record.ledger.sweep = { round: 2, clean: [] };
    }
    for (const name of Object.keys(ctx.record.ledger.nodes))
      ctx.emit({ type: 'resource-deleted', kind: 'machine', name, provider: ctx.record.ledger.nodes[name]?.provider ?? '' });
    const ledger = ctx.record.ledger;
    ledger.networks = {};
    ledger.firewalls = {};
    ledger.sshKeys = {};
    ledger.nodes = {};
    delete ledger.reservedIp;
    delete ledger.managed;
    ledger.tornDown = true;
    delete ledger.sweep;
    const swept = regions.size - without.length;
    return next(
      `nothing tagged ${ctx.record.clusterId} is left in ${swept} region${swept === 1 ? '' : 's'}` +
        (without.length ? `; nothing can be in ${without.join(', ')}: there is no provider of ${without.length === 1 ? 'its' : 'their'} type here` : ''),
    );
  },
};
