// kubeadm stand-in: init, join (worker and --control-plane), reset, upgrade apply|node, version — the phases of
// cmd/kubeadm/app/cmd/phases/{init,join,reset,upgrade} with their refusals from the shared rule table
// (../../kubernetes/kubeadm-rules.ts) and real TLS, real etcd and the apiserver stand-in underneath. Durations the
// latency model gives (kubernetes/timings.ts) are virtual sleeps; every outcome is reported to the world.
import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseAllDocuments, stringify as stringifyYaml } from 'yaml';
import {
  additionalControlPlaneError,
  apiServerNames,
  caPairError,
  downloadCertsError,
  KUBELET_FLAGS_FILE,
  CA_CERT_PATH,
  etcdCertNames,
  existingApiServerCertError,
  existingCertError,
  formatPreflight,
  initPreflight,
  joinPreflight,
  kubeletSkewError,
  MANIFESTS_DIR,
  upgradeApplyErrors,
  upgradeNodeErrors,
  type ApiServerNames,
  type PreflightResult,
} from '../../kubernetes/kubeadm-rules.js';
import { KUBELET_CONFIG } from '../../kubernetes/runtime-rules.js';
import { KUBE_TIMINGS } from '../../kubernetes/timings.js';
import { publicKeyPin, verifyClusterInfo } from '../../kubernetes/token-discovery.js';
import { report, virtualSleep } from './control-client.js';
import { diskView } from './disk-view.js';
import { installedVersion, requireInstalled, STANDIN_STATE_DIR, upstreamVersion } from './installed.js';
import {
  clusterConfigFromConfigMap,
  firstServiceIp,
  KUBEADM_CONFIGMAP,
  KubeadmConfigError,
  KUBELET_CONFIGMAP,
  kubeletConfiguration,
  parseInitConfig,
  parseJoinConfig,
  type ClusterConfig,
  type InitConfig,
  type JoinConfig,
  type NodeRegistration,
} from './kubeadm-config.js';
import { kubeRequest } from './kube-client.js';
import { readKubeconfig, renderKubeconfig } from './kubeconfig.js';
import { issueToFiles, newCsr, newKey } from './openssl.js';
import { daemonPid, PODS_REFUSED_FILE, renderStaticPod, stopDaemon } from './static-pods.js';

const PKI = '/etc/kubernetes/pki';
const KUBELET_DIR = '/var/lib/kubelet';
const KUBELET_CLIENT_PEM = `${KUBELET_DIR}/pki/kubelet-client-current.pem`;
const STATE_FILE = `${STANDIN_STATE_DIR}/kubeadm/cluster.json`;
const CLUSTER_INFO_PATH = '/api/v1/namespaces/kube-public/configmaps/cluster-info';

/** A failure kubeadm prints and exits 1 on; `phase` names the phase as kubeadm's error does. */
class KubeadmFailure extends Error {
  constructor(
    readonly phase: string,
    message: string,
    readonly printed = false,
  ) {
    super(message);
  }
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function write(path: string, content: string, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content, { mode });
}

function flagValue(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i] ?? '';
    if (a === `--${name}`) return argv[i + 1];
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  return undefined;
}

function readConfig(argv: string[]): string {
  const path = flagValue(argv, 'config');
  if (!path) throw new KubeadmFailure('preflight', 'kubeplane stand-in: kubeadm is only run with --config here');
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new KubeadmFailure('preflight', `unable to read config from "${path}" : open ${path}: no such file or directory`);
  }
}

function failPreflight(result: PreflightResult): void {
  if (result.warnings.length > 0 && result.errors.length === 0) process.stderr.write(formatPreflight(result));
  if (result.errors.length === 0) return;
  process.stderr.write(formatPreflight(result));
  throw new KubeadmFailure('preflight', `preflight checks failed: ${result.errors.map((e) => `[ERROR ${e.check}]: ${e.message}`).join('; ')}`, true);
}

/** `systemctl <verb> kubelet` as kubeadm's initsystem does; a failure is a warning, as in kubelet-start. */
function systemctl(verb: string, unit: string): void {
  const result = spawnSync('systemctl', [verb, unit], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0)
    process.stderr.write(`[kubelet-start] WARNING: unable to ${verb} the ${unit} service: [${(result.stderr || result.error?.message || '').trim()}]\n`);
}

// ---- certificates (phases/init/certs.go, pkiutil) --------------------------------------------------------------

function ensureCa(base: string, cn: string): void {
  if (existsSync(`${base}.crt`) && existsSync(`${base}.key`)) {
    const mismatch = caPairError(cn, readFileSync(`${base}.crt`, 'utf8'), readFileSync(`${base}.key`, 'utf8'));
    if (mismatch) throw new KubeadmFailure('certs/ca', mismatch);
    log(`[certs] Using existing ${cn} certificate authority`);
    return;
  }
  if (existsSync(`${base}.crt`) !== existsSync(`${base}.key`)) {
    throw new KubeadmFailure(
      'certs/ca',
      `failure loading ${cn} certificate authority: couldn't load the private key file ${base}.key: open ${base}.key: no such file or directory`,
    );
  }
  log(`[certs] Generating "${cn}" certificate and key`);
  mkdirSync(dirname(base), { recursive: true });
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${base}.key`,
      '-out',
      `${base}.crt`,
      '-subj',
      `/CN=${cn}`,
      '-days',
      '3650',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,digitalSignature,keyEncipherment',
    ],
    { stdio: 'ignore' },
  );
}

function ensureServiceAccountKey(): void {
  if (existsSync(`${PKI}/sa.key`)) return;
  log('[certs] Generating "sa" key and public key');
  const key = execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'], { encoding: 'utf8' });
  write(`${PKI}/sa.key`, key);
  write(`${PKI}/sa.pub`, execFileSync('openssl', ['pkey', '-pubout'], { input: key, encoding: 'utf8' }), 0o644);
}

/** kubeadm uses a certificate it finds if the CA signed it and it has every required name; otherwise it refuses. */
function ensureApiServerCert(names: ApiServerNames): void {
  const base = `${PKI}/apiserver`;
  if (existsSync(`${base}.crt`)) {
    const error = existingApiServerCertError(readFileSync(`${base}.crt`, 'utf8'), readFileSync(`${PKI}/ca.crt`, 'utf8'), names);
    if (error) throw new KubeadmFailure('certs/apiserver', error);
    log('[certs] Using existing apiserver certificate and key on disk');
    return;
  }
  log('[certs] Generating "apiserver" certificate and key');
  issueToFiles(
    base,
    { cert: `${PKI}/ca.crt`, key: `${PKI}/ca.key` },
    { subject: '/CN=kube-apiserver', usages: ['server'], dnsNames: names.dnsNames, ipAddresses: names.ips },
  );
}

function issueIfMissing(base: string, caBase: string, request: Parameters<typeof issueToFiles>[2]): void {
  if (existsSync(`${base}.crt`) && existsSync(`${base}.key`)) return;
  log(`[certs] Generating "${base.slice(PKI.length + 1)}" certificate and key`);
  issueToFiles(base, { cert: `${caBase}.crt`, key: `${caBase}.key` }, request);
}

function adminGroup(kubernetesVersion: string): string {
  const m = /^v?1\.(\d+)\./.exec(kubernetesVersion);
  return m && Number(m[1]) >= 29 ? 'kubeadm:cluster-admins' : 'system:masters';
}

/** Every certificate a control-plane instance needs below the CAs (certs phase), etcd's included. */
function controlPlaneCerts(cluster: ClusterConfig, nodeName: string, advertiseAddress: string): void {
  ensureCa(`${PKI}/ca`, 'ca');
  ensureCa(`${PKI}/front-proxy-ca`, 'front-proxy-ca');
  ensureCa(`${PKI}/etcd/ca`, 'etcd/ca');
  ensureServiceAccountKey();
  ensureApiServerCert(
    apiServerNames({
      nodeName,
      advertiseAddress,
      serviceIp: firstServiceIp(cluster.serviceSubnet),
      dnsDomain: cluster.dnsDomain,
      certSANs: cluster.certSANs,
      ...(cluster.controlPlaneEndpoint ? { controlPlaneEndpoint: cluster.controlPlaneEndpoint } : {}),
    }),
  );
  const ca = `${PKI}/ca`;
  const etcdCa = `${PKI}/etcd/ca`;
  issueIfMissing(`${PKI}/apiserver-kubelet-client`, ca, {
    subject: `/O=${adminGroup(cluster.kubernetesVersion)}/CN=kube-apiserver-kubelet-client`,
    usages: ['client'],
  });
  issueIfMissing(`${PKI}/front-proxy-client`, `${PKI}/front-proxy-ca`, { subject: '/CN=front-proxy-client', usages: ['client'] });
  // certs/altnames: GetEtcdAltNames / GetEtcdPeerAltNames; one on disk is used only if it holds them.
  for (const [kind, sans] of [
    ['server', cluster.etcdServerCertSANs],
    ['peer', cluster.etcdPeerCertSANs],
  ] as const) {
    const names = etcdCertNames({ nodeName, advertiseAddress, certSANs: sans });
    const base = `${PKI}/etcd/${kind}`;
    if (existsSync(`${base}.crt`)) {
      const error = existingCertError(`etcd/${kind}`, readFileSync(`${base}.crt`, 'utf8'), 'etcd/ca', readFileSync(`${etcdCa}.crt`, 'utf8'), names);
      if (error) throw new KubeadmFailure(`certs/etcd-${kind}`, error);
      log(`[certs] Using existing etcd/${kind} certificate and key on disk`);
      continue;
    }
    issueIfMissing(base, etcdCa, { subject: `/CN=${nodeName}`, usages: ['server', 'client'], dnsNames: names.dnsNames, ipAddresses: names.ips });
  }
  issueIfMissing(`${PKI}/etcd/healthcheck-client`, etcdCa, { subject: '/CN=kube-etcd-healthcheck-client', usages: ['client'] });
  issueIfMissing(`${PKI}/apiserver-etcd-client`, etcdCa, { subject: '/CN=kube-apiserver-etcd-client', usages: ['client'] });
}

// ---- kubeconfig files (phases/init/kubeconfig.go) ---------------------------------------------------------------

function writeKubeconfigs(
  cluster: ClusterConfig,
  nodeName: string,
  advertiseAddress: string,
  bindPort: number,
  files: Array<'admin' | 'super-admin' | 'kubelet' | 'controller-manager' | 'scheduler'>,
): void {
  const caPem = readFileSync(`${PKI}/ca.crt`, 'utf8');
  const ca = { cert: `${PKI}/ca.crt`, key: `${PKI}/ca.key` };
  const endpoint = `https://${cluster.controlPlaneEndpoint ?? `${advertiseAddress}:${bindPort}`}`;
  const local = `https://${advertiseAddress}:${bindPort}`;
  const spec = {
    admin: { user: 'kubernetes-admin', subject: `/O=${adminGroup(cluster.kubernetesVersion)}/CN=kubernetes-admin`, server: endpoint },
    'super-admin': { user: 'kubernetes-super-admin', subject: '/O=system:masters/CN=kubernetes-super-admin', server: local },
    kubelet: { user: `system:node:${nodeName}`, subject: `/O=system:nodes/CN=system:node:${nodeName}`, server: endpoint },
    'controller-manager': { user: 'system:kube-controller-manager', subject: '/CN=system:kube-controller-manager', server: local },
    scheduler: { user: 'system:kube-scheduler', subject: '/CN=system:kube-scheduler', server: local },
  } as const;
  const tmp = `${STANDIN_STATE_DIR}/kubeadm/tmp-client`;
  for (const name of files) {
    const path = `/etc/kubernetes/${name}.conf`;
    if (existsSync(path)) {
      log(`[kubeconfig] Using existing kubeconfig file: "${path}"`);
      continue;
    }
    const s = spec[name];
    const issued = issueToFiles(tmp, ca, { subject: s.subject, usages: ['client'] });
    rmSync(`${tmp}.crt`, { force: true });
    rmSync(`${tmp}.key`, { force: true });
    log(`[kubeconfig] Writing "${name}.conf" kubeconfig file`);
    write(path, renderKubeconfig({ clusterName: cluster.clusterName, server: s.server, caPem, user: s.user, certPem: issued.cert, keyPem: issued.key }));
  }
}

// ---- control-plane static pods (phases/init/controlplane.go, etcd.go) ------------------------------------------

function writeEtcdManifest(cluster: ClusterConfig, nodeName: string, advertiseAddress: string, initialCluster: string, state: 'new' | 'existing'): void {
  const command = [
    'etcd',
    `--name=${nodeName}`,
    `--data-dir=${cluster.etcdDataDir}`,
    `--advertise-client-urls=https://${advertiseAddress}:2379`,
    `--listen-client-urls=https://127.0.0.1:2379,https://${advertiseAddress}:2379`,
    `--initial-advertise-peer-urls=https://${advertiseAddress}:2380`,
    `--listen-peer-urls=https://${advertiseAddress}:2380`,
    `--initial-cluster=${initialCluster}`,
    `--initial-cluster-state=${state}`,
    `--cert-file=${PKI}/etcd/server.crt`,
    `--key-file=${PKI}/etcd/server.key`,
    `--trusted-ca-file=${PKI}/etcd/ca.crt`,
    '--client-cert-auth=true',
    `--peer-cert-file=${PKI}/etcd/peer.crt`,
    `--peer-key-file=${PKI}/etcd/peer.key`,
    `--peer-trusted-ca-file=${PKI}/etcd/ca.crt`,
    '--peer-client-cert-auth=true',
    '--snapshot-count=10000',
    '--listen-metrics-urls=http://127.0.0.1:2381',
  ];
  write(`${MANIFESTS_DIR}/etcd.yaml`, renderStaticPod('etcd', 'registry.k8s.io/etcd:3.5.21-0', command));
}

function writeControlPlaneManifests(cluster: ClusterConfig, advertiseAddress: string, bindPort: number): void {
  const apiserver = [
    'kube-apiserver',
    `--advertise-address=${advertiseAddress}`,
    `--secure-port=${bindPort}`,
    `--client-ca-file=${PKI}/ca.crt`,
    `--tls-cert-file=${PKI}/apiserver.crt`,
    `--tls-private-key-file=${PKI}/apiserver.key`,
    '--etcd-servers=https://127.0.0.1:2379',
    `--etcd-cafile=${PKI}/etcd/ca.crt`,
    `--etcd-certfile=${PKI}/apiserver-etcd-client.crt`,
    `--etcd-keyfile=${PKI}/apiserver-etcd-client.key`,
    `--service-cluster-ip-range=${cluster.serviceSubnet}`,
    `--service-account-key-file=${PKI}/sa.pub`,
    '--enable-bootstrap-token-auth=true',
    // Not a kube-apiserver flag: which cluster the sandbox's API bridge serves for this instance.
    `--kubeplane-endpoint=${cluster.controlPlaneEndpoint ?? `${advertiseAddress}:${bindPort}`}`,
  ];
  const image = (c: string): string => `registry.k8s.io/${c}:${cluster.kubernetesVersion}`;
  write(`${MANIFESTS_DIR}/kube-apiserver.yaml`, renderStaticPod('kube-apiserver', image('kube-apiserver'), apiserver));
  write(
    `${MANIFESTS_DIR}/kube-controller-manager.yaml`,
    renderStaticPod('kube-controller-manager', image('kube-controller-manager'), [
      'kube-controller-manager',
      '--kubeconfig=/etc/kubernetes/controller-manager.conf',
      `--cluster-signing-cert-file=${PKI}/ca.crt`,
      `--cluster-signing-key-file=${PKI}/ca.key`,
    ]),
  );
  write(
    `${MANIFESTS_DIR}/kube-scheduler.yaml`,
    renderStaticPod('kube-scheduler', image('kube-scheduler'), ['kube-scheduler', '--kubeconfig=/etc/kubernetes/scheduler.conf']),
  );
}

/**
 * kubelet-start: the KubeletConfiguration, and the flags file the kubelet unit's kubeadm drop-in passes as
 * $KUBELET_KUBEADM_ARGS (cmd/kubeadm/app/phases/kubelet/flags.go WriteKubeletDynamicEnvFile): the CRI endpoint and
 * nodeRegistration.kubeletExtraArgs.
 */
function writeKubeletConfig(node: NodeRegistration, kubelet: Record<string, unknown>): void {
  write(KUBELET_CONFIG, stringifyYaml(kubelet), 0o644);
  rmSync(PODS_REFUSED_FILE, { force: true });
  const flags = [
    ...(node.criSocket ? [`--container-runtime-endpoint=${node.criSocket}`] : []),
    ...Object.entries(node.kubeletExtraArgs).map(([name, value]) => `--${name}=${value}`),
  ];
  write(KUBELET_FLAGS_FILE, `KUBELET_KUBEADM_ARGS="${flags.join(' ')}"\n`, 0o644);
}

/**
 * Polls `https://<endpoint>/healthz` verifying the cluster CA and the name, up to `timeoutS` virtual seconds, a
 * virtual second apart (kubeadm's wait-control-plane: up to 4m0s). A real-time bound stops a loop whose sleeps
 * return at once (a clock that jumps) from spinning forever.
 */
async function waitHealthy(endpoint: string, caPem: string, timeoutS: number, what: string): Promise<void> {
  const startedReal = Date.now();
  let last = '';
  for (let waited = 0; waited <= timeoutS; waited += 1) {
    try {
      const res = await kubeRequest({ server: `https://${endpoint}`, caPem, path: '/healthz', timeoutMs: 3000 });
      if (res.status === 200) return;
      last = `${res.status}: ${res.text.trim()}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() - startedReal > 90_000) break;
    await virtualSleep(1);
    // Real time for the static pods' daemons to start, unless the kubelet refuses to run any.
    if (!existsSync(PODS_REFUSED_FILE)) await new Promise((r) => setTimeout(r, 150));
  }
  throw new KubeadmFailure(
    'wait-control-plane',
    `${what} is not healthy after ${timeoutS}s: Get "https://${endpoint}/healthz": ${last}\ncouldn't initialize a Kubernetes cluster`,
  );
}

function saveState(state: { kubernetesVersion: string; endpoint: string; controlPlane: boolean }): void {
  write(STATE_FILE, JSON.stringify(state), 0o644);
}

function loadState(): { kubernetesVersion: string; endpoint: string; controlPlane: boolean } | undefined {
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8')) as { kubernetesVersion: string; endpoint: string; controlPlane: boolean };
  } catch {
    return undefined;
  }
}

// ---- init ---------------------------------------------------------------------------------------------------------

async function init(argv: string[], kubeadmVersion: string): Promise<void> {
  let config: InitConfig;
  try {
    config = parseInitConfig(readConfig(argv), kubeadmVersion);
  } catch (error) {
    if (error instanceof KubeadmConfigError) throw new KubeadmFailure('preflight', error.message);
    throw error;
  }
  const { cluster, node } = config;
  log(`[init] Using Kubernetes version: ${cluster.kubernetesVersion}`);
  log('[preflight] Running pre-flight checks');
  const kubelet = installedVersion('kubelet');
  failPreflight(
    initPreflight(await diskView(), {
      kubernetesVersion: cluster.kubernetesVersion,
      kubeadmVersion,
      kubeletVersion: kubelet === undefined ? undefined : upstreamVersion(kubelet),
      bindPort: config.bindPort,
      etcdDataDir: cluster.etcdDataDir,
      ...(config.node.criSocket ? { criSocket: config.node.criSocket } : {}),
    }),
  );
  if (!config.advertiseAddress) throw new KubeadmFailure('init', 'localAPIEndpoint.advertiseAddress is empty: kubeplane always sets it');
  log(`[certs] Using certificateDir folder "${cluster.certificatesDir}"`);
  controlPlaneCerts(cluster, node.name, config.advertiseAddress);
  writeKubeconfigs(cluster, node.name, config.advertiseAddress, config.bindPort, ['admin', 'super-admin', 'kubelet', 'controller-manager', 'scheduler']);
  log(`[etcd] Creating static Pod manifest for local etcd in "${MANIFESTS_DIR}"`);
  writeEtcdManifest(cluster, node.name, config.advertiseAddress, `${node.name}=https://${config.advertiseAddress}:2380`, 'new');
  log(`[control-plane] Using manifest folder "${MANIFESTS_DIR}"`);
  writeControlPlaneManifests(cluster, config.advertiseAddress, config.bindPort);
  writeKubeletConfig(node, config.kubelet);
  log('[kubelet-start] Starting the kubelet');
  // The kubelet runs the static pods (etcd, kube-apiserver); kubeadm only waits for them, as the real one does.
  systemctl('restart', 'kubelet');
  saveState({
    kubernetesVersion: cluster.kubernetesVersion,
    endpoint: cluster.controlPlaneEndpoint ?? `${config.advertiseAddress}:${config.bindPort}`,
    controlPlane: true,
  });
  const caPem = readFileSync(`${PKI}/ca.crt`, 'utf8');
  log('[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory "/etc/kubernetes/manifests"');
  await waitHealthy(`${config.advertiseAddress}:${config.bindPort}`, caPem, 240, 'the local kube-apiserver');
  // Every later phase talks to the cluster through admin.conf, i.e. the control-plane endpoint: a load balancer
  // that does not forward to this node fails init here, as on a real cloud.
  if (cluster.controlPlaneEndpoint) await waitHealthy(cluster.controlPlaneEndpoint, caPem, 240, `the control-plane endpoint ${cluster.controlPlaneEndpoint}`);
  await virtualSleep(KUBE_TIMINGS.kubeadmInitMs / 1000);
  log('[upload-config] Storing the configuration used in ConfigMap "kubeadm-config" in the "kube-system" Namespace');
  log('[bootstrap-token] Creating the "cluster-info" ConfigMap in the "kube-public" namespace');
  await report('kubeadm-init-ok', { caPem });
  log('\nYour Kubernetes control-plane has initialized successfully!');
  if (!argv.includes('--skip-token-print'))
    log(`\nkubeadm join ${cluster.controlPlaneEndpoint ?? ''} --token <value withheld> --discovery-token-ca-cert-hash ${publicKeyPin(caPem)}`);
}

// ---- join ---------------------------------------------------------------------------------------------------------

/** Token discovery (discovery/token/token.go): insecure fetch, JWS + pin, then the same object over verified TLS. */
async function discover(config: JoinConfig): Promise<{ caPem: string; server: string }> {
  const server = `https://${config.apiServerEndpoint}`;
  log(`[discovery] Trying to connect to API Server "${config.apiServerEndpoint}"`);
  const deadline = KUBE_TIMINGS.discoveryTimeoutMs / 1000;
  const startedReal = Date.now();
  let last = '';
  for (let waited = 0; waited < deadline; waited += KUBE_TIMINGS.discoveryRetryMs / 1000) {
    let data: Record<string, string> | undefined;
    try {
      const res = await kubeRequest({ server, path: CLUSTER_INFO_PATH, timeoutMs: 3000 });
      if (res.status === 200) data = (res.json() as { data?: Record<string, string> }).data ?? {};
      else last = `${res.status} ${res.text.trim()}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (data) {
      const verdict = verifyClusterInfo(data, config.token, config.caCertHashes);
      if (verdict.ok) {
        log(
          `[discovery] Cluster info signature and contents are valid and TLS certificate ` +
            `validates against pinned roots, will use API Server "${config.apiServerEndpoint}"`,
        );
        let secure;
        try {
          secure = await kubeRequest({ server, caPem: verdict.value.caPem, path: CLUSTER_INFO_PATH, timeoutMs: 5000 });
        } catch (error) {
          throw new KubeadmFailure('preflight', `couldn't validate the identity of the API Server: ${error instanceof Error ? error.message : String(error)}`);
        }
        const again = secure.status === 200 ? (secure.json() as { data?: Record<string, string> }).data?.['kubeconfig'] : undefined;
        if (again !== verdict.value.kubeconfig)
          throw new KubeadmFailure(
            'preflight',
            "couldn't validate the identity of the API Server: the second kubeconfig from " +
              'the cluster-info ConfigMap (using validated TLS) was different from the first',
          );
        return { caPem: verdict.value.caPem, server };
      }
      // A missing signature may be the bootstrap signer not having run yet: kubeadm keeps polling; anything else is final.
      if (!verdict.reason.startsWith('token id')) throw new KubeadmFailure('preflight', `couldn't validate the identity of the API Server: ${verdict.reason}`);
      last = verdict.reason;
    }
    log(`[discovery] Failed to request cluster-info, will try again: ${last}`);
    if (Date.now() - startedReal > 300_000) break;
    await virtualSleep(KUBE_TIMINGS.discoveryRetryMs / 1000);
  }
  throw new KubeadmFailure('preflight', `couldn't validate the identity of the API Server: ${last}`);
}

/** The kubelet's TLS bootstrap (kubelet-start): a CSR with the bootstrap token, signed by the cluster, kubelet.conf. */
/**
 * A ConfigMap of kube-system that kubeadm init uploaded, read with the bootstrap token as kubeadm join reads it (the
 * RBAC kubeadm sets up lets the token's group read kubeadm-config and kubelet-config). Its data, or the phase's error.
 */
async function clusterConfigMap(name: string, phase: string, config: JoinConfig, caPem: string, server: string): Promise<Record<string, unknown>> {
  const res = await kubeRequest({ server, caPem, token: config.token, path: `/api/v1/namespaces/kube-system/configmaps/${name}` });
  if (res.status !== 200) {
    const reason = res.status === 404 ? `configmaps "${name}" not found` : `${res.status}: ${res.text.trim().slice(0, 200)}`;
    throw new KubeadmFailure(phase, `unable to fetch the ${name} ConfigMap: failed to get config map: ${reason}`);
  }
  const data = (res.json() as { data?: Record<string, unknown> }).data;
  return data ?? {};
}

async function tlsBootstrap(config: JoinConfig, caPem: string, server: string): Promise<void> {
  // The kubelet's configuration and flags first: the kubelet unit, crash-looping until now, starts as soon as the
  // bootstrap kubeconfig is there and must find them (phases/kubelet: WriteConfigToDisk, WriteKubeletDynamicEnvFile).
  // The configuration is the cluster's, from the kubelet-config ConfigMap init uploaded (not this node's file).
  const kubelet = await clusterConfigMap(KUBELET_CONFIGMAP, 'kubelet-start', config, caPem, server);
  const given = parseAllDocuments(typeof kubelet['kubelet'] === 'string' ? kubelet['kubelet'] : '')[0]?.toJS() as Record<string, unknown> | undefined;
  writeKubeletConfig(config.node, kubeletConfiguration(given ?? undefined));
  write(
    '/etc/kubernetes/bootstrap-kubelet.conf',
    renderKubeconfig({ clusterName: 'kubernetes', server, caPem, user: 'tls-bootstrap-token-user', token: config.token }),
  );
  write(CA_CERT_PATH, caPem, 0o644);
  log('[kubelet-start] Starting the kubelet');
  log('[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap');
  const key = newKey();
  const csr = newCsr(key, `/O=system:nodes/CN=system:node:${config.node.name}`);
  const created = await kubeRequest({
    server,
    caPem,
    token: config.token,
    method: 'POST',
    path: '/apis/certificates.k8s.io/v1/certificatesigningrequests',
    body: {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { generateName: 'csr-' },
      spec: {
        request: Buffer.from(csr).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        usages: ['digital signature', 'client auth'],
      },
    },
  });
  if (created.status !== 201)
    throw new KubeadmFailure('kubelet-start', `error uploading crisocket: the kubelet's TLS bootstrap failed: ${created.status} ${created.text.trim()}`);
  const name = (created.json() as { metadata?: { name?: string } }).metadata?.name ?? '';
  let certificate: string | undefined;
  for (let i = 0; i < 240 && certificate === undefined; i += 1) {
    const res = await kubeRequest({ server, caPem, token: config.token, path: `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}` });
    const b64 = res.status === 200 ? (res.json() as { status?: { certificate?: string } }).status?.certificate : undefined;
    if (b64) certificate = Buffer.from(b64, 'base64').toString('utf8');
    else await virtualSleep(1);
  }
  if (!certificate) throw new KubeadmFailure('kubelet-start', 'timed out waiting for the condition: the kubelet client certificate was never signed');
  write(KUBELET_CLIENT_PEM, `${certificate}${key}`);
  write(
    '/etc/kubernetes/kubelet.conf',
    renderKubeconfig({ clusterName: 'default-cluster', server, caPem, user: 'default-auth', certFile: KUBELET_CLIENT_PEM }),
  );
  rmSync('/etc/kubernetes/bootstrap-kubelet.conf', { force: true });
  systemctl('restart', 'kubelet');
}

interface EtcdMember {
  ID?: number | string;
  name?: string;
  peerURLs?: string[];
}

function etcdctl(endpoints: string[], args: string[]): string {
  return execFileSync(
    'etcdctl',
    [
      `--endpoints=${endpoints.join(',')}`,
      `--cacert=${PKI}/etcd/ca.crt`,
      `--cert=${PKI}/apiserver-etcd-client.crt`,
      `--key=${PKI}/apiserver-etcd-client.key`,
      '--dial-timeout=5s',
      '--command-timeout=10s',
      ...args,
    ],
    { env: { ...process.env, ETCDCTL_API: '3' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** phases/join/controlplanejoin.go + etcd/etcd.go AddMember: the members are the control-plane Nodes' addresses. */
async function etcdMemberAdd(nodeName: string, advertiseAddress: string): Promise<string> {
  const admin = readKubeconfig('/etc/kubernetes/admin.conf');
  const res = await kubeRequest({ ...admin, path: '/api/v1/nodes?labelSelector=node-role.kubernetes.io%2Fcontrol-plane' });
  if (res.status !== 200)
    throw new KubeadmFailure(
      'control-plane-join/etcd',
      `error creating local etcd static pod manifest file: could not list the control-plane Nodes: ${res.status} ${res.text.trim()}`,
    );
  const nodes =
    (res.json() as { items?: Array<{ metadata?: { name?: string }; status?: { addresses?: Array<{ type?: string; address?: string }> } }> }).items ?? [];
  const endpoints = nodes
    .filter((n) => n.metadata?.name !== nodeName)
    .map((n) => n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address)
    .filter((a): a is string => typeof a === 'string')
    .map((a) => `https://${a}:2379`);
  if (endpoints.length === 0)
    throw new KubeadmFailure(
      'control-plane-join/etcd',
      'error creating local etcd static pod manifest file: no control-plane Node with an InternalIP: no etcd member to join',
    );
  const peerUrl = `https://${advertiseAddress}:2380`;
  let members: EtcdMember[];
  try {
    members = (JSON.parse(etcdctl(endpoints, ['member', 'list', '-w', 'json'])) as { members?: EtcdMember[] }).members ?? [];
    if (!members.some((m) => m.peerURLs?.includes(peerUrl))) {
      log(`[etcd] Announced new etcd member joining to the existing etcd cluster`);
      etcdctl(endpoints, ['member', 'add', nodeName, `--peer-urls=${peerUrl}`]);
      members = (JSON.parse(etcdctl(endpoints, ['member', 'list', '-w', 'json'])) as { members?: EtcdMember[] }).members ?? [];
    }
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? (error instanceof Error ? error.message : String(error));
    throw new KubeadmFailure('control-plane-join/etcd', `error creating local etcd static pod manifest file: etcdserver: ${stderr.trim()}`);
  }
  return members
    .map((m) => `${m.peerURLs?.includes(peerUrl) ? nodeName : (m.name ?? '')}=${m.peerURLs?.[0] ?? ''}`)
    .filter((entry) => !entry.startsWith('='))
    .join(',');
}

/** etcd/etcd.go WaitForClusterAvailable: the local member answers healthy, a virtual second between tries. */
async function waitEtcd(): Promise<void> {
  let last = '';
  for (let i = 0; i < 120; i += 1) {
    try {
      etcdctl(['https://127.0.0.1:2379'], ['endpoint', 'health']);
      return;
    } catch (error) {
      last = ((error as { stderr?: string }).stderr ?? String(error)).trim().split('\n')[0] ?? '';
    }
    await virtualSleep(1);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new KubeadmFailure(
    'control-plane-join/etcd',
    `error creating local etcd static pod manifest file: timeout waiting for etcd cluster to be available: ${last}`,
  );
}

async function join(argv: string[], kubeadmVersion: string): Promise<void> {
  let config: JoinConfig;
  try {
    config = parseJoinConfig(readConfig(argv), kubeadmVersion);
  } catch (error) {
    if (error instanceof KubeadmConfigError) throw new KubeadmFailure('preflight', error.message);
    throw error;
  }
  const controlPlane = config.controlPlane !== undefined;
  log('[preflight] Running pre-flight checks');
  const kubelet = installedVersion('kubelet');
  const view = await diskView();
  failPreflight(
    joinPreflight(view, {
      controlPlane,
      apiServerEndpoint: config.apiServerEndpoint,
      kubeadmVersion,
      kubeletVersion: kubelet === undefined ? undefined : upstreamVersion(kubelet),
      ...(config.node.criSocket ? { criSocket: config.node.criSocket } : {}),
    }),
  );
  const { caPem, server } = await discover(config);
  const version = await kubeRequest({ server, caPem, token: config.token, path: '/version' });
  const clusterVersion = version.status === 200 ? String((version.json() as { gitVersion?: string }).gitVersion ?? '') : '';
  if (kubelet !== undefined && clusterVersion) {
    const skew = kubeletSkewError(upstreamVersion(kubelet), clusterVersion);
    if (skew) throw new KubeadmFailure('kubelet-start', skew);
  }
  // phases/join/kubelet.go: a Ready Node of this name is another machine's; joining would take it over.
  log(`[kubelet-start] Checking for an existing Node in the cluster with name "${config.node.name}" and status "Ready"`);
  const existing = await kubeRequest({ server, caPem, token: config.token, path: `/api/v1/nodes/${config.node.name}` });
  if (existing.status === 200) {
    const conditions = (existing.json() as { status?: { conditions?: Array<{ type?: string; status?: string }> } }).status?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Ready' && c.status === 'True')) {
      throw new KubeadmFailure(
        'kubelet-start',
        `a Node with name "${config.node.name}" and status "Ready" already exists in the ` +
          `cluster. You must delete the existing Node or change the name of this new joining Node`,
      );
    }
  }
  if (!config.controlPlane) {
    await tlsBootstrap(config, caPem, server);
    saveState({ kubernetesVersion: clusterVersion, endpoint: config.apiServerEndpoint, controlPlane: false });
    await virtualSleep(KUBE_TIMINGS.kubeadmJoinMs / 1000);
    await report('kubeadm-join-ok', { controlPlane: false });
    log(
      '\nThis node has joined the cluster:\n* Certificate signing request was sent to apiserver and ' +
        'a response was received.\n* The Kubelet was informed of the new secure connection details.',
    );
    return;
  }
  // A control plane without --certificate-key brings the shared certificates itself; they must be this cluster's.
  // With one, kubeadm downloads them from the kubeadm-certs Secret instead (checkIfReadyForAdditionalControlPlane
  // skips the files), which no upload-certs ever made on a kubeplane cluster.
  log('[preflight] Running pre-flight checks before initializing the new control plane instance');
  if (config.controlPlane.certificateKey) {
    log('[download-certs] Downloading the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace');
    throw new KubeadmFailure('control-plane-prepare/download-certs', downloadCertsError(config.token));
  }
  const notReady = additionalControlPlaneError(view, config.apiServerEndpoint);
  if (notReady) throw new KubeadmFailure('preflight', notReady);
  const localPin = publicKeyPin(readFileSync(CA_CERT_PATH, 'utf8'));
  if (localPin !== publicKeyPin(caPem))
    throw new KubeadmFailure(
      'control-plane-prepare/certs',
      `failure loading certificate authority: the CA on disk (${localPin}) is not the cluster's CA found in cluster-info`,
    );
  const { advertiseAddress, bindPort } = config.controlPlane;
  // The cluster's ClusterConfiguration, from the kubeadm-config ConfigMap init uploaded: its networks, SANs and etcd
  // names are what this control plane's certificates must hold.
  const cluster = clusterConfigFromConfigMap(await clusterConfigMap(KUBEADM_CONFIGMAP, 'preflight', config, caPem, server), clusterVersion || kubeadmVersion);
  controlPlaneCerts(cluster, config.node.name, advertiseAddress);
  writeKubeconfigs(cluster, config.node.name, advertiseAddress, bindPort, ['admin', 'super-admin', 'controller-manager', 'scheduler']);
  writeControlPlaneManifests(cluster, advertiseAddress, bindPort);
  // kubelet-start comes before control-plane-join: the TLS bootstrap runs while the cluster's etcd still has quorum.
  await tlsBootstrap(config, caPem, server);
  const initialCluster = await etcdMemberAdd(config.node.name, advertiseAddress);
  writeEtcdManifest(cluster, config.node.name, advertiseAddress, initialCluster, 'existing');
  saveState({ kubernetesVersion: cluster.kubernetesVersion, endpoint: config.apiServerEndpoint, controlPlane: true });
  log('[etcd] Waiting for the new etcd member to join the cluster. This can take up to 40s');
  await waitEtcd();
  await waitHealthy(`${advertiseAddress}:${bindPort}`, caPem, 240, 'the new kube-apiserver');
  await virtualSleep(KUBE_TIMINGS.kubeadmControlPlaneJoinMs / 1000);
  await report('kubeadm-join-ok', { controlPlane: true });
  log('\nThis node has joined the cluster and a new control plane instance was created');
}

// ---- reset (cmd/kubeadm/app/cmd/phases/reset/{removeetcdmember,cleanupnode}.go) -----------------------------------

async function reset(): Promise<void> {
  log('[reset] Reading configuration from the cluster...');
  const etcdManifest = `${MANIFESTS_DIR}/etcd.yaml`;
  if (existsSync(etcdManifest) && daemonPid('etcd') !== undefined) {
    // Leave the etcd cluster first, so a later join of this node is not a second member with the same address.
    try {
      const status = JSON.parse(etcdctl(['https://127.0.0.1:2379'], ['endpoint', 'status', '-w', 'json'])) as Array<{
        Status?: { header?: { member_id?: number | string } };
      }>;
      const id = status[0]?.Status?.header?.member_id;
      const members = (JSON.parse(etcdctl(['https://127.0.0.1:2379'], ['member', 'list', '-w', 'json'])) as { members?: EtcdMember[] }).members ?? [];
      if (id !== undefined && members.length > 1) etcdctl(['https://127.0.0.1:2379'], ['member', 'remove', BigInt(id).toString(16)]);
    } catch (error) {
      process.stderr.write(`[reset] WARNING: failed to remove etcd member: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`);
    }
  }
  log('[reset] Stopping the kubelet service');
  systemctl('stop', 'kubelet');
  await stopDaemon('kubelet');
  log('[reset] Unmounting mounted directories in "/var/lib/kubelet"');
  for (const f of existsSync(MANIFESTS_DIR) ? readdirSync(MANIFESTS_DIR) : []) rmSync(`${MANIFESTS_DIR}/${f}`, { force: true });
  await stopDaemon('kube-apiserver');
  await stopDaemon('etcd');
  const dirs = ['/var/lib/etcd', KUBELET_DIR, PKI];
  log(`[reset] Deleting contents of directories: [${[MANIFESTS_DIR, ...dirs].join(' ')}]`);
  for (const d of dirs) for (const f of existsSync(d) ? readdirSync(d) : []) rmSync(`${d}/${f}`, { recursive: true, force: true });
  const files = ['admin.conf', 'super-admin.conf', 'kubelet.conf', 'bootstrap-kubelet.conf', 'controller-manager.conf', 'scheduler.conf'].map(
    (f) => `/etc/kubernetes/${f}`,
  );
  log(`[reset] Deleting files: [${files.join(' ')}]`);
  for (const f of files) rmSync(f, { force: true });
  rmSync(STATE_FILE, { force: true });
  log('\nThe reset process does not clean CNI configuration. To do so, you must remove /etc/cni/net.d');
}

// ---- upgrade (cmd/kubeadm/app/cmd/upgrade/{apply,node}.go) --------------------------------------------------------

async function clusterFacts(kubeconfigPath: string): Promise<{ version: string; kubelets: string[] }> {
  const creds = readKubeconfig(kubeconfigPath);
  const v = await kubeRequest({ ...creds, path: '/version' });
  if (v.status !== 200) throw new KubeadmFailure('upgrade', `Unable to fetch cluster version: ${v.status} ${v.text.trim()}`);
  const nodes = await kubeRequest({ ...creds, path: '/api/v1/nodes' });
  const items = nodes.status === 200 ? ((nodes.json() as { items?: Array<{ status?: { nodeInfo?: { kubeletVersion?: string } } }> }).items ?? []) : [];
  return {
    version: String((v.json() as { gitVersion?: string }).gitVersion ?? ''),
    kubelets: items.map((n) => n.status?.nodeInfo?.kubeletVersion ?? '').filter((k) => k.length > 0),
  };
}

async function upgrade(argv: string[], kubeadmVersion: string): Promise<void> {
  const mode = argv[0];
  if (mode === 'apply') {
    const target = argv.slice(1).find((a) => /^v?\d+\.\d+\.\d+/.test(a));
    if (!target) throw new KubeadmFailure('upgrade/version', 'missing one or more required arguments. Required arguments: [version]');
    const facts = await clusterFacts('/etc/kubernetes/admin.conf');
    log(`[upgrade/versions] Cluster version: ${facts.version}\n[upgrade/versions] kubeadm version: ${kubeadmVersion}`);
    const errors = upgradeApplyErrors({ clusterVersion: facts.version, kubeadmVersion, target, kubeletVersions: facts.kubelets });
    if (errors.length > 0) {
      throw new KubeadmFailure(
        'upgrade/version',
        `the version argument is invalid due to these fatal errors:\n\n${errors.map((e) => `\t- ${e}`).join('\n')}\n\nPlease ` +
          `fix the misalignments highlighted above and try upgrading again`,
      );
    }
    const version = target.replace(/^v/, '');
    const manifest = `${MANIFESTS_DIR}/kube-apiserver.yaml`;
    if (existsSync(manifest)) write(manifest, readFileSync(manifest, 'utf8').replace(/(registry\.k8s\.io\/kube-apiserver:)v[\w.-]+/, `$1v${version}`), 0o600);
    await virtualSleep(KUBE_TIMINGS.kubeadmUpgradeMs / 2000);
    saveState({ ...(loadState() ?? { endpoint: '', controlPlane: true }), kubernetesVersion: `v${version}` });
    await report('kubeadm-upgrade-ok', { version, mode: 'apply' });
    log(`[upgrade/successful] SUCCESS! Your cluster was upgraded to "v${version}". Enjoy!`);
    return;
  }
  if (mode === 'node') {
    const kubeconfig = existsSync('/etc/kubernetes/admin.conf') ? '/etc/kubernetes/admin.conf' : '/etc/kubernetes/kubelet.conf';
    const facts = await clusterFacts(kubeconfig);
    const errors = upgradeNodeErrors({ clusterVersion: facts.version, kubeadmVersion });
    if (errors.length > 0) throw new KubeadmFailure('upgrade/node', errors.join('\n'));
    await virtualSleep(KUBE_TIMINGS.kubeadmUpgradeMs / 4000);
    saveState({ ...(loadState() ?? { endpoint: '', controlPlane: false }), kubernetesVersion: facts.version });
    await report('kubeadm-upgrade-ok', { version: facts.version.replace(/^v/, ''), mode: 'node' });
    log('[upgrade] The configuration for this node was successfully updated!');
    return;
  }
  throw new KubeadmFailure('upgrade', `unknown command "${mode ?? ''}" for "kubeadm upgrade"`);
}

// ---- certs renew (cmd/kubeadm/app/cmd/certs.go, phases/certs/renewal/manager.go) --------------------------------------

// What `kubeadm certs renew` knows: the certificate (or kubeconfig) file and the CA that signs it. Renewal keeps the
// existing certificate's subject and SANs, takes a new key and a new validity (renewal/readwriter.go).
const RENEWABLE: Record<string, { file: string; ca: string; usages: Array<'server' | 'client'> }> = {
  apiserver: { file: `${PKI}/apiserver.crt`, ca: `${PKI}/ca`, usages: ['server'] },
  'apiserver-kubelet-client': { file: `${PKI}/apiserver-kubelet-client.crt`, ca: `${PKI}/ca`, usages: ['client'] },
  'apiserver-etcd-client': { file: `${PKI}/apiserver-etcd-client.crt`, ca: `${PKI}/etcd/ca`, usages: ['client'] },
  'front-proxy-client': { file: `${PKI}/front-proxy-client.crt`, ca: `${PKI}/front-proxy-ca`, usages: ['client'] },
  'etcd-server': { file: `${PKI}/etcd/server.crt`, ca: `${PKI}/etcd/ca`, usages: ['server', 'client'] },
  'etcd-peer': { file: `${PKI}/etcd/peer.crt`, ca: `${PKI}/etcd/ca`, usages: ['server', 'client'] },
  'etcd-healthcheck-client': { file: `${PKI}/etcd/healthcheck-client.crt`, ca: `${PKI}/etcd/ca`, usages: ['client'] },
  'admin.conf': { file: '/etc/kubernetes/admin.conf', ca: `${PKI}/ca`, usages: ['client'] },
  'super-admin.conf': { file: '/etc/kubernetes/super-admin.conf', ca: `${PKI}/ca`, usages: ['client'] },
  'controller-manager.conf': { file: '/etc/kubernetes/controller-manager.conf', ca: `${PKI}/ca`, usages: ['client'] },
  'scheduler.conf': { file: '/etc/kubernetes/scheduler.conf', ca: `${PKI}/ca`, usages: ['client'] },
};

function subjectOf(cert: X509Certificate): string {
  // node prints the subject one RDN per line ("O=..", "CN=.."); openssl's -subj takes them slash-separated.
  return `/${cert.subject
    .split('\n')
    .filter((l) => l.length > 0)
    .join('/')}`;
}

function renewOne(name: string): void {
  const spec = RENEWABLE[name];
  if (!spec) throw new KubeadmFailure('certs renew', `unknown command "${name}" for "kubeadm certs renew"`);
  if (!existsSync(spec.file)) {
    log(`MISSING! ${name}`);
    return;
  }
  if (!existsSync(`${spec.ca}.key`))
    throw new KubeadmFailure(
      'certs renew',
      `failed to renew ${name}: certificate authority ${spec.ca.slice(PKI.length + 1)} is not present: ${spec.ca}.key: no such file or directory`,
    );
  const isKubeconfig = spec.file.endsWith('.conf');
  const creds = isKubeconfig ? readKubeconfig(spec.file) : undefined;
  const old = new X509Certificate(creds?.certPem ?? readFileSync(spec.file, 'utf8'));
  const sans = (old.subjectAltName ?? '').split(', ').filter((x) => x.length > 0);
  const tmp = `${STANDIN_STATE_DIR}/kubeadm/renew`;
  const issued = issueToFiles(
    tmp,
    { cert: `${spec.ca}.crt`, key: `${spec.ca}.key` },
    {
      subject: subjectOf(old),
      usages: spec.usages,
      dnsNames: sans.filter((x) => x.startsWith('DNS:')).map((x) => x.slice(4)),
      ipAddresses: sans.filter((x) => x.startsWith('IP Address:')).map((x) => x.slice(11)),
    },
  );
  rmSync(`${tmp}.crt`, { force: true });
  rmSync(`${tmp}.key`, { force: true });
  if (creds) {
    const text = readFileSync(spec.file, 'utf8')
      .replace(/client-certificate-data: \S+/, `client-certificate-data: ${Buffer.from(issued.cert).toString('base64')}`)
      .replace(/client-key-data: \S+/, `client-key-data: ${Buffer.from(issued.key).toString('base64')}`);
    write(spec.file, text);
  } else {
    write(spec.file, issued.cert, 0o644);
    write(spec.file.replace(/\.crt$/, '.key'), issued.key);
  }
  log(`${name} renewed`);
}

function certs(argv: string[]): void {
  if (argv[0] !== 'renew') throw new KubeadmFailure('certs', `unknown command "${argv[0] ?? ''}" for "kubeadm certs" (the sandbox's kubeadm does renew)`);
  const which = argv.slice(1).filter((a) => !a.startsWith('-'));
  if (which.length === 0) throw new KubeadmFailure('certs renew', 'missing subcommand; "kubeadm certs renew" is not meant to be run on its own');
  for (const name of which[0] === 'all' ? Object.keys(RENEWABLE) : which) renewOne(name);
  log(
    '\nDone renewing certificates. You must restart the kube-apiserver, kube-controller-manager, ' +
      'kube-scheduler and etcd, so that they can use the new certificates.',
  );
}

// ---- main -----------------------------------------------------------------------------------------------------------

async function main(argv: string[]): Promise<number> {
  const kubeadmVersion = requireInstalled('kubeadm', 'kubeadm');
  const command = argv[0];
  try {
    switch (command) {
      case 'version':
        if (flagValue(argv, 'output') === 'short' || (argv.includes('-o') && argv[argv.indexOf('-o') + 1] === 'short')) log(kubeadmVersion);
        else
          log(
            `kubeadm version: &version.Info{Major:"1", Minor:"${kubeadmVersion.split('.')[1] ?? ''}", GitVersion:"${kubeadmVersion}", Platform:"linux/amd64"}`,
          );
        return 0;
      case 'init':
        await init(argv.slice(1), kubeadmVersion);
        return 0;
      case 'join':
        await join(argv.slice(1), kubeadmVersion);
        return 0;
      case 'reset':
        if (!argv.includes('--force') && !argv.includes('-f'))
          throw new KubeadmFailure('reset', 'kubeplane stand-in: reset asks for confirmation; run it with --force');
        await reset();
        return 0;
      case 'upgrade':
        await upgrade(argv.slice(1), kubeadmVersion);
        return 0;
      case 'certs':
        certs(argv.slice(1));
        return 0;
      default:
        process.stderr.write(`unknown command "${command ?? ''}" for "kubeadm"\n`);
        return 1;
    }
  } catch (error) {
    const failure = error instanceof KubeadmFailure ? error : new KubeadmFailure(command ?? 'kubeadm', error instanceof Error ? error.message : String(error));
    if (!failure.printed)
      process.stderr.write(`error execution phase ${failure.phase}: ${failure.message}\nTo see the stack trace of this error execute with --v=5 or higher\n`);
    try {
      await report('kubeadm-failed', { reason: `${command ?? 'kubeadm'}: ${failure.phase}: ${failure.message}` });
    } catch {
      // No harness to tell (kubeadm run by hand): the exit code says it.
    }
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
