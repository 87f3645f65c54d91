// kubelet stand-in. `kubelet --version` prints the installed package's version. As a daemon (systemd's kubelet unit)
// it needs /etc/kubernetes/kubelet.conf — or a bootstrap kubeconfig — as the real one does (without either it exits
// and systemd restarts it: the crash loop every node shows before kubeadm ran; cmd/kubelet/app/server.go
// buildKubeletClientConfig); it runs the static pods of /etc/kubernetes/manifests (pkg/kubelet/config/file.go),
// serves its port 10250 with a self-signed certificate (kubelet.crt, as without serverTLSBootstrap), and reports
// kubelet-started so the sandbox can register and update its Node. A cgroup driver runc refuses (runtime-rules.ts)
// leaves every pod unstarted, and is reported as the kubelet's failure. Registration itself is the simulation's.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { networkInterfaces } from 'node:os';
import {
  BOOTSTRAP_KUBELET_KUBECONFIG,
  KUBELET_FLAGS_FILE,
  KUBELET_KUBECONFIG,
  KUBELET_PORT,
  MANIFESTS_DIR,
  nodeIpError,
} from '../../kubernetes/kubeadm-rules.js';
import {
  CONTAINERD_CONFIG,
  cgroupDriverError,
  KUBELET_CONFIG,
  kubeletCgroupDriver,
  parseContainerdConfig,
  runcSystemdCgroup,
} from '../../kubernetes/runtime-rules.js';
import { report } from './control-client.js';
import { requireInstalled } from './installed.js';
import { PID_DIR, PODS_REFUSED_FILE, syncStaticPods } from './static-pods.js';

const version = requireInstalled('kubelet', 'kubelet');
/** How long (real time) the kubelet waits for its node-ip to appear on an interface before it gives up. */
const NODE_IP_WAIT_MS = 30_000;
const argv = process.argv.slice(2);

function kubeletLog(level: 'I' | 'E', message: string): void {
  const now = new Date();
  const stamp = `${String(now.getUTCMonth() + 1).padStart(2, '0')}${String(now.getUTCDate()).padStart(2, '0')} ${now.toISOString().slice(11, 23)}`;
  process.stderr.write(`${level}${stamp} ${process.pid} server.go] ${message}\n`);
}

function selfSignedServing(): { cert: Buffer; key: Buffer } {
  const dir = '/var/lib/kubelet/pki';
  mkdirSync(dir, { recursive: true });
  if (!existsSync(`${dir}/kubelet.crt`)) {
    const host = execFileSync('hostname', { encoding: 'utf8' }).trim();
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${dir}/kubelet.key`,
        '-out',
        `${dir}/kubelet.crt`,
        '-subj',
        `/CN=${host}@${Math.floor(Date.now() / 1000)}`,
        '-days',
        '365',
        '-addext',
        `subjectAltName=DNS:${host}`,
      ],
      { stdio: 'ignore' },
    );
  }
  return { cert: readFileSync(`${dir}/kubelet.crt`), key: readFileSync(`${dir}/kubelet.key`) };
}

/** Why no pod can start here, from the kubelet's and containerd's configuration files; undefined when pods start. */
function runtimeContractError(): string | undefined {
  if (!existsSync(KUBELET_CONFIG) || !existsSync(CONTAINERD_CONFIG)) return undefined;
  const containerd = parseContainerdConfig(readFileSync(CONTAINERD_CONFIG, 'utf8'));
  if ('error' in containerd) return undefined;
  const pods = existsSync(MANIFESTS_DIR) ? readdirSync(MANIFESTS_DIR).filter((f) => f.endsWith('.yaml')) : [];
  const host = execFileSync('hostname', { encoding: 'utf8' }).trim();
  const first = pods.includes('etcd.yaml') ? `etcd-${host}` : pods[0] ? `${pods[0].replace(/\.yaml$/, '')}-${host}` : 'cilium';
  return cgroupDriverError(kubeletCgroupDriver(readFileSync(KUBELET_CONFIG, 'utf8')), runcSystemdCgroup(containerd.config), first);
}

async function daemon(): Promise<void> {
  if (!existsSync(KUBELET_KUBECONFIG) && !existsSync(BOOTSTRAP_KUBELET_KUBECONFIG)) {
    kubeletLog(
      'E',
      `"command failed" err="failed to run Kubelet: unable to load bootstrap kubeconfig: stat ${BOOTSTRAP_KUBELET_KUBECONFIG}: no such file or directory"`,
    );
    process.exit(1);
  }
  kubeletLog('I', `"Kubelet version" kubeletVersion="${version}"`);
  // The flags kubeadm wrote (the unit's drop-in passes them): --node-ip must be an address of this machine's.
  const flags = existsSync(KUBELET_FLAGS_FILE) ? readFileSync(KUBELET_FLAGS_FILE, 'utf8') : '';
  const nodeIp = /--node-ip=(\S+?)["\s]/.exec(flags)?.[1];
  const addresses = (): string[] => Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  // The real kubelet keeps retrying its node status while the address is missing: after a reboot wg0 (the overlay
  // address) comes up beside it, so a kubelet that ran before waits for it. On its first run, which kubeadm starts
  // after the boot script brought wg0 up, an address that is not there is refused at once.
  const ranBefore = existsSync('/var/lib/kubelet/pki/kubelet.crt');
  let refused = nodeIpError(nodeIp, addresses());
  for (let waited = 0; refused && ranBefore && waited < NODE_IP_WAIT_MS; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    refused = nodeIpError(nodeIp, addresses());
  }
  if (refused) {
    kubeletLog('E', `"Failed to set some node status fields" err="${refused.replace(/"/g, '\\"')}"`);
    await report('kubelet-failed', { reason: refused }).catch(() => undefined);
    process.exit(1);
  }
  // The runtime contract: the kubelet's cgroup driver (config.yaml, kubeadm's) against containerd's runc
  // (config.toml). Where runc refuses every pod sandbox, no static pod and no CNI pod ever runs.
  const contract = runtimeContractError();
  mkdirSync(PID_DIR, { recursive: true });
  if (contract) {
    kubeletLog('E', `"Error syncing pod, skipping" err="${contract.replace(/"/g, '\\"')}"`);
    writeFileSync(PODS_REFUSED_FILE, `${contract}\n`);
    await report('kubelet-failed', { reason: contract }).catch(() => undefined);
  } else {
    rmSync(PODS_REFUSED_FILE, { force: true });
  }
  const serving = selfSignedServing();
  const server = createServer(serving, (_req, res) => void res.writeHead(401).end('Unauthorized'));
  // One kubelet per machine: a second one finds its port taken and exits, as the real one does.
  await new Promise<void>((resolve) => {
    server.once('error', (error) => {
      kubeletLog('E', `"Failed to listen and serve" err="listen tcp 0.0.0.0:${KUBELET_PORT}: bind: address already in use" detail="${error.message}"`);
      process.exit(1);
    });
    server.listen(KUBELET_PORT, '0.0.0.0', () => resolve());
  });
  mkdirSync(PID_DIR, { recursive: true });
  writeFileSync(`${PID_DIR}/kubelet.pid`, `${process.pid}\n`);
  if (!contract) await syncStaticPods();
  try {
    await report('kubelet-started', { version });
  } catch (error) {
    kubeletLog('E', `"could not report to the sandbox" err="${error instanceof Error ? error.message : String(error)}"`);
  }
  const timer = setInterval(() => void (contract ? Promise.resolve() : syncStaticPods()).catch(() => undefined), 2000);
  const stop = (): void => {
    clearInterval(timer);
    server.close();
    rmSync(`${PID_DIR}/kubelet.pid`, { force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (argv.includes('--version')) {
  process.stdout.write(`Kubernetes ${version}\n`);
} else {
  await daemon();
}
