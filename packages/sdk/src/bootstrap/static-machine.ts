// What kubeplane runs on a static (bring-your-own) machine over SSH: its rendered #cloud-config carried out as
// cloud-init would (the same first-boot script the netns machines run), started once and detached; and the reset
// that undoes it when the machine leaves the cluster. Pure: text in, script out.
import { Redacted } from '../redacted.js';
import { BOOTSTRAP_LOG_PATH, BOOTSTRAP_SCRIPT_PATH, STAGING_DIR } from './bootstrap-script.js';
import { CERT_RENEW_SCRIPT_PATH, CERT_RENEW_TIMER } from './cert-renewal.js';
import { parseCloudConfig, renderFirstBootScript, shQuote } from './first-boot.js';
import { KUBERNETES_APT_KEYRING } from './versions.js';
import { MESH_SYNC_SCRIPT_PATH, WIREGUARD_INTERFACE } from './wireguard-mesh.js';

/** Where kubeplane keeps what it needs to undo its bootstrap on a static machine (and nothing else). */
export const STATIC_STATE_DIR = '/var/lib/kubeplane-static';
/** The first line of the bootstrap script: names the node it makes of the machine. */
export const STATIC_BOOTSTRAP_HEADER = '# kubeplane static bootstrap';
/** The first line of the reset script. */
export const STATIC_RESET_HEADER = '# kubeplane static reset';
/**
 * Files of the user's the boot edits in place (the hostname cloud-init's `hostname` sets; swap lines commented out of
 * fstab): copied aside before the boot, put back by the reset.
 */
const EDITED_IN_PLACE = ['/etc/hostname', '/etc/fstab'];

/**
 * Writes the node's user-data and its first-boot script under STATIC_STATE_DIR, records what the machine had before
 * (its packages) and which files the boot writes, then starts the boot detached: an SSH session must not outlive a
 * step (DESIGN.md: one bounded step per invocation), and the node joins on its own, as a cloud machine does.
 * Idempotent on the machine: a second run (a retried step) finds the boot started and starts nothing.
 */
export function renderStaticBootstrap(node: string, userData: string | Uint8Array): Redacted<string> {
  const config = parseCloudConfig(userData);
  // Its own log and markers, not cloud-init's: the machine may run cloud-init of its own, which is the user's.
  const firstBoot = renderFirstBootScript(config, {
    runner: 'kubeplane static',
    log: `${STATIC_STATE_DIR}/boot.log`,
    runcmd: `${STATIC_STATE_DIR}/runcmd`,
    finished: `${STATIC_STATE_DIR}/boot-finished`,
  });
  const files = config.files.map((f) => f.path);
  const lines = [
    `${STATIC_BOOTSTRAP_HEADER} ${node}`,
    'set -eu',
    'umask 077',
    `install -d -m 0700 ${STATIC_STATE_DIR}`,
    // mkdir is atomic: of two sessions that race here, one starts the boot and the other sees it started.
    `if ! mkdir ${STATIC_STATE_DIR}/started 2>/dev/null; then echo "kubeplane: the bootstrap of ${node} was started before"; exit 0; fi`,
    `printf %s ${shQuote(node)} >${STATIC_STATE_DIR}/node`,
    `USER_DATA=${shQuote(Buffer.from(userData).toString('base64'))}`,
    `printf %s "$USER_DATA" | base64 -d >${STATIC_STATE_DIR}/user-data`,
    // What the reset removes: the files the boot writes, and packages that were not there before it.
    `printf '%s\\n' ${files.map(shQuote).join(' ')} >${STATIC_STATE_DIR}/files`,
    `if command -v dpkg-query >/dev/null 2>&1; then dpkg-query -W -f='\${Package}\\n' | sort >${STATIC_STATE_DIR}/packages.before; fi`,
    `install -d -m 0700 ${STATIC_STATE_DIR}/before ${STATIC_STATE_DIR}/gnupg`,
    `hostname >${STATIC_STATE_DIR}/hostname.before 2>/dev/null || true`,
    ...EDITED_IN_PLACE.map((f) => `if [ -f ${f} ]; then cp -p ${f} ${STATIC_STATE_DIR}/before/${f.slice(1).replace(/\//g, '_')}; fi`),
    `printf %s ${shQuote(Buffer.from(firstBoot).toString('base64'))} | base64 -d >${STATIC_STATE_DIR}/first-boot.sh`,
    `chmod 0700 ${STATIC_STATE_DIR}/first-boot.sh`,
    // gpg (the package key check) keeps its home under the state directory, not in root's home, so the reset takes it.
    `GNUPGHOME=${STATIC_STATE_DIR}/gnupg nohup setsid sh ${STATIC_STATE_DIR}/first-boot.sh </dev/null >/dev/null 2>&1 &`,
    `echo "kubeplane: the bootstrap of ${node} started"`,
  ];
  return Redacted.of(`${lines.join('\n')}\n`);
}

/**
 * Undoes the bootstrap: `kubeadm reset` (which removes /etc/kubernetes, /var/lib/kubelet and /var/lib/etcd), then what
 * kubeadm reset leaves by its own documentation — the CNI configuration and the interfaces
 * (https://kubernetes.io/docs/reference/setup-tools/kubeadm/kubeadm-reset/, "The reset process does not clean CNI
 * configuration"), then kubeplane's units, the files the boot wrote, the packages it installed (those not on the
 * machine before) and the package repository it added; the files it edited in place (EDITED_IN_PLACE) and the
 * hostname are put back as they were. The machine stays the user's; nothing else is touched.
 * Runs to the end on a machine that was never bootstrapped (every removal is guarded), so a retry is harmless.
 */
export function renderStaticReset(node: string): string {
  const dir = STATIC_STATE_DIR;
  const lines = [
    `${STATIC_RESET_HEADER} ${node}`,
    'set -u',
    // A boot still running would write again behind the reset.
    `pkill -f ${shQuote(`${dir}/first-boot.sh`)} 2>/dev/null || true`,
    `pkill -f ${shQuote(BOOTSTRAP_SCRIPT_PATH)} 2>/dev/null || true`,
    'if command -v kubeadm >/dev/null 2>&1; then kubeadm reset --force --cleanup-tmp-dir >/dev/null 2>&1 || true; fi',
    'if command -v systemctl >/dev/null 2>&1; then',
    `  for unit in kubelet.service kubeplane-mesh-sync.timer ${CERT_RENEW_TIMER} ` +
      `wg-quick@${WIREGUARD_INTERFACE}.service; do systemctl disable --now "$unit" >/dev/null 2>&1 || true; done`,
    'fi',
    `ip link delete ${WIREGUARD_INTERFACE} >/dev/null 2>&1 || true`,
    'ip link delete cilium_host >/dev/null 2>&1 || true',
    'ip link delete cilium_vxlan >/dev/null 2>&1 || true',
    'rm -rf /etc/cni/net.d /etc/kubernetes /var/lib/kubelet /var/lib/etcd /root/.kube',
    `if [ -f ${dir}/files ]; then while IFS= read -r f; do [ -n "$f" ] && rm -f -- "$f"; done <${dir}/files; fi`,
    `rm -rf ${[STAGING_DIR, '/var/lib/kubeplane', BOOTSTRAP_SCRIPT_PATH, BOOTSTRAP_LOG_PATH].join(' ')} ` +
      `${[CERT_RENEW_SCRIPT_PATH, MESH_SYNC_SCRIPT_PATH, '/usr/local/bin/cilium'].join(' ')}`,
    `rm -f /etc/apt/sources.list.d/kubernetes.list ${KUBERNETES_APT_KEYRING} /etc/containerd/config.toml`,
    // Packages the boot installed: those present now and not before it (dpkg machines only).
    `if [ -f ${dir}/packages.before ] && command -v dpkg-query >/dev/null 2>&1; then`,
    `  added=$(dpkg-query -W -f='\${Package}\\n' | sort | comm -13 ${dir}/packages.before -)`,
    '  if [ -n "$added" ]; then DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $added >/dev/null 2>&1 || true; fi',
    'fi',
    // What the boot edited in place goes back as it was, and so does the running hostname.
    ...EDITED_IN_PLACE.map(
      (f) => `if [ -f ${dir}/before/${f.slice(1).replace(/\//g, '_')} ]; then cat ${dir}/before/${f.slice(1).replace(/\//g, '_')} >${f}; fi`,
    ),
    `if [ -s ${dir}/hostname.before ]; then hostname "$(cat ${dir}/hostname.before)" 2>/dev/null || true; fi`,
    `rm -rf ${dir}`,
    `echo "kubeplane: ${node} reset"`,
  ];
  return `${lines.join('\n')}\n`;
}
