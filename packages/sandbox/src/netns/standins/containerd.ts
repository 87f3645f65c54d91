// containerd stand-in. `containerd config default` prints containerd 1.7's default configuration (the Debian
// package's version; cmd/containerd/command/config.go + pkg/cri/config/config_unix.go DefaultConfig), whose runc
// options carry `SystemdCgroup = false` — the line node scripts switch to true — and the CRI plugin's
// `sandbox_image = "registry.k8s.io/pause:3.8"`. As a daemon it refuses a config.toml that is not version 2 and
// listens on /run/containerd/containerd.sock (the CRI socket kubeadm's nodeRegistration.criSocket names).
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';

export const CONTAINERD_SOCKET = '/run/containerd/containerd.sock';

const DEFAULT_CONFIG = `disabled_plugins = []
imports = []
oom_score = 0
plugin_dir = ""
required_plugins = []
root = "/var/lib/containerd"
state = "/run/containerd"
temp = ""
version = 2

[cgroup]
  path = ""

[grpc]
  address = "/run/containerd/containerd.sock"
  gid = 0
  max_recv_message_size = 16777216
  max_send_message_size = 16777216
  uid = 0

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    device_ownership_from_security_context = false
    disable_apparmor = false
    disable_cgroup = false
    enable_selinux = false
    max_container_log_line_size = 16384
    sandbox_image = "registry.k8s.io/pause:3.8"
    stats_collect_period = 10
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"

    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/opt/cni/bin"
      conf_dir = "/etc/cni/net.d"
      max_conf_num = 1

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            BinaryName = ""
            CriuImagePath = ""
            CriuPath = ""
            CriuWorkPath = ""
            IoGid = 0
            IoUid = 0
            NoNewKeyring = false
            NoPivotRoot = false
            Root = ""
            ShimCgroup = ""
            SystemdCgroup = false

    [plugins."io.containerd.grpc.v1.cri".registry]
      config_path = ""

[timeouts]
  "io.containerd.timeout.bolt.open" = "0s"
  "io.containerd.timeout.shim.cleanup" = "5s"
  "io.containerd.timeout.shim.load" = "5s"
  "io.containerd.timeout.shim.shutdown" = "3s"
  "io.containerd.timeout.task.state" = "2s"

[ttrpc]
  address = ""
  gid = 0
  uid = 0
`;

const argv = process.argv.slice(2);

if (argv[0] === 'config' && argv[1] === 'default') {
  process.stdout.write(DEFAULT_CONFIG);
} else if (argv[0] === '--version' || argv[0] === '-v') {
  process.stdout.write('containerd containerd.io 1.7.24\n');
} else {
  const configPath = '/etc/containerd/config.toml';
  if (existsSync(configPath) && !/^version\s*=\s*2\s*$/m.test(readFileSync(configPath, 'utf8'))) {
    process.stderr.write(`containerd: failed to load TOML from ${configPath}: unsupported config version\n`);
    process.exit(1);
  }
  mkdirSync('/run/containerd', { recursive: true });
  rmSync(CONTAINERD_SOCKET, { force: true });
  const server = createServer((socket) => socket.end());
  server.listen(CONTAINERD_SOCKET, () => process.stderr.write(`level=info msg="containerd successfully booted" address=${CONTAINERD_SOCKET}\n`));
  const stop = (): void => {
    server.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
