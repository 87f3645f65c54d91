// prepare (infrastructure phase): the cluster's keys (CA keys, per-node keys, WireGuard keys, the SSH key), made once
// and kept in the SecretStore; for a managed cluster, the SSH key and a check of the provider's versions.
import { KubeplaneError } from '../../errors.js';
import { generateClusterKeys, type ClusterKeys } from '../../bootstrap/pki.js';
import { generateMeshSigningKeyPair } from '../../bootstrap/mesh-bundle.js';
import { generateWireguardKeyPair } from '../../bootstrap/wireguard-keys.js';
import { generateSshKeyPair } from '../cluster-secrets.js';
import { desiredOf, nodesOf } from './common.js';
import { checkManagedVersions, isManaged } from './managed.js';
import { next, type StepDefinition } from './types.js';

export const prepare: StepDefinition = {
  phase: 'infrastructure',
  timeoutSeconds: 600,
  timeoutMessage: () => 'could not prepare the cluster keys',
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    if (isManaged(spec)) {
      // Nothing of kubeplane's PKI or mesh: the provider runs the control plane and the nodes' network. The SSH key
      // goes onto the pools' machines; versions are checked before anything is created.
      const refused = await checkManagedVersions(ctx);
      if (refused) return refused;
      if (!(await ctx.secrets.ssh())) await ctx.secrets.issueSsh(generateSshKeyPair(`kubeplane-${spec.id}`));
      return next(`the provider offers ${spec.version.raw} and the pools' node images`);
    }
    const statics = spec.pools.filter((p) => p.kind === 'static').map((p) => p.name);
    if (statics.length > 0 && !ctx.machines) {
      return {
        kind: 'failed',
        error: new KubeplaneError(
          'invalid',
          `cluster ${spec.name}: static pools (${statics.join(', ')}) are reached over SSH, and this runtime has no ` +
            `SSH access configured (EngineOptions.machines); run it with the CLI or give the engine a MachineAccess`,
          { resource: spec.sourcePath },
        ),
      };
    }
    const nodes = nodesOf(spec);
    // The cluster-wide keys are made once (the CA keys sign everything after); an overlapping run keeps the first's.
    // Issued with the keys of today's nodes, so a new cluster's keys are written once.
    const keys =
      (await ctx.secrets.keys()) ??
      (await ctx.secrets.issueKeys(await generateClusterKeys({ nodes: nodes.map(({ node }) => ({ name: node.name, role: node.role })) }, ctx.keyPairs)));
    // Per-node keys for nodes added since the keys were made.
    let changed = false;
    const withNodes: ClusterKeys = { ...keys, apiServer: { ...keys.apiServer }, meshReader: { ...keys.meshReader } };
    // Keys stored before mesh bundles were signed lack the signing key; it is made once and kept with the rest.
    if (!(withNodes as Partial<ClusterKeys>).meshSigning) {
      withNodes.meshSigning = generateMeshSigningKeyPair();
      changed = true;
    }
    for (const { node } of nodes) {
      if (node.role === 'control' && !withNodes.apiServer[node.name]) {
        withNodes.apiServer[node.name] = await ctx.keyPairs.ec();
        changed = true;
      }
      if (node.role === 'loadbalancer' && !withNodes.meshReader[node.name]) {
        withNodes.meshReader[node.name] = await ctx.keyPairs.ec();
        changed = true;
      }
    }
    if (changed) await ctx.secrets.putKeys(withNodes);

    const wg = await ctx.secrets.wireguard();
    const missing = nodes.filter(({ node }) => !wg[node.name]);
    if (missing.length > 0) {
      for (const { node } of missing) wg[node.name] = generateWireguardKeyPair(ctx.random);
      await ctx.secrets.putWireguard(wg);
    }
    if (!(await ctx.secrets.ssh())) await ctx.secrets.issueSsh(generateSshKeyPair(`kubeplane-${spec.id}`));
    return next(`keys ready for ${nodes.length} nodes`);
  },
};
