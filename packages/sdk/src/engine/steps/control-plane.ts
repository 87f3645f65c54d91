// control-plane (infrastructure phase, managed clusters only): the provider's control plane, asked for, waited for,
// and its admin credentials kept.
import { Redacted } from '../../redacted.js';
import { isPending } from '../../provider/outcome.js';
import { desiredOf, networkName, regionKey, waitFor } from './common.js';
import { isManaged, managedApi, providerAddonIds } from './managed.js';
import { next, type StepDefinition } from './types.js';

export const controlPlane: StepDefinition = {
  phase: 'infrastructure',
  appliesTo: isManaged,
  timeoutSeconds: 3600,
  timeoutMessage: (r) => `the managed control plane of ${r.name} was not running within an hour; see the provider's console`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    if (!isManaged(spec)) return next("the control plane is kubeplane's (kubeadm on the control pools)");
    const { api, providerName, region } = await managedApi(ctx);
    const net = ctx.record.ledger.networks[regionKey(providerName, region)];
    // The service installs add-ons only at creation: an existing cluster keeps the list it was created with (older
    // records: the built spec's, as add-on changes were refused then); the add-ons step installs the others.
    const known = ctx.record.ledger.managed;
    const addonsAtCreation = known ? (known.addonsAtCreation ?? providerAddonIds(ctx.record.current ?? spec)) : providerAddonIds(spec);
    const cluster = await api.ensureCluster({
      name: spec.id,
      clusterId: spec.id,
      region,
      kubernetesVersion: spec.version.raw,
      addons: addonsAtCreation,
      networkName: net?.name ?? networkName(spec.id, region),
      ...(net?.subnetId ? { subnetId: net.subnetId } : {}),
    });
    if (isPending(cluster)) return waitFor(cluster, `managed control plane ${spec.id}`, ctx);
    const ledger = ctx.record.ledger;
    if (!ledger.managed) ctx.emit({ type: 'resource-created', kind: 'managed-cluster', name: cluster.value.name, provider: providerName });
    ledger.managed = {
      provider: providerName,
      region,
      name: cluster.value.name,
      id: cluster.value.id,
      ...(cluster.value.projectId ? { projectId: cluster.value.projectId } : {}),
      ...(cluster.value.apiEndpoint ? { apiEndpoint: cluster.value.apiEndpoint } : {}),
      pools: ledger.managed?.pools ?? {},
      addonsAtCreation,
    };
    const kubeconfig = await api.kubeconfig({ clusterId: spec.id, name: cluster.value.name, region });
    if (isPending(kubeconfig)) return waitFor(kubeconfig, `credentials of ${cluster.value.name}`, ctx);
    await ctx.secrets.putManagedKubeconfig(Redacted.of(kubeconfig.value));
    return next(`managed control plane ${cluster.value.name} running at ${cluster.value.apiEndpoint ?? "the provider's endpoint"}`);
  },
};
