// upgrade (kubernetes phase): Kubernetes version upgrades in place, one batch of nodes per run.
import { KubeplaneError } from '../../errors.js';
import { kubernetesPackageVersion, resolveVersions } from '../../bootstrap/versions.js';
import { isPending } from '../../provider/outcome.js';
import { desiredOf, waitFor } from './common.js';
import { api, poolMembers } from './kubernetes-api.js';
import { isManaged } from './managed.js';
import { currentMesh, meshKeys, publishMesh } from './mesh-publish.js';
import { next, wait, type StepDefinition } from './types.js';

/**
 * Kubernetes version upgrades in place, as kubeadm wants them: control planes first, one at a time (the first with
 * `kubeadm upgrade apply`), then workers, `upgrade.maxSurge` at a time. Each node is drained, named in the mesh
 * ConfigMap (its sync agent upgrades packages, runs kubeadm and restarts the kubelet), and uncordoned once its Node
 * reports the new version and is Ready. One batch per run; the instructions are removed when every node is done.
 */
export const upgrade: StepDefinition = {
  phase: 'kubernetes',
  // A managed cluster's versions are the provider's (the control-plane and node-pool steps ask it).
  appliesTo: (spec) => !isManaged(spec),
  // Per batch: each finished batch is progress (recorded in the ledger), which starts the deadline afresh.
  timeoutSeconds: 2 * 3600,
  timeoutMessage: (r) =>
    `a batch of the upgrade of ${r.name} did not finish within 2 hours; see the nodes' kubeplane-mesh-sync logs (journalctl -u kubeplane-mesh-sync)`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const target = `v${spec.version.major}.${spec.version.minor}.${spec.version.patch}`;
    const k8s = await api(ctx);
    const nodes = new Map((await k8s.listNodes()).map((n) => [n.name, n]));
    const published = (await currentMesh(k8s, await meshKeys(ctx)))?.upgrade;
    const members = poolMembers(ctx).flatMap(({ nodes: ns }) => ns);
    const control = members.filter((n) => n.role === 'control').map((n) => n.name);
    const workers = members.filter((n) => n.role !== 'control').map((n) => n.name);
    const behind = (name: string) => nodes.get(name)?.kubeletVersion !== target;
    const named = published?.nodes ?? [];
    const uncordon = async (names: string[]) => {
      for (const n of names) if (nodes.get(n)?.unschedulable) await k8s.patchNode(n, { unschedulable: false });
    };
    if (named.length > 0 && published?.version === target.slice(1)) {
      // A batch is under way: wait for it, then uncordon it.
      const waiting = named.filter((n) => nodes.has(n) && (behind(n) || !nodes.get(n)?.ready));
      if (waiting.length > 0) return wait(30, `upgrading ${waiting.join(', ')} to ${target}`);
      await uncordon(named);
      await publishMesh(ctx, k8s, undefined);
      ctx.record.ledger.upgradedBatches = (ctx.record.ledger.upgradedBatches ?? 0) + 1;
      return next(`upgraded ${named.join(', ')} to ${target}`, 'upgrade');
    }
    if (named.length > 0) {
      // Instructions for another version (the manifest changed mid-upgrade): withdrawn, their nodes back in service.
      await uncordon(named);
      await publishMesh(ctx, k8s, undefined);
    }
    // Kubernetes does not go back: a node already past the manifest's version (an upgrade to it was under way) stays.
    const ahead = members.map((n) => n.name).filter((n) => versionAbove(nodes.get(n)?.kubeletVersion, target));
    if (ahead.length > 0) {
      return {
        kind: 'failed',
        error: new KubeplaneError(
          'invalid',
          `${ahead.join(', ')} already run${ahead.length === 1 ? 's' : ''} ${nodes.get(ahead[0] ?? '')?.kubeletVersion ?? 'a newer version'}, ` +
            `newer than ${target}; Kubernetes cannot be downgraded: apply that version again to finish the upgrade`,
          { resource: spec.sourcePath },
        ),
      };
    }
    const pendingControl = control.filter(behind);
    // strategy on-delete: the control planes move (the API server must); workers keep their version until replaced.
    const workerBatch = spec.upgrade.strategy === 'on-delete' ? [] : workers.filter(behind).slice(0, Math.max(1, spec.upgrade.maxSurge));
    const batch = pendingControl.length > 0 ? pendingControl.slice(0, 1) : workerBatch;
    if (batch.length === 0) {
      if (named.length > 0) await publishMesh(ctx, k8s, undefined);
      const left = workers.filter(behind).length;
      return next(
        left > 0
          ? `the control planes run ${target}; ${left} workers keep their version until replaced (upgrade.strategy on-delete)`
          : members.length
            ? `every node runs ${target}`
            : 'no nodes to upgrade',
      );
    }
    for (const n of batch) {
      const drained = await k8s.drainNode(n);
      if (isPending(drained)) return waitFor(drained, `draining ${n} before its upgrade`, ctx);
    }
    // kubeadm upgrade apply once, on the first control plane to move; every other node follows it.
    const mode = pendingControl.length === control.length && pendingControl.length > 0 ? 'apply' : 'node';
    await publishMesh(ctx, k8s, {
      nodes: batch,
      version: target.slice(1),
      package: kubernetesPackageVersion(spec.version, resolveVersions(ctx.versions)),
      mode,
    });
    return wait(60, `upgrading ${batch.join(', ')} to ${target} (kubeadm upgrade ${mode}); the nodes' sync agents pick it up within a minute`);
  },
};

/** `v1.35.0` is above `v1.34.2` (major, minor, patch). */
function versionAbove(version: string | undefined, than: string): boolean {
  const parse = (v: string) => (/^v?(\d+)\.(\d+)\.(\d+)/.exec(v) ?? []).slice(1, 4).map(Number);
  if (!version) return false;
  const [a = 0, b = 0, c = 0] = parse(version);
  const [x = 0, y = 0, z = 0] = parse(than);
  return a !== x ? a > x : b !== y ? b > y : c > z;
}
