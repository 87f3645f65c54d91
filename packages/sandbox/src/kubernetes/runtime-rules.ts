// The runtime contract between the kubelet and containerd, read from files as both programs read them, shared by the
// netns stand-ins (containerd, kubelet) and the fast simulation (boot-disk-view, kubelets.ts):
// - containerd's configuration: `containerd config default` of containerd 1.7 (the Debian/Ubuntu package's version;
//   cmd/containerd/command/config.go + pkg/cri/config/config_unix.go DefaultConfig), whose runc options carry
//   `SystemdCgroup = false` (the line node scripts switch to true) and the CRI plugin's
//   `sandbox_image = "registry.k8s.io/pause:3.8"`. The configuration must be TOML of version 2, which 1.7 reads (the
//   version-1 layout it still accepts with a deprecation warning is refused here; 2.x's version 3 it does not know).
// - the cgroup driver: "Matching the container runtime and kubelet cgroup drivers is required"
//   (https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/configure-cgroup-driver/). With runc on systemd cgroups
//   and the kubelet on cgroupfs, every pod sandbox fails in runc (containerd/containerd#4857): the static pods never
//   start. The other way round pods start and are restarted now and then (containerd/containerd#7276): not modelled.
import { parse as parseToml } from 'smol-toml';
import { parseAllDocuments } from 'yaml';

export const CONTAINERD_CONFIG = '/etc/containerd/config.toml';
export const KUBELET_CONFIG = '/var/lib/kubelet/config.yaml';

/** What `containerd config default` prints (containerd 1.7). */
export const CONTAINERD_DEFAULT_CONFIG = `disabled_plugins = []
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

type Table = Record<string, unknown>;

function table(v: unknown): Table {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Table) : {};
}

/** containerd's configuration, parsed as containerd parses it, or its refusal (containerd exits on either). */
export function parseContainerdConfig(text: string): { config: Table } | { error: string } {
  let config: Table;
  try {
    config = parseToml(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { error: `failed to load TOML from ${CONTAINERD_CONFIG}: ${message}` };
  }
  const version = config['version'];
  if (version !== 2) return { error: `failed to load TOML from ${CONTAINERD_CONFIG}: unsupported config version \`${String(version ?? 1)}\`` };
  return { config };
}

/** Whether runc's cgroups are systemd's (`SystemdCgroup`) in a parsed configuration of version 2. */
export function runcSystemdCgroup(config: Table): boolean {
  const cri = table(table(config['plugins'])['io.containerd.grpc.v1.cri']);
  const options = table(table(table(table(cri['containerd'])['runtimes'])['runc'])['options']);
  return options['SystemdCgroup'] === true;
}

/** The kubelet's cgroup driver from its configuration file (KubeletConfiguration's own default is cgroupfs). */
export function kubeletCgroupDriver(configYaml: string): string {
  for (const doc of parseAllDocuments(configYaml)) {
    const value = table(doc.toJS())['cgroupDriver'];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return 'cgroupfs';
}

/**
 * What becomes of every pod the kubelet asks containerd for when their cgroup drivers disagree in the way runc refuses
 * (the kubelet on cgroupfs, runc on systemd), in the kubelet's words (pod_workers.go) around runc's; undefined when
 * pods start. `pod` names the first one tried.
 */
export function cgroupDriverError(kubeletDriver: string, systemdCgroup: boolean, pod: string): string | undefined {
  if (!(kubeletDriver === 'cgroupfs' && systemdCgroup)) return undefined;
  return (
    `Failed to create sandbox for pod "${pod}": rpc error: code = Unknown desc = ` +
    'failed to create containerd task: failed to create shim task: OCI runtime create failed: ' +
    'expected cgroupsPath to be of format "slice:prefix:name" for systemd cgroups, ' +
    'got "/kubepods/burstable/pod…" instead: unknown ' +
    `(the kubelet's cgroupDriver is ${kubeletDriver}, containerd's runc has SystemdCgroup = true)`
  );
}
