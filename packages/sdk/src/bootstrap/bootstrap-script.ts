// The script cloud-init runs once on every node: host preparation, packages, containerd, the overlay, then the
// role's work (kubeadm init / join as a control plane / join, or nginx on a load balancer), each with retries.
import type { BootstrapCluster, BootstrapNode, BootstrapVersions } from './input.js';
import type { KubeadmMode } from './kubeadm.js';
import { controlPlaneEndpoint } from './kubeadm.js';
import { KUBERNETES_APT_KEYRING, kubernetesPackageRepository, kubernetesPackageVersion, pauseImage } from './versions.js';
import { CERT_RENEW_TIMER } from './cert-renewal.js';
import { METADATA_POLICY_PATH } from './metadata-policy.js';
import { WIREGUARD_INTERFACE, WIREGUARD_MTU } from './wireguard-mesh.js';
import { PROXY_ENV_PATH } from './installation-proxy.js';

/** How a node boots: one of kubeadm's modes, or as a load balancer. */
export type NodeMode = KubeadmMode | 'loadbalancer';

export const BOOTSTRAP_SCRIPT_PATH = '/usr/local/sbin/kubeplane-bootstrap';
export const BOOTSTRAP_LOG_PATH = '/var/log/kubeplane-bootstrap.log';
export const BOOTSTRAP_DONE_PATH = '/var/lib/kubeplane/bootstrap.done';
/** Where cloud-init puts what the script installs; kept apart because `kubeadm reset` empties /etc/kubernetes/pki. */
export const STAGING_DIR = '/etc/kubeplane';

/** Where a compute node's storage disk is mounted: Claudie's path, where its Longhorn keeps replicas (defaultDataPath). */
export const STORAGE_DISK_MOUNT = '/opt/claudie/data';
/** How long a node waits for its storage disk to appear (a Hetzner volume attaches after the server starts). */
const STORAGE_DISK_WAIT_SECONDS = 300;

/** Everything the bootstrap script of one node is rendered from. */
export interface BootstrapScriptInput {
  cluster: BootstrapCluster;
  node: BootstrapNode;
  mode: NodeMode;
  versions: BootstrapVersions;
}

/**
 * A bash function, `verify_release_key FILE FINGERPRINT`, that exits unless FILE holds exactly one primary key and
 * its fingerprint is FINGERPRINT (a mirror's file with a second key is refused too). Exported so that every script
 * that points apt at pkgs.k8s.io (the bootstrap, the mesh agent's upgrades) checks the key the same way.
 */
export const KUBERNETES_RELEASE_KEY_CHECK = `verify_release_key() {
  local file=$1 want=$2 primaries
  # --with-colons: a "pub" record per primary key, each followed by its "fpr" record (field 10); subkeys are "sub".
  primaries=$(gpg --batch --show-keys --with-colons "$file" | awk -F: '$1 == "pub" { p = 1; next } p && $1 == "fpr" { print $10; p = 0 }')
  if [ "$primaries" != "$want" ]; then
    echo "refusing the package signing key in $file: expected only $want, found: \${primaries:-none}" >&2
    exit 1
  fi
}`;

const HEADER = `set -euo pipefail

exec > >(tee -a ${BOOTSTRAP_LOG_PATH}) 2>&1

log() {
  printf '%s kubeplane-bootstrap: %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"
}

# retry ATTEMPTS DELAY COMMAND...: runs COMMAND until it succeeds, pausing DELAY seconds between attempts.
retry() {
  local attempts=$1 delay=$2 n=1
  shift 2
  until "$@"; do
    if [ "$n" -ge "$attempts" ]; then
      log "giving up after $n attempts: $*"
      return 1
    fi
    log "attempt $n of $attempts failed: $*; retrying in \${delay}s"
    sleep "$delay"
    n=$((n + 1))
  done
}

prepare_host() {
  log "preparing the host: swap off, kernel modules, sysctls"
  swapoff -a
  sed -i -E '/\\sswap\\s/ s/^([^#])/#\\1/' /etc/fstab
  systemctl restart systemd-modules-load.service
  sysctl --system >/dev/null
}

${KUBERNETES_RELEASE_KEY_CHECK}
add_kubernetes_repository() {
  install -d -m 0755 /etc/apt/keyrings
  retry 10 15 curl -fsSL -o /tmp/kubernetes-release.key "\${K8S_REPO}Release.key"
  verify_release_key /tmp/kubernetes-release.key "\${K8S_KEY_FINGERPRINT}"
  gpg --batch --yes --dearmor -o ${KUBERNETES_APT_KEYRING} /tmp/kubernetes-release.key
  echo "deb [signed-by=${KUBERNETES_APT_KEYRING}] \${K8S_REPO} /" >/etc/apt/sources.list.d/kubernetes.list
  retry 10 15 apt-get update -q
}

apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

start_overlay() {
  log "starting the WireGuard overlay"
  systemctl enable --now wg-quick@${WIREGUARD_INTERFACE}.service
  systemctl daemon-reload
  systemctl enable --now kubeplane-mesh-sync.timer
}
`;

function kubernetesSection(mode: NodeMode): string {
  // A worker places nothing: kubeadm's join preflight (RunJoinNodeChecks, cmd/kubeadm/app/preflight/checks.go) has
  // FileAvailableCheck{CACertPath} for non-control-plane nodes and fails if /etc/kubernetes/pki/ca.crt exists;
  // discovery writes it from cluster-info once the CA's public-key hash matches.
  const certs =
    mode === 'join'
      ? ''
      : `place_certificates() {
  # The shared CA keys and this node's serving certificate; kubeadm issues every other certificate from them.
  install -d -m 0755 /etc/kubernetes/pki /etc/kubernetes/pki/etcd
  local f
  for f in ca.crt ca.key sa.key sa.pub front-proxy-ca.crt front-proxy-ca.key apiserver.crt apiserver.key etcd/ca.crt etcd/ca.key; do
    install -m 0600 "${STAGING_DIR}/pki/$f" "/etc/kubernetes/pki/$f"
  done
  if [ -f ${STAGING_DIR}/encryption-config.yaml ]; then
    install -d -m 0700 /etc/kubernetes/encryption
    install -m 0600 ${STAGING_DIR}/encryption-config.yaml /etc/kubernetes/encryption/config.yaml
  fi
}
`;
  const kubeadmCommand = mode === 'init' ? 'kubeadm init' : 'kubeadm join';
  const postInit =
    mode === 'init'
      ? `
cilium_apply() {
  cilium install "$@" || cilium upgrade "$@"
}

install_cilium() {
  log "installing Cilium \${CILIUM_VERSION} (kube-proxy replacement)"
  local tarball="cilium-linux-\${ARCH}.tar.gz"
  local base="https://github.com/cilium/cilium-cli/releases/download/\${CILIUM_CLI_VERSION}"
  (
    cd /tmp
    retry 10 15 curl -fsSL -o "$tarball" "$base/$tarball"
    retry 10 15 curl -fsSL -o "$tarball.sha256sum" "$base/$tarball.sha256sum"
    sha256sum --check "$tarball.sha256sum"
    tar -xzf "$tarball" -C /usr/local/bin cilium
  )
  retry 10 30 cilium_apply --version "\${CILIUM_VERSION}" \\
    --set kubeProxyReplacement=true \\
    --set k8sServiceHost="\${API_HOST}" \\
    --set k8sServicePort="\${API_PORT}" \\
    --set ipam.mode=kubernetes \\
    --set routingMode=tunnel \\
    --set tunnelProtocol=vxlan \\
    --set MTU="\${OVERLAY_MTU}"
}

after_init() {
  export KUBECONFIG=/etc/kubernetes/admin.conf
  log "publishing the mesh peer list and its RBAC"
  retry 30 10 kubectl apply -f ${STAGING_DIR}/mesh.yaml
  install_cilium
  log "denying pods the instance metadata address"
  retry 30 10 kubectl apply -f ${METADATA_POLICY_PATH}
}
`
      : '';
  const skipTokenPrint = mode === 'init' ? ' --skip-token-print' : '';
  return `
install_kubernetes() {
  log "installing containerd, WireGuard and Kubernetes \${K8S_PACKAGE_VERSION}"
  retry 10 15 apt-get update -q
  retry 10 15 apt_install ca-certificates curl gpg wireguard-tools containerd
  add_kubernetes_repository
  retry 10 15 apt_install "kubelet=\${K8S_PACKAGE_VERSION}" "kubeadm=\${K8S_PACKAGE_VERSION}" "kubectl=\${K8S_PACKAGE_VERSION}"
  apt-mark hold kubelet kubeadm kubectl
}

configure_containerd() {
  log "configuring containerd with the systemd cgroup driver"
  install -d -m 0755 /etc/containerd
  containerd config default >/etc/containerd/config.toml
  sed -i 's/SystemdCgroup = false/SystemdCgroup = true/' /etc/containerd/config.toml
  if ! grep -q 'SystemdCgroup = true' /etc/containerd/config.toml; then
    log "containerd's default config has no SystemdCgroup switch; refusing to run the kubelet with cgroupfs"
    exit 1
  fi
  # The sandbox (pause) image kubeadm of this minor expects, not containerd's built-in default.
  sed -i -E "s|^([[:space:]]*)sandbox_image = .*|\\1sandbox_image = \\"\${PAUSE_IMAGE}\\"|" /etc/containerd/config.toml
  if ! grep -q "sandbox_image = \\"\${PAUSE_IMAGE}\\"" /etc/containerd/config.toml; then
    log "containerd's default config has no sandbox_image setting; refusing to run with another pause image than kubeadm's"
    exit 1
  fi
  systemctl enable containerd
  systemctl restart containerd
}

${certs}
kubeadm_once() {
${mode === 'join' ? '' : '  place_certificates\n'}  if ${kubeadmCommand} --config ${STAGING_DIR}/kubeadm.yaml${skipTokenPrint}; then
    return 0
  fi
  log "${kubeadmCommand} failed; resetting before the next attempt"
  kubeadm reset --force || true
  return 1
}
${postInit}`;
}

function loadBalancerSection(): string {
  return `
install_load_balancer() {
  log "installing nginx (stream module), WireGuard and kubectl \${K8S_PACKAGE_VERSION}"
  retry 10 15 apt-get update -q
  retry 10 15 apt_install ca-certificates curl gpg wireguard-tools nginx libnginx-mod-stream
  add_kubernetes_repository
  retry 10 15 apt_install "kubectl=\${K8S_PACKAGE_VERSION}"
  apt-mark hold kubectl
}

configure_nginx() {
  log "configuring nginx for the load balancer's roles"
  install -m 0644 ${STAGING_DIR}/nginx.conf /etc/nginx/nginx.conf
  nginx -t
  systemctl enable nginx
  systemctl restart nginx
}
`;
}

// Before the first download: this script's curl and apt-get, and kubeadm (which hands the variables to the control
// plane's static pods), read the environment; containerd and the kubelet their drop-ins; login shells /etc/environment.
const PROXY_SECTION = `
use_installation_proxy() {
  log "installing through the HTTP proxy in ${PROXY_ENV_PATH}"
  local key value
  while IFS='=' read -r key value; do
    value=\${value#\\"}
    export "$key=\${value%\\"}"
  done <${PROXY_ENV_PATH}
  touch /etc/environment
  sed -i -E '/^(HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy)=/d' /etc/environment
  cat ${PROXY_ENV_PATH} >>/etc/environment
  systemctl daemon-reload
}
`;

/**
 * Finds, formats (only when it holds no filesystem) and mounts the node's storage disk at STORAGE_DISK_MOUNT. The disk
 * is the whole disk, not the root's, that udev names by one of the cloud's data-disk ids (`/dev/disk/by-id/...`), and
 * it is mounted through /etc/fstab by its filesystem UUID, so a reboot mounts the same disk whatever the kernel names
 * it. Every look at the machine's disks goes through lsblk, udevadm and blkid. A disk that never appears fails the
 * bootstrap: a node must not put its data on the root disk when the manifest asked for a disk.
 */
function storageDiskSection(byId: readonly string[]): string {
  const patterns = byId.map((g) => g.replace(/[^A-Za-z0-9_./*-]/g, '')).join('|');
  return `
storage_disk_device() {
  local root dev type name
  local -a links
  root=$(lsblk -no PKNAME "$(findmnt -no SOURCE /)" 2>/dev/null || true)
  while read -r dev type; do
    [ "$type" = disk ] || continue
    [ "$(basename "$dev")" = "$root" ] && continue
    read -ra links <<<"$(udevadm info --query=symlink --name="$dev" 2>/dev/null || true)"
    for name in "$dev" "\${links[@]/#//dev/}"; do
      case "$name" in
        ${patterns})
          echo "$dev"
          return 0
          ;;
      esac
    done
  done < <(lsblk -dnpo NAME,TYPE)
  return 1
}

mount_storage_disk() {
  local dev="" waited=0 fstype uuid
  log "waiting for the \${STORAGE_DISK_GB} GB storage disk"
  until dev=$(storage_disk_device); do
    if [ "$waited" -ge ${STORAGE_DISK_WAIT_SECONDS} ]; then
      log "no storage disk appeared within ${STORAGE_DISK_WAIT_SECONDS}s (looked for ${byId.join(', ')})"
      exit 1
    fi
    sleep 5
    waited=$((waited + 5))
  done
  fstype=$(blkid -s TYPE -o value "$dev" || true)
  if [ -z "$fstype" ]; then
    log "formatting the storage disk $dev (ext4)"
    mkfs.ext4 -q -L kubeplane-data "$dev"
    fstype=ext4
  fi
  uuid=$(blkid -s UUID -o value "$dev")
  install -d -m 0755 \${STORAGE_DISK_MOUNT}
  if ! grep -q "^UUID=$uuid " /etc/fstab; then
    echo "UUID=$uuid \${STORAGE_DISK_MOUNT} $fstype defaults,nofail 0 2" >>/etc/fstab
  fi
  mountpoint -q \${STORAGE_DISK_MOUNT} || mount \${STORAGE_DISK_MOUNT}
  log "storage disk $dev mounted at \${STORAGE_DISK_MOUNT}"
}
`;
}

function mainSection(mode: NodeMode, proxy: boolean, storageDisk: boolean): string {
  const steps: string[] = [...(proxy ? ['use_installation_proxy'] : []), 'prepare_host'];
  if (storageDisk) steps.push('mount_storage_disk');
  if (mode === 'loadbalancer') {
    steps.push('install_load_balancer', 'start_overlay', 'configure_nginx');
  } else {
    steps.push('install_kubernetes', 'configure_containerd', 'start_overlay');
    const what = mode === 'init' ? 'initialising the control plane' : mode === 'join-control-plane' ? 'joining as a control plane' : 'joining as a worker';
    steps.push(`log "${what} through \${API_ENDPOINT}"`, 'retry 5 60 kubeadm_once');
    if (mode === 'init') steps.push('after_init');
    if (mode !== 'join') steps.push(`systemctl enable --now ${CERT_RENEW_TIMER}`);
  }
  return `
main() {
  if [ -f ${BOOTSTRAP_DONE_PATH} ]; then
    log "already bootstrapped; nothing to do"
    return 0
  fi
  log "bootstrapping node \${NODE_NAME} as \${MODE}"
${steps.map((s) => `  ${s}`).join('\n')}
  install -d -m 0755 "$(dirname ${BOOTSTRAP_DONE_PATH})"
  touch ${BOOTSTRAP_DONE_PATH}
  log "done"
}

main "$@"
`;
}

/** The bash script for one node; it holds no secret (those sit in files cloud-init writes next to it). */
export function renderBootstrapScript(input: BootstrapScriptInput): string {
  const { cluster, node, mode, versions } = input;
  const vars: Array<[string, string]> = [
    ['NODE_NAME', node.name],
    ['MODE', mode],
    ['K8S_REPO', kubernetesPackageRepository(cluster.kubernetesVersion)],
    ['K8S_PACKAGE_VERSION', kubernetesPackageVersion(cluster.kubernetesVersion, versions)],
    ['K8S_KEY_FINGERPRINT', versions.kubernetesReleaseKeyFingerprint],
  ];
  if (!/^[0-9A-F]{40}$/.test(versions.kubernetesReleaseKeyFingerprint)) {
    throw new Error(`kubernetesReleaseKeyFingerprint must be 40 upper-case hex digits, not ${versions.kubernetesReleaseKeyFingerprint}`);
  }
  if (mode !== 'loadbalancer') vars.push(['API_ENDPOINT', controlPlaneEndpoint(cluster)], ['PAUSE_IMAGE', pauseImage(cluster.kubernetesVersion)]);
  if (mode !== 'loadbalancer' && node.storageDisk) vars.push(['STORAGE_DISK_GB', String(node.storageDisk.sizeGB)], ['STORAGE_DISK_MOUNT', STORAGE_DISK_MOUNT]);
  if (mode === 'init') {
    vars.push(
      ['ARCH', node.arch],
      ['API_HOST', cluster.apiEndpoint.host],
      ['API_PORT', String(cluster.apiEndpoint.port)],
      ['CILIUM_VERSION', versions.cilium],
      ['CILIUM_CLI_VERSION', versions.ciliumCli],
      // Cilium's Helm value `MTU` (Documentation/helm-values.rst: "the underlying network MTU", set on cilium_vxlan,
      // cilium_host and lxc_health): its underlying network is wg0, so the WireGuard MTU; Cilium subtracts VXLAN's.
      ['OVERLAY_MTU', String(WIREGUARD_MTU)],
    );
  }
  const header = [
    '#!/bin/bash',
    `# kubeplane bootstrap of node ${node.name} (${mode}, ${node.os} ${node.arch}) in cluster ${cluster.name}.`,
    `# Run once by cloud-init; logs to ${BOOTSTRAP_LOG_PATH}; ${BOOTSTRAP_DONE_PATH} marks success.`,
    ...vars.map(([k, v]) => `readonly ${k}='${v.replace(/'/g, '')}'`),
  ].join('\n');
  const body = mode === 'loadbalancer' ? loadBalancerSection() : kubernetesSection(mode);
  const proxy = cluster.installationProxy !== undefined;
  const disk = mode === 'loadbalancer' ? undefined : node.storageDisk;
  return `${header}\n${HEADER}${proxy ? PROXY_SECTION : ''}${disk ? storageDiskSection(disk.byId) : ''}${body}${mainSection(mode, proxy, disk !== undefined)}`;
}
