// The WireGuard overlay: each node's wg-quick config from the peers known when it is rendered, the peer list the
// engine publishes into the cluster (ConfigMap kube-system/kubeplane-mesh), and the on-node agent that applies it.
import { stringify } from 'yaml';
import { Redacted } from '../redacted.js';
import type { BootstrapCluster, BootstrapNode } from './input.js';
import { parseCidr } from './network.js';
import { MESH_READERS_GROUP } from './pki.js';

export const WIREGUARD_INTERFACE = 'wg0';
export const WIREGUARD_PORT = 51820;
/**
 * 1500 minus WireGuard's worst case (IPv6 outer header 40 + UDP 8 + WireGuard 32 = 80): the overlay works over
 * any 1500-byte path. Cilium detects it from wg0 and subtracts its own VXLAN overhead for pods.
 */
export const WIREGUARD_MTU = 1420;
/** Keeps NAT mappings alive (AWS public IPs are 1:1 NAT, home routers drop idle UDP after ~30 s). */
export const PERSISTENT_KEEPALIVE_SECONDS = 25;
export const MESH_CONFIGMAP = 'kubeplane-mesh';
export const MESH_NAMESPACE = 'kube-system';
export const MESH_SYNC_SCRIPT_PATH = '/usr/local/sbin/kubeplane-mesh-sync';
export const MESH_READER_KUBECONFIG_PATH = '/etc/kubeplane/mesh-reader.conf';
export const KUBELET_KUBECONFIG_PATH = '/etc/kubernetes/kubelet.conf';

/** A mesh member as the overlay sees it: public key and addresses, never a private key. */
export interface MeshPeer {
  name: string;
  publicKey: string;
  overlayIp: string;
  endpoint?: string;
  behindNat: boolean;
}

export function meshPeers(cluster: BootstrapCluster, publicKeys: Record<string, string>): MeshPeer[] {
  return cluster.nodes.map((node) => {
    const publicKey = publicKeys[node.name];
    if (!publicKey) throw new Error(`no WireGuard public key for node ${node.name}`);
    return {
      name: node.name,
      publicKey,
      overlayIp: node.overlayIp,
      ...(node.publicEndpoint ? { endpoint: node.publicEndpoint } : {}),
      behindNat: node.behindNat === true,
    };
  });
}

function needsKeepalive(self: { behindNat?: boolean }, peer: MeshPeer): boolean {
  return self.behindNat === true || peer.behindNat;
}

/** `/etc/wireguard/wg0.conf` (wg-quick format) for `node`; it holds that node's private key and no other. */
export function renderWireguardConfig(
  cluster: BootstrapCluster,
  node: BootstrapNode,
  privateKey: Redacted<string>,
  peers: MeshPeer[],
): Redacted<string> {
  const { prefix } = parseCidr(cluster.network);
  const lines = [
    `# kubeplane overlay ${cluster.network} of cluster ${cluster.name}: node ${node.name}`,
    '[Interface]',
    `Address = ${node.overlayIp}/${prefix}`,
    `ListenPort = ${WIREGUARD_PORT}`,
    `MTU = ${WIREGUARD_MTU}`,
    `PrivateKey = ${privateKey.reveal()}`,
  ];
  for (const peer of peers) {
    if (peer.name === node.name) continue;
    lines.push('', '[Peer]', `# ${peer.name}`, `PublicKey = ${peer.publicKey}`, `AllowedIPs = ${peer.overlayIp}/32`);
    // Without an endpoint the peer is learned when it first reaches us (WireGuard roaming).
    if (peer.endpoint) lines.push(`Endpoint = ${peer.endpoint}`);
    if (needsKeepalive(node, peer)) lines.push(`PersistentKeepalive = ${PERSISTENT_KEEPALIVE_SECONDS}`);
  }
  return Redacted.of(`${lines.join('\n')}\n`);
}

/** The peer list the sync agent reads: one line per node, `name publicKey overlayIp endpoint|- nat|direct`. */
export function renderMeshPeerList(peers: MeshPeer[]): string {
  return peers
    .map((p) => `${p.name} ${p.publicKey} ${p.overlayIp} ${p.endpoint ?? '-'} ${p.behindNat ? 'nat' : 'direct'}\n`)
    .join('');
}

/**
 * The ConfigMap with the peer list plus the RBAC that lets nodes (group system:nodes, via kubelet credentials)
 * and load-balancer nodes (group kubeplane:mesh-readers) read it. The Node authorizer alone would refuse:
 * a kubelet may only read ConfigMaps its pods reference.
 */
export function renderMeshManifest(peers: MeshPeer[]): string {
  const docs = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: MESH_CONFIGMAP, namespace: MESH_NAMESPACE, labels: { 'app.kubernetes.io/managed-by': 'kubeplane' } },
      data: { peers: renderMeshPeerList(peers) },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'kubeplane:mesh-reader', namespace: MESH_NAMESPACE },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [MESH_CONFIGMAP], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'kubeplane:mesh-reader', namespace: MESH_NAMESPACE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeplane:mesh-reader' },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: MESH_READERS_GROUP },
      ],
    },
  ];
  return docs.map((doc) => stringify(doc, { lineWidth: 0 })).join('---\n');
}

/** The sync agent: a POSIX shell script run by a systemd timer; arguments are the kubeconfig and nat|direct. */
export function renderMeshSyncScript(): string {
  return `#!/bin/sh
# kubeplane mesh sync: reads the overlay's peer list from the cluster (ConfigMap ${MESH_NAMESPACE}/${MESH_CONFIGMAP})
# and applies it to ${WIREGUARD_INTERFACE} with \`wg syncconf\`, which keeps live sessions. Nodes added or removed
# later thus reach every node without anyone logging in. On a load-balancer node it also applies its load
# balancer's nginx configuration from the same ConfigMap, so scaled target pools reach it too.
# Usage: kubeplane-mesh-sync KUBECONFIG nat|direct [LOAD_BALANCER]   (KUBEPLANE_NODE: this node's name, for upgrades)
set -eu

kubeconfig="\${1:?usage: kubeplane-mesh-sync KUBECONFIG nat|direct [LOAD_BALANCER]}"
self_nat="\${2:-direct}"
load_balancer="\${3:-}"
interface=${WIREGUARD_INTERFACE}

if [ ! -s "$kubeconfig" ]; then
  echo "kubeplane-mesh-sync: $kubeconfig does not exist yet (node not joined); nothing to do"
  exit 0
fi

peers=$(kubectl --kubeconfig "$kubeconfig" --request-timeout=20s -n ${MESH_NAMESPACE} \\
  get configmap ${MESH_CONFIGMAP} -o 'jsonpath={.data.peers}')
if [ -z "$peers" ]; then
  echo "kubeplane-mesh-sync: the peer list is empty; keeping the current configuration" >&2
  exit 1
fi

self_key=$(wg show "$interface" public-key)
umask 077
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT

{
  printf '[Interface]\\nPrivateKey = %s\\nListenPort = %s\\n' \\
    "$(wg show "$interface" private-key)" "$(wg show "$interface" listen-port)"
  printf '%s\\n' "$peers" | while read -r name key ip endpoint nat; do
    if [ -z "$key" ] || [ "$key" = "$self_key" ]; then
      continue
    fi
    printf '\\n[Peer]\\n# %s\\nPublicKey = %s\\nAllowedIPs = %s/32\\n' "$name" "$key" "$ip"
    if [ "$endpoint" != "-" ]; then
      printf 'Endpoint = %s\\n' "$endpoint"
    fi
    if [ "$self_nat" = nat ] || [ "$nat" = nat ]; then
      printf 'PersistentKeepalive = ${PERSISTENT_KEEPALIVE_SECONDS}\\n'
    fi
  done
} >"$conf"

wg syncconf "$interface" "$conf"
echo "kubeplane-mesh-sync: applied $(printf '%s\\n' "$peers" | grep -c .) peers to $interface"

if [ -n "$load_balancer" ]; then
  nginx_conf=$(mktemp)
  trap 'rm -f "$conf" "$nginx_conf"' EXIT
  kubectl --kubeconfig "$kubeconfig" --request-timeout=20s -n ${MESH_NAMESPACE} \\
    get configmap ${MESH_CONFIGMAP} -o "jsonpath={.data.${LB_CONFIG_KEY_PREFIX}$load_balancer}" >"$nginx_conf"
  if [ -s "$nginx_conf" ] && ! cmp -s "$nginx_conf" /etc/nginx/nginx.conf; then
    # Only a configuration nginx accepts replaces the running one.
    nginx -t -q -c "$nginx_conf"
    install -m 0644 "$nginx_conf" /etc/nginx/nginx.conf
    systemctl reload nginx
    echo "kubeplane-mesh-sync: applied the new configuration of load balancer $load_balancer"
  fi
fi

# In-place upgrades: when the engine names this node in upgrade-nodes (after draining it), it installs kubeadm of the
# new version from that minor's repository, runs kubeadm upgrade (apply on the first control plane, node elsewhere),
# then the kubelet and kubectl, and restarts the kubelet. The engine waits for the Node to report the new version.
if [ -z "$load_balancer" ] && [ -n "\${KUBEPLANE_NODE:-}" ]; then
  setting() {
    kubectl --kubeconfig "$kubeconfig" --request-timeout=20s -n ${MESH_NAMESPACE} \
      get configmap ${MESH_CONFIGMAP} -o "jsonpath={.data.$1}"
  }
  upgrade_version=$(setting upgrade-version)
  case " $(setting upgrade-nodes) " in
    *" $KUBEPLANE_NODE "*)
      # What the running kubelet reports, not what is installed: a run cut short before the restart is finished.
      reported=$(kubectl --kubeconfig "$kubeconfig" --request-timeout=20s get node "$KUBEPLANE_NODE" \
        -o 'jsonpath={.status.nodeInfo.kubeletVersion}')
      if [ -n "$upgrade_version" ] && [ "$reported" != "v$upgrade_version" ] \
        && [ "$(kubelet --version | awk '{print $2}')" = "v$upgrade_version" ]; then
        systemctl restart kubelet
        echo "kubeplane-mesh-sync: restarted the kubelet at v$upgrade_version"
      elif [ -n "$upgrade_version" ] && [ "$reported" != "v$upgrade_version" ]; then
        upgrade_package=$(setting upgrade-package)
        upgrade_mode=$(setting upgrade-mode)
        minor=$(printf '%s' "$upgrade_version" | cut -d. -f1,2)
        echo "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v$minor/deb/ /" \
          >/etc/apt/sources.list.d/kubernetes.list
        apt-get update -q
        apt-mark unhold kubeadm kubelet kubectl
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "kubeadm=$upgrade_package"
        if [ "$upgrade_mode" = apply ]; then
          kubeadm upgrade apply -y "v$upgrade_version"
        else
          kubeadm upgrade node
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "kubelet=$upgrade_package" "kubectl=$upgrade_package"
        apt-mark hold kubeadm kubelet kubectl
        systemctl daemon-reload
        systemctl restart kubelet
        echo "kubeplane-mesh-sync: upgraded $KUBEPLANE_NODE to v$upgrade_version"
      fi
      ;;
  esac
fi
`;
}

export function meshSyncKubeconfigPath(node: BootstrapNode): string {
  return node.role === 'loadbalancer' ? MESH_READER_KUBECONFIG_PATH : KUBELET_KUBECONFIG_PATH;
}

/** The mesh ConfigMap keys of an in-place upgrade: the nodes to upgrade now, the version, its package, apply|node. */
export const UPGRADE_KEYS = { nodes: 'upgrade-nodes', version: 'upgrade-version', package: 'upgrade-package', mode: 'upgrade-mode' } as const;

/** The key of a load balancer's nginx configuration in the mesh ConfigMap (the engine publishes it). */
export const LB_CONFIG_KEY_PREFIX = 'lb-';
export const lbConfigKey = (loadBalancer: string) => `${LB_CONFIG_KEY_PREFIX}${loadBalancer}`;

export function renderMeshSyncService(node: BootstrapNode, loadBalancer?: string): string {
  return `[Unit]
Description=kubeplane: apply the cluster's WireGuard peer list to ${WIREGUARD_INTERFACE}
After=wg-quick@${WIREGUARD_INTERFACE}.service network-online.target
Wants=network-online.target
ConditionPathExists=/etc/wireguard/${WIREGUARD_INTERFACE}.conf

[Service]
Type=oneshot
${node.role === 'loadbalancer' ? '' : `Environment=KUBEPLANE_NODE=${node.name}
`}ExecStart=${MESH_SYNC_SCRIPT_PATH} ${meshSyncKubeconfigPath(node)} ${node.behindNat === true ? 'nat' : 'direct'}${loadBalancer ? ` ${loadBalancer}` : ''}
`;
}

export function renderMeshSyncTimer(): string {
  return `[Unit]
Description=kubeplane: sync the WireGuard mesh with the cluster every minute

[Timer]
OnBootSec=60s
OnUnitActiveSec=60s
RandomizedDelaySec=10s

[Install]
WantedBy=timers.target
`;
}
