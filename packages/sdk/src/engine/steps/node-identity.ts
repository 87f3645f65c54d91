// Node identity without cloud controller managers: the `spec.providerID` and topology labels each cloud's CCM would
// set, derived by kubeplane from what it recorded when it made the machine. No CCM runs, so none can delete another
// cloud's Nodes in a cluster that spans clouds (the issue a CCM per cloud has: each deletes Nodes it cannot find).
// Set by the engine's node-metadata step rather than the kubelet's `--provider-id`/`--node-labels` at join: the cloud's
// id (Hetzner server id, EC2 instance id, Crusoe VM id) exists only once the machine does, after its user-data was
// rendered, and NodeRestriction would let a kubelet set the topology labels but also let it claim any it likes. The
// kubelet does register `kubeplane.dev/provider` and `kubeplane.dev/pool` itself (bootstrap/kubeadm.ts), so CSI node
// affinity on them holds from the first moment a node is schedulable.
import type { PoolSpec } from '../../model/types.js';
import type { NodeResource } from '../records.js';
import { profileOf } from '../../providers-data/index.js';

export const REGION_LABEL = 'topology.kubernetes.io/region';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
export const PROVIDER_LABEL = 'kubeplane.dev/provider';
export const POOL_LABEL = 'kubeplane.dev/pool';

/** The providerID scheme of static machines: no cloud names them, and kubelet leaves the field empty without one. */
export const STATIC_PROVIDER_ID_PREFIX = 'kubeplane://static/';

export interface NodeIdentity {
  /** Empty when nothing is known yet (a machine whose create was not answered): the field is left alone. */
  providerId: string;
  labels: Record<string, string>;
}

/**
 * What a node's Node object should carry. Per cloud, the values its own CCM reports in
 * `cloudprovider.InstanceMetadata` (k8s.io/cloud-provider), which the cloud node controller turns into these labels:
 * - Hetzner (hetznercloud/hcloud-cloud-controller-manager, hcloud/instances.go, hcloudServer.Metadata):
 *   providerID `hcloud://<server id>`, region = the location (`fsn1`), zone = its legacy data center (`fsn1-dc14`),
 *   instance type = the server type.
 * - AWS (kubernetes/cloud-provider-aws, pkg/providers/v1/instances_v2.go, InstanceMetadata):
 *   providerID `aws:///<availability zone>/<instance id>`, region, zone = the availability zone, the instance type.
 * - Crusoe (crusoecloud/crusoe-cloud-controller-manager, internal/instances/instances.go, InstanceMetadata):
 *   providerID `crusoe://<vm id>`, region = the VM's location, instance type = the VM type. Crusoe's CCM sets no zone;
 *   kubeplane sets zone = the location (a Crusoe location is one site, named like a zone: `us-east1-a`) so every
 *   node has one, as topology spreading and CSI topology expect.
 * - Static machines: no cloud, so `kubeplane://static/<node name>` (as k3s and kind name their own nodes
 *   `k3s://<node>`, `kind://…`) and no region, zone or instance type — unless the pool's own labels give them.
 * - Any other provider: the providerID it reported and its recorded region and zone.
 * `kubeplane.dev/provider` (the provider type) and `kubeplane.dev/pool` are set on every node.
 */
export function nodeIdentity(nodeName: string, pool: PoolSpec, machine: NodeResource | undefined): NodeIdentity {
  const type = pool.kind === 'static' ? 'static' : (pool.provider?.type ?? 'static');
  const labels: Record<string, string> = { [PROVIDER_LABEL]: type, [POOL_LABEL]: pool.name };
  if (type === 'static') return { providerId: `${STATIC_PROVIDER_ID_PREFIX}${nodeName}`, labels };
  const region = machine?.region ?? pool.provider?.region;
  const zone = machine?.zone ?? pool.provider?.zone;
  const topology = (r: string | undefined, z: string | undefined) => {
    if (r) labels[REGION_LABEL] = r;
    if (z) labels[ZONE_LABEL] = z;
  };
  const place = profileOf(type)?.topology?.({ region, zone, providerId: machine?.providerId }) ?? { region, zone: zone ?? region };
  topology(place.region, place.zone);
  if (pool.serverType) labels[INSTANCE_TYPE_LABEL] = pool.serverType;
  return { providerId: machine?.providerId ?? '', labels };
}
