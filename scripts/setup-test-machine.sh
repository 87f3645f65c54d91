#!/usr/bin/env bash
# Installs the Debian packages the tests need on a fresh Debian machine (the README's test command runs it first;
# .ci/run too). Needs root, as the tests do (network and mount namespaces); packages already installed are skipped.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then exec sudo -E bash "$0" "$@"; fi
  echo "setup-test-machine: run as root (apt-get installs packages; the tests create namespaces)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true

# Real validators for rendered node configuration (cloud-init schema, shellcheck, openssl verify,
# wg pubkey, systemd-analyze verify, nginx -t with the stream module), and the real programs the netns mode runs
# in each machine's network namespace (wireguard-go with wg-quick, nginx, etcd, gpg for the package mirror's key).
# openssh-server and sudo: the sandbox's static machines are real sshd servers (a non-root user goes through sudo).
# openssh-client and jq: `kubeplane ssh-key` is checked with ssh-keygen, `kubeplane metadata` with the jq commands of
# Claudie's guide (docs/outputs.md). zsh: `kubeplane completion zsh` is loaded in a real zsh.
# awscli, hcloud-cli, kubectl and the Python clients (python3-hcloud, python3-kubernetes, python3-boto3) drive the served
# sandbox in the client sweep (packages/handlers/src/cli/served-sandbox/sweep).
apt_packages=(cloud-init openssh-server openssh-client jq zsh sudo shellcheck openssl wireguard-tools wireguard-go nginx libnginx-mod-stream etcd-server etcd-client iproute2 util-linux gpg systemd awscli python3-hcloud python3-kubernetes python3-boto3 hcloud-cli curl)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-test-machine: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# kubectl for the served-sandbox tests: Debian's kubernetes-client, unless a kubectl is already installed.
if ! command -v kubectl >/dev/null 2>&1; then
  echo "setup-test-machine: installing kubernetes-client (kubectl)"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends kubernetes-client >/dev/null
fi
# nginx, etcd and sshd must not run as services here: the tests run their own (in network namespaces; sshd on
# loopback in a mount namespace for the static-machine tests).
for unit in nginx etcd ssh; do
  systemctl disable --now "$unit" >/dev/null 2>&1 || service "$unit" stop >/dev/null 2>&1 || true
done

