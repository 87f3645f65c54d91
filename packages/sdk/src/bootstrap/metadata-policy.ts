// Keeps pods away from the cloud's instance metadata service (169.254.169.254), where a node's user-data, and with
// it a control plane's CA keys, can be read. One Cilium policy, applied by the first control plane at init.
import { toYaml } from '../yaml-text.js';

/** The address of the clouds' instance metadata service, which pods must not reach. */
export const METADATA_ADDRESS = '169.254.169.254';
/** The name of the Cilium policy that keeps pods away from the metadata service. */
export const METADATA_POLICY_NAME = 'kubeplane-deny-instance-metadata';
export const METADATA_POLICY_PATH = '/etc/kubeplane/metadata-deny.yaml';

/**
 * A CiliumClusterwideNetworkPolicy that denies every pod (the empty endpointSelector selects all pod endpoints,
 * not the hosts) egress to the metadata address. A policy with egress rules switches the pods it selects into
 * egress default-deny unless it says otherwise; `enableDefaultDeny` (Cilium 1.16+, cilium/cilium#30572; we pin 1.18)
 * turns that off, so this policy only subtracts one destination and allows everything else it did before.
 */
export function renderMetadataPolicy(): string {
  return toYaml({
    apiVersion: 'cilium.io/v2',
    kind: 'CiliumClusterwideNetworkPolicy',
    metadata: { name: METADATA_POLICY_NAME },
    spec: {
      description: 'kubeplane: pods may not reach the instance metadata service (it serves user-data holding node secrets)',
      endpointSelector: {},
      enableDefaultDeny: { egress: false, ingress: false },
      egressDeny: [{ toCIDR: [`${METADATA_ADDRESS}/32`] }],
    },
  });
}
