#!/bin/sh
# kubeplane mesh sync: applies the engine's signed mesh bundle (ConfigMap kube-system/kubeplane-mesh) as root, so it
# first verifies the signature with the key from user-data, refuses a serial below the last applied (a replay) and
set -eu
export LC_ALL=C

kubeconfig="${1:?usage: kubeplane-mesh-sync KUBECONFIG nat|direct [LOAD_BALANCER]}"
self_nat="${2:-direct}"
load_balancer="${3:-}"
node="${KUBEPLANE_NODE:-}"
interface=wg0
root="${KUBEPLANE_MESH_ROOT:-}"
wg_conf="$root/etc/wireguard/wg0.conf"
signing_key="$root/etc/kubeplane/mesh-signing.pub"
serial_file="$root/var/lib/kubeplane/mesh-serial"
nginx_conf="$root/etc/nginx/nginx.conf"
apt_list="$root/etc/apt/sources.list.d/kubernetes.list"

log() { echo "kubeplane-mesh-sync: $*"; }
refuse() {
  echo "kubeplane-mesh-sync: refused the mesh bundle: $*; nothing changed" >&2
  exit 1
}
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

kubectl --kubeconfig "$kubeconfig" --request-timeout=20s -n kube-system get configmap kubeplane-mesh \
  -o 'jsonpath={.data.bundle}{"\n"}{.data.bundle\.sig}{"\n"}' >"$work/configmap"
sed -n 1p "$work/configmap" | base64 -d >"$bundle" 2>/dev/null || refuse "the bundle is not base64"
sed -n 2p "$work/configmap" | base64 -d >"$work/signature" 2>/dev/null || refuse "the signature is not base64"
if [ ! -s "$bundle" ]; then
  log "no signed bundle published yet; nothing to do"
  exit 0
fi
openssl pkeyutl -verify -pubin -inkey "$signing_key" -rawin -in "$bundle" -sigfile "$work/signature" >/dev/null 2>&1 \
  || refuse "its signature does not verify with $signing_key"

[ "$(head -n 1 "$bundle")" = 'kubeplane-mesh 1' ] || refuse "it does not start with kubeplane-mesh 1"
stray=$(grep -Evx -e 'kubeplane-mesh 1' -e 'serial [1-9][0-9]{0,14}' \
  -e 'peer [a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)* [A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]= (25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3} (((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}|[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*):([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])|-) (nat|direct)' \
  -e 'upgrade [0-9]{1,4}\.[0-9]{1,4}\.[0-9]{1,4} [0-9]{1,4}\.[0-9]{1,4}\.[0-9]{1,4}-[0-9.]{1,32} (apply|node)( [a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*)+' \
  -e 'lb [a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)* [A-Za-z0-9+/]{4,}={0,2}' -e 'cert [a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)* [A-Za-z0-9+/]{4,}={0,2}' "$bundle" | head -n 1 | cut -c 1-80)
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

sed -n '/^\[Peer\]/q;/^$/!p' "$wg_conf" >"$work/interface"
grep -q '^PrivateKey' "$work/interface" || refuse "$wg_conf has no [Interface] with a PrivateKey"
self_key=$(wg show "$interface" public-key)
grep '^peer ' "$bundle" | while read -r _ name key ip endpoint nat; do
  if [ "$key" = "$self_key" ]; then
    continue
  fi
  printf '\n[Peer]\n# %s\nPublicKey = %s\nAllowedIPs = %s/32\n' "$name" "$key" "$ip"
  if [ "$endpoint" != - ]; then
    printf 'Endpoint = %s\n' "$endpoint"
  fi
  if [ "$endpoint" != - ] || [ "$self_nat" = nat ] || [ "$nat" = nat ]; then
    printf 'PersistentKeepalive = 25\n'
  fi
done >"$work/peers"
cat "$work/interface" "$work/peers" >"$work/wg0.conf"
{ grep -E '^(\[Interface\]|PrivateKey|ListenPort|FwMark)' "$work/interface"; cat "$work/peers"; } >"$work/sync.conf"

if [ -n "$load_balancer" ]; then
  awk -v lb="$load_balancer" '$1 == "lb" && $2 == lb { print $3 }' "$bundle" | base64 -d >"$work/nginx.conf"
  if [ -s "$work/nginx.conf" ] && ! cmp -s "$work/nginx.conf" "$nginx_conf"; then
    nginx -t -q -c "$work/nginx.conf" || refuse "nginx -t does not accept the configuration of load balancer $load_balancer"
    new_nginx=1
  fi
  certificate=$(awk -v n="$node" '$1 == "cert" && $2 == n { print $3 }' "$bundle")
  if [ -n "$node" ] && [ -n "$certificate" ]; then
    printf '%s\n' "$certificate" | base64 -d >"$work/cert.pem"
    kubeconfig_data client-certificate-data >"$work/current.pem"
    if ! cmp -s "$work/cert.pem" "$work/current.pem"; then
      kubeconfig_data certificate-authority-data >"$work/ca.pem"
      kubeconfig_data client-key-data >"$work/key.pem"
      openssl verify -purpose sslclient -CAfile "$work/ca.pem" "$work/cert.pem" >/dev/null 2>&1 \
        || refuse "the mesh-reader certificate of $node does not chain to the cluster CA"
      [ "$(openssl x509 -in "$work/cert.pem" -noout -pubkey)" = "$(openssl pkey -in "$work/key.pem" -pubout)" ] \
        || refuse "the mesh-reader certificate of $node is not for this node's key"
      sed "s|^\( *client-certificate-data:\).*|\1 $certificate|" "$kubeconfig" >"$work/kubeconfig"
      new_certificate=1
    fi
  fi
fi

mkdir -p "${serial_file%/*}"
printf '%s\n' "$serial" >"$work/serial"
replace "$work/serial" "$serial_file" 0644
wg syncconf "$interface" "$work/sync.conf"
if ! cmp -s "$work/wg0.conf" "$wg_conf"; then
  replace "$work/wg0.conf" "$wg_conf" 0600
fi
log "applied bundle $serial: $(grep -c '^peer ' "$bundle") peers on $interface"
if [ -n "${new_nginx:-}" ]; then
  replace "$work/nginx.conf" "$nginx_conf" 0644
  systemctl reload nginx
  log "applied the new configuration of load balancer $load_balancer"
fi
if [ -n "${new_certificate:-}" ]; then
  replace "$work/kubeconfig" "$kubeconfig" 0600
  log "installed the renewed mesh-reader certificate of $node"
fi

if [ -z "$load_balancer" ] && [ -n "$node" ] && [ -n "$upgrade_version" ]; then
  case " $upgrade_nodes " in
    *" $node "*)
      reported=$(kubectl --kubeconfig "$kubeconfig" --request-timeout=20s get node "$node" \
        -o 'jsonpath={.status.nodeInfo.kubeletVersion}')
      installed=$(kubelet --version | awk '{print $2}')
      if [ "$reported" = "v$upgrade_version" ]; then
        :
      elif [ "$installed" = "v$upgrade_version" ]; then
        systemctl restart kubelet
        log "restarted the kubelet at v$upgrade_version"
      elif [ "$(printf '%s\n' "$installed" "v$upgrade_version" | sort -V | tail -n 1)" = "$installed" ]; then
        log "not upgrading to v$upgrade_version: the kubelet here is newer ($installed)"
      else
        minor=$(printf '%s' "$upgrade_version" | cut -d. -f1,2)
        echo "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v$minor/deb/ /" \
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
