// Control planes renew kubeadm's certificates themselves: a daily systemd timer runs `kubeadm certs renew` for
// each certificate that expires within 60 days and restarts the static pods, as kubeadm's certificate management
// guide says (https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-certs/).

export const CERT_RENEW_SCRIPT_PATH = '/usr/local/sbin/kubeplane-cert-renew';
export const CERT_RENEW_SERVICE = 'kubeplane-cert-renew.service';
/** The systemd timer that renews a control plane's kubeadm certificates before they expire. */
export const CERT_RENEW_TIMER = 'kubeplane-cert-renew.timer';
/** Renew what expires within this many days; kubeadm's leaf certificates live 365. */
export const CERT_RENEW_WINDOW_DAYS = 60;

/**
 * kubeadm's names for what `kubeadm certs renew` handles, with the file each lives in. `kubeadm certs renew` takes
 * the existing certificate as the source of its subject and SANs (so our apiserver.crt keeps the endpoint and
 * overlay SANs we issued; its key is replaced by one kubeadm generates) and signs with the CA key in
 * /etc/kubernetes/pki, which control planes hold. The kubelet's client certificate is not here: the kubelet
 * rotates it itself.
 */
export const RENEWABLE_CERTIFICATES: ReadonlyArray<readonly [string, string]> = [
  ['apiserver', '/etc/kubernetes/pki/apiserver.crt'],
  ['apiserver-kubelet-client', '/etc/kubernetes/pki/apiserver-kubelet-client.crt'],
  ['apiserver-etcd-client', '/etc/kubernetes/pki/apiserver-etcd-client.crt'],
  ['front-proxy-client', '/etc/kubernetes/pki/front-proxy-client.crt'],
  ['etcd-server', '/etc/kubernetes/pki/etcd/server.crt'],
  ['etcd-peer', '/etc/kubernetes/pki/etcd/peer.crt'],
  ['etcd-healthcheck-client', '/etc/kubernetes/pki/etcd/healthcheck-client.crt'],
  ['admin.conf', '/etc/kubernetes/admin.conf'],
  ['super-admin.conf', '/etc/kubernetes/super-admin.conf'],
  ['controller-manager.conf', '/etc/kubernetes/controller-manager.conf'],
  ['scheduler.conf', '/etc/kubernetes/scheduler.conf'],
];

/** The shell script the renewal timer runs on a control-plane node. */
export function renderCertRenewScript(): string {
  return `#!/bin/bash
# kubeplane: renews kubeadm's certificates that expire within ${CERT_RENEW_WINDOW_DAYS} days, then restarts the static pods.
set -euo pipefail

readonly WINDOW=$((${CERT_RENEW_WINDOW_DAYS} * 86400))
readonly MANIFESTS=/etc/kubernetes/manifests
readonly PARKED=/etc/kubernetes/manifests.kubeplane-parked

log() {
  printf 'kubeplane-cert-renew: %s\\n' "$*"
}

# expires_soon FILE: true when FILE's certificate (PEM, or a kubeconfig's client-certificate-data) ends within WINDOW.
expires_soon() {
  local file=$1 pem
  if [ "\${file##*.}" = conf ]; then
    pem=$(awk '/client-certificate-data:/ { print $2; exit }' "$file" | base64 -d)
  else
    pem=$(cat "$file")
  fi
  ! openssl x509 -noout -checkend "$WINDOW" <<<"$pem" >/dev/null
}

renewed=0
while read -r name file; do
  [ -f "$file" ] || continue
  if expires_soon "$file"; then
    log "renewing $name ($file)"
    kubeadm certs renew "$name"
    renewed=$((renewed + 1))
  fi
done <<'CERTIFICATES'
${RENEWABLE_CERTIFICATES.map(([name, file]) => `${name} ${file}`).join('\n')}
CERTIFICATES

if [ "$renewed" -eq 0 ]; then
  log "nothing expires within ${CERT_RENEW_WINDOW_DAYS} days"
  exit 0
fi

# Static pods do not reload every certificate: move each manifest out, wait for the kubelet to stop the pod
# (fileCheckFrequency, 20 s), and put it back, one component at a time so the API stays up on the other planes.
install -d -m 0700 "$PARKED"
for component in kube-apiserver kube-controller-manager kube-scheduler etcd; do
  [ -f "$MANIFESTS/$component.yaml" ] || continue
  log "restarting $component"
  mv "$MANIFESTS/$component.yaml" "$PARKED/"
  sleep 20
  mv "$PARKED/$component.yaml" "$MANIFESTS/"
  sleep 20
done
log "renewed $renewed certificates"
`;
}

export function renderCertRenewService(): string {
  return `[Unit]
Description=kubeplane: renew kubeadm certificates that expire within ${CERT_RENEW_WINDOW_DAYS} days
After=kubelet.service
ConditionPathExists=/etc/kubernetes/manifests/kube-apiserver.yaml

[Service]
Type=oneshot
ExecStart=${CERT_RENEW_SCRIPT_PATH}
`;
}

export function renderCertRenewTimer(): string {
  return `[Unit]
Description=kubeplane: check kubeadm certificates daily

[Timer]
OnCalendar=daily
RandomizedDelaySec=6h
Persistent=true

[Install]
WantedBy=timers.target
`;
}
