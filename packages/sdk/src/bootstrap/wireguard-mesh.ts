// The WireGuard overlay: each node's wg-quick config from the peers known when it is rendered, the ConfigMap the
// engine publishes the signed mesh bundle in (kube-system/kubeplane-mesh), and the on-node agent that follows it.
import { toYaml } from '../yaml-text.js';
import { Redacted } from '../redacted.js';
import type { BootstrapCluster, BootstrapNode } from './input.js';
import { parseCidr } from './network.js';
import { type MeshPeer, MESH_BUNDLE_KEY, MESH_BUNDLE_LINE_PATTERNS, MESH_BUNDLE_SIGNATURE_KEY, MESH_SIGNING_PUBLIC_KEY_PATH } from './mesh-bundle.js';
import { MESH_READERS_GROUP } from './pki.js';

export const WIREGUARD_INTERFACE = 'wg0';
/** The UDP port WireGuard listens on on every node. */
export const WIREGUARD_PORT = 51820;
/**
 * 1500 minus WireGuard's worst case (IPv6 outer header 40 + UDP 8 + WireGuard 32 = 80): the overlay works over
 * any 1500-byte path. Cilium detects it from wg0 and subtracts its own VXLAN overhead for pods.
 */
export const WIREGUARD_MTU = 1420;
/**
 * Sent to every peer whose endpoint is known, and to every peer when either side is behind NAT. A pair handshakes only
 * when one side knows the other's endpoint and sends something: with a keepalive the side that knows speaks at once
 * (not when the first packet happens to need the tunnel), and the other side learns its address by roaming. It also
 * keeps NAT mappings alive (AWS public IPs are 1:1 NAT, home routers drop idle UDP after ~30 s).
 */
export const PERSISTENT_KEEPALIVE_SECONDS = 25;
/** The name of the ConfigMap that carries the signed mesh bundle. */
export const MESH_CONFIGMAP = 'kubeplane-mesh';
/** The namespace of the mesh ConfigMap. */
export const MESH_NAMESPACE = 'kube-system';
export const MESH_SYNC_SCRIPT_PATH = '/usr/local/sbin/kubeplane-mesh-sync';
export const MESH_READER_KUBECONFIG_PATH = '/etc/kubeplane/mesh-reader.conf';
export const KUBELET_KUBECONFIG_PATH = '/etc/kubernetes/kubelet.conf';
/** The serial of the last mesh bundle the node's agent applied; it refuses lower ones. */
export const MESH_SERIAL_PATH = '/var/lib/kubeplane/mesh-serial';

export type { MeshPeer } from './mesh-bundle.js';

/** The WireGuard peers of a cluster: one per node, with its overlay address and the endpoint others reach it at. */
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
  return peer.endpoint !== undefined || self.behindNat === true || peer.behindNat;
}

/** `/etc/wireguard/wg0.conf` (wg-quick format) for `node`; it holds that node's private key and no other. */
export function renderWireguardConfig(cluster: BootstrapCluster, node: BootstrapNode, privateKey: Redacted<string>, peers: MeshPeer[]): Redacted<string> {
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
    // Without an endpoint the peer is learned when it first reaches us (WireGuard roaming): our keepalive towards
    // the peers we know makes every pair where one side knows the other handshake at boot.
    if (peer.endpoint) lines.push(`Endpoint = ${peer.endpoint}`);
    if (needsKeepalive(node, peer)) lines.push(`PersistentKeepalive = ${PERSISTENT_KEEPALIVE_SECONDS}`);
  }
  return Redacted.of(`${lines.join('\n')}\n`);
}

/**
 * The mesh ConfigMap, empty until the engine publishes the signed bundle into it (every node boots with the peers
 * known at render time, so nothing needs a bundle before that), plus the RBAC that lets nodes (group system:nodes, via kubelet credentials)
 * and load-balancer nodes (group kubeplane:mesh-readers) read it. The Node authorizer alone would refuse:
 * a kubelet may only read ConfigMaps its pods reference.
 */
export function renderMeshManifest(): string {
  const docs = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: MESH_CONFIGMAP, namespace: MESH_NAMESPACE, labels: { 'app.kubernetes.io/managed-by': 'kubeplane' } },
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
  return docs.map((doc) => toYaml(doc)).join('---\n');
}

/**
 * The sync agent: a POSIX shell script run as root by a systemd timer; arguments are the kubeconfig, nat|direct and,
 * on a load-balancer node, its load balancer. It acts only on a bundle signed with the cluster's mesh key
 * (mesh-bundle.ts), checked line by line with the same patterns the engine signs with.
 */
export function renderMeshSyncScript(): string {
  const p = MESH_BUNDLE_LINE_PATTERNS;
  return `#!/bin/sh
# kubeplane mesh sync: applies the engine's signed mesh bundle (ConfigMap ${MESH_NAMESPACE}/${MESH_CONFIGMAP}) as root, so it
# first verifies the signature with the key from user-data, refuses a serial below the last applied (a replay) and
# checks every line; it changes nothing unless all of it passes. Then: WireGuard peers (wg syncconf and ${WIREGUARD_INTERFACE}.conf,
# kept at reboot); on a load balancer its nginx.conf (nginx -t) and a renewed mesh-reader certificate (if it chains to
# the cluster CA and is for this node's key); elsewhere an in-place upgrade that names this node.
# Usage: kubeplane-mesh-sync KUBECONFIG nat|direct [LOAD_BALANCER]   (KUBEPLANE_NODE: this node's name)
set -eu
export LC_ALL=C

kubeconfig="\${1:?usage: kubeplane-mesh-sync KUBECONFIG nat|direct [LOAD_BALANCER]}"
self_nat="\${2:-direct}"
load_balancer="\${3:-}"
node="\${KUBEPLANE_NODE:-}"
interface=${WIREGUARD_INTERFACE}
# Tests run the agent against a scratch root; on a node it is /.
root="\${KUBEPLANE_MESH_ROOT:-}"
wg_conf="$root/etc/wireguard/${WIREGUARD_INTERFACE}.conf"
signing_key="$root${MESH_SIGNING_PUBLIC_KEY_PATH}"
serial_file="$root${MESH_SERIAL_PATH}"
nginx_conf="$root/etc/nginx/nginx.conf"
apt_list="$root/etc/apt/sources.list.d/kubernetes.list"

log() { echo "kubeplane-mesh-sync: $*"; }
refuse() {
  echo "kubeplane-mesh-sync: refused the mesh bundle: $*; nothing changed" >&2
  exit 1
}
# Replaces a file in one step (a reader sees the old or the new one), with the given mode.
replace() {
  cp "$1" "$2.kubeplane-new"
  chmod "$3" "$2.kubeplane-new"
  mv -f "$2.kubeplane-new" "$2"
}
kubeconfig_data() { sed -n "s/^ *$1: *//p" "$kubeconfig" | head -n 1 | base64 -d; }

if [ ! -s "$kubeconfig" ]; then
  log "$kubeconfig does not exist yet (node not joined); nothing to do"
  exit 0
fi

umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bundle="$work/bundle"

# One read, so the signature is checked against the bundle read with it.
kubectl --kubeconfig "$kubeconfig" --request-timeout=20s -n ${MESH_NAMESPACE} get configmap ${MESH_CONFIGMAP} \\
  -o 'jsonpath={.data.${MESH_BUNDLE_KEY}}{"\\n"}{.data.${MESH_BUNDLE_SIGNATURE_KEY.replace('.', '\\.')}}{"\\n"}' >"$work/configmap"
sed -n 1p "$work/configmap" | base64 -d >"$bundle" 2>/dev/null || refuse "the bundle is not base64"
sed -n 2p "$work/configmap" | base64 -d >"$work/signature" 2>/dev/null || refuse "the signature is not base64"
if [ ! -s "$bundle" ]; then
  log "no signed bundle published yet; nothing to do"
  exit 0
fi
openssl pkeyutl -verify -pubin -inkey "$signing_key" -rawin -in "$bundle" -sigfile "$work/signature" >/dev/null 2>&1 \\
  || refuse "its signature does not verify with $signing_key"

# Every line one the engine writes, then what a pattern cannot say.
[ "$(head -n 1 "$bundle")" = '${p.header}' ] || refuse "it does not start with ${p.header}"
stray=$(grep -Evx -e '${p.header}' -e '${p.serial}' \\
  -e '${p.peer}' \\
  -e '${p.upgrade}' \\
  -e '${p.lb}' -e '${p.cert}' "$bundle" | head -n 1 | cut -c 1-80)
[ -z "$stray" ] || refuse "a line is not one kubeplane writes: $stray"
[ "$(grep -c '^serial ' "$bundle")" = 1 ] || refuse "it has no single serial"
[ "$(grep -c '^upgrade ' "$bundle")" -le 1 ] || refuse "it has more than one upgrade instruction"
grep -q '^peer ' "$bundle" || refuse "it lists no peers"
once() {
  twice=$(grep "^$1 " "$bundle" | cut -d ' ' -f "$2" | sort | uniq -d | head -n 1)
  [ -z "$twice" ] || refuse "$3 $twice appears twice"
}
once peer 2 node
once peer 3 'WireGuard key'
once peer 4 'overlay address'
once lb 2 'load balancer'
once cert 2 'the certificate of'
read -r _ upgrade_version upgrade_package upgrade_mode upgrade_nodes <<UPGRADE
$(grep '^upgrade ' "$bundle" || true)
UPGRADE
if [ -n "$upgrade_version" ]; then
  case "$upgrade_package" in
    "$upgrade_version"-*) ;;
    *) refuse "package $upgrade_package is not of version $upgrade_version" ;;
  esac
fi
serial=$(sed -n 's/^serial //p' "$bundle")
last=$(cat "$serial_file" 2>/dev/null || true)
case "$last" in '' | *[!0-9]*) last=0 ;; esac
[ "$serial" -ge "$last" ] || refuse "its serial $serial is below the last applied ($last): a replay"

# The node's own [Interface] (address, port, MTU, private key) stays as user-data wrote it.
sed -n '/^\\[Peer\\]/q;/^$/!p' "$wg_conf" >"$work/interface"
grep -q '^PrivateKey' "$work/interface" || refuse "$wg_conf has no [Interface] with a PrivateKey"
self_key=$(wg show "$interface" public-key)
grep '^peer ' "$bundle" | while read -r _ name key ip endpoint nat; do
  if [ "$key" = "$self_key" ]; then
    continue
  fi
  printf '\\n[Peer]\\n# %s\\nPublicKey = %s\\nAllowedIPs = %s/32\\n' "$name" "$key" "$ip"
  if [ "$endpoint" != - ]; then
    printf 'Endpoint = %s\\n' "$endpoint"
  fi
  # The side that knows the endpoint speaks first, so the pair handshakes at once; NAT needs it too.
  if [ "$endpoint" != - ] || [ "$self_nat" = nat ] || [ "$nat" = nat ]; then
    printf 'PersistentKeepalive = ${PERSISTENT_KEEPALIVE_SECONDS}\\n'
  fi
done >"$work/peers"
cat "$work/interface" "$work/peers" >"$work/wg0.conf"
{ grep -E '^(\\[Interface\\]|PrivateKey|ListenPort|FwMark)' "$work/interface"; cat "$work/peers"; } >"$work/sync.conf"

if [ -n "$load_balancer" ]; then
  awk -v lb="$load_balancer" '$1 == "lb" && $2 == lb { print $3 }' "$bundle" | base64 -d >"$work/nginx.conf"
  if [ -s "$work/nginx.conf" ] && ! cmp -s "$work/nginx.conf" "$nginx_conf"; then
    nginx -t -q -c "$work/nginx.conf" || refuse "nginx -t does not accept the configuration of load balancer $load_balancer"
    new_nginx=1
  fi
  certificate=$(awk -v n="$node" '$1 == "cert" && $2 == n { print $3 }' "$bundle")
  if [ -n "$node" ] && [ -n "$certificate" ]; then
    printf '%s\\n' "$certificate" | base64 -d >"$work/cert.pem"
    kubeconfig_data client-certificate-data >"$work/current.pem"
    if ! cmp -s "$work/cert.pem" "$work/current.pem"; then
      kubeconfig_data certificate-authority-data >"$work/ca.pem"
      kubeconfig_data client-key-data >"$work/key.pem"
      openssl verify -purpose sslclient -CAfile "$work/ca.pem" "$work/cert.pem" >/dev/null 2>&1 \\
        || refuse "the mesh-reader certificate of $node does not chain to the cluster CA"
      [ "$(openssl x509 -in "$work/cert.pem" -noout -pubkey)" = "$(openssl pkey -in "$work/key.pem" -pubout)" ] \\
        || refuse "the mesh-reader certificate of $node is not for this node's key"
      sed "s|^\\( *client-certificate-data:\\).*|\\1 $certificate|" "$kubeconfig" >"$work/kubeconfig"
      new_certificate=1
    fi
  fi
fi

# Everything checked: apply it, and no older bundle from now on.
mkdir -p "\${serial_file%/*}"
printf '%s\\n' "$serial" >"$work/serial"
replace "$work/serial" "$serial_file" 0644
wg syncconf "$interface" "$work/sync.conf"
if ! cmp -s "$work/wg0.conf" "$wg_conf"; then
  replace "$work/wg0.conf" "$wg_conf" 0600
fi
log "applied bundle $serial: $(grep -c '^peer ' "$bundle") peers on $interface"
if [ -n "\${new_nginx:-}" ]; then
  replace "$work/nginx.conf" "$nginx_conf" 0644
  systemctl reload nginx
  log "applied the new configuration of load balancer $load_balancer"
fi
if [ -n "\${new_certificate:-}" ]; then
  replace "$work/kubeconfig" "$kubeconfig" 0600
  log "installed the renewed mesh-reader certificate of $node"
fi

# In-place upgrade of a node the engine names (drained): kubeadm of the new version from that minor's repository,
# kubeadm upgrade apply (first control plane) or node, then kubelet and kubectl. The engine waits for the new version.
if [ -z "$load_balancer" ] && [ -n "$node" ] && [ -n "$upgrade_version" ]; then
  case " $upgrade_nodes " in
    *" $node "*)
      # What the running kubelet reports: a run cut short before the restart is finished.
      reported=$(kubectl --kubeconfig "$kubeconfig" --request-timeout=20s get node "$node" \\
        -o 'jsonpath={.status.nodeInfo.kubeletVersion}')
      installed=$(kubelet --version | awk '{print $2}')
      if [ "$reported" = "v$upgrade_version" ]; then
        :
      elif [ "$installed" = "v$upgrade_version" ]; then
        systemctl restart kubelet
        log "restarted the kubelet at v$upgrade_version"
      elif [ "$(printf '%s\\n' "$installed" "v$upgrade_version" | sort -V | tail -n 1)" = "$installed" ]; then
        # A node made after the instruction (its name reused) runs newer: Kubernetes does not go back.
        log "not upgrading to v$upgrade_version: the kubelet here is newer ($installed)"
      else
        minor=$(printf '%s' "$upgrade_version" | cut -d. -f1,2)
        echo "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v$minor/deb/ /" \\
          >"$apt_list"
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
        log "upgraded $node to v$upgrade_version"
      fi
      ;;
  esac
fi
`;
}

export function meshSyncKubeconfigPath(node: BootstrapNode): string {
  return node.role === 'loadbalancer' ? MESH_READER_KUBECONFIG_PATH : KUBELET_KUBECONFIG_PATH;
}

/** The systemd service that applies the mesh bundle on a node. */
export function renderMeshSyncService(node: BootstrapNode, loadBalancer?: string): string {
  return `[Unit]
Description=kubeplane: apply the cluster's WireGuard peer list to ${WIREGUARD_INTERFACE}
After=wg-quick@${WIREGUARD_INTERFACE}.service network-online.target
Wants=network-online.target
ConditionPathExists=/etc/wireguard/${WIREGUARD_INTERFACE}.conf

[Service]
Type=oneshot
Environment=KUBEPLANE_NODE=${node.name}
ExecStart=${MESH_SYNC_SCRIPT_PATH} ${meshSyncKubeconfigPath(node)} ${node.behindNat === true ? 'nat' : 'direct'}${loadBalancer ? ` ${loadBalancer}` : ''}
`;
}

/** The systemd timer that runs the mesh sync service. */
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
