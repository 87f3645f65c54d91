// kubeadm's own refusals as a pure table: the preflight checks of `init`, `join` and `join --control-plane`, and
// the version-skew rules of `join` and `upgrade`, over an abstract view of a node, in kubeadm's wording. Shared by
// the netns kubeadm stand-in (a real disk) and the fast simulated kubelets (the files a machine's boot would write).
//
// Upstream sources (kubernetes/kubernetes):
//   cmd/kubeadm/app/preflight/checks.go   InitNodeChecks, JoinNodeChecks, addCommonChecks, RunChecks, handleError,
//                                          FileAvailableCheck, DirAvailableCheck, FileContentCheck, PortOpenCheck,
//                                          KubernetesVersionCheck, KubeletVersionCheck
//   cmd/kubeadm/app/preflight/checks_linux.go   addIPv4Checks (/proc/sys/net/ipv4/ip_forward must be 1)
//   cmd/kubeadm/app/cmd/phases/join/preflight.go   control-plane join: RunJoinNodeChecks, then the shared
//                                          certificates, then RunInitNodeChecks(isSecondaryControlPlane=true)
//   cmd/kubeadm/app/phases/upgrade/policy.go   EnforceVersionPolicies (one minor at a time, kubeadm >= target)
//   https://kubernetes.io/releases/version-skew-policy/   kubelet never newer than kube-apiserver, at most 3 older

import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';

/** What the checks may look at on a node; a real disk or the files its user-data and boot script would write. */
export interface NodeView {
  exists(path: string): boolean;
  read(path: string): string | undefined;
  /** Names in a directory (DirAvailableCheck); undefined when it does not exist. */
  entries?(path: string): string[] | undefined;
  /** TCP ports something already listens on (PortOpenCheck); unknown when absent. */
  portsInUse?: ReadonlySet<number>;
  /** The content of /proc/sys/net/ipv4/ip_forward (per network namespace); unknown when absent. */
  ipForward?: string;
  /** Whether a container runtime listens on the unix socket at `path`; unknown when absent. */
  runtimeListens?(path: string): boolean;
}

/** One failed check: printed by kubeadm as `[ERROR <check>]: <message>`. */
export interface PreflightError {
  check: string;
  message: string;
}

export const KUBERNETES_DIR = '/etc/kubernetes';
export const PKI_DIR = '/etc/kubernetes/pki';
export const CA_CERT_PATH = `${PKI_DIR}/ca.crt`;
export const KUBELET_KUBECONFIG = `${KUBERNETES_DIR}/kubelet.conf`;
export const BOOTSTRAP_KUBELET_KUBECONFIG = `${KUBERNETES_DIR}/bootstrap-kubelet.conf`;
export const MANIFESTS_DIR = `${KUBERNETES_DIR}/manifests`;
/** The kubelet flags kubeadm writes at kubelet-start, passed by the unit's drop-in as $KUBELET_KUBEADM_ARGS. */
export const KUBELET_FLAGS_FILE = '/var/lib/kubelet/kubeadm-flags.env';

/**
 * The kubelet's check of --node-ip (pkg/kubelet/nodestatus/setters.go validateNodeIP): the address must be one of the
 * host's interfaces'. Its error, or undefined.
 */
export function nodeIpError(nodeIp: string | undefined, addresses: readonly string[]): string | undefined {
  if (!nodeIp || addresses.includes(nodeIp)) return undefined;
  return `failed to validate nodeIP: node IP: "${nodeIp}" not found in the host's network interfaces`;
}
export const ETCD_DATA_DIR = '/var/lib/etcd';
export const IPV4_FORWARD = '/proc/sys/net/ipv4/ip_forward';

// cmd/kubeadm/app/constants/constants.go
export const KUBELET_PORT = 10250;
export const KUBE_SCHEDULER_PORT = 10259;
export const KUBE_CONTROLLER_MANAGER_PORT = 10257;
export const ETCD_CLIENT_PORT = 2379;
export const ETCD_PEER_PORT = 2380;
export const API_SERVER_PORT = 6443;

/** Every port a preflight may ask about, so a caller can probe them before building its view. */
export const PREFLIGHT_PORTS = [API_SERVER_PORT, KUBE_SCHEDULER_PORT, KUBE_CONTROLLER_MANAGER_PORT, ETCD_CLIENT_PORT, ETCD_PEER_PORT, KUBELET_PORT] as const;

/** The CA material control planes share (certs.SharedCertificateExists); `join --control-plane` needs it on disk. */
export const SHARED_CERTIFICATES = ['ca.crt', 'ca.key', 'sa.key', 'sa.pub', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'etcd/ca.crt', 'etcd/ca.key'] as const;

// ---- versions ----------------------------------------------------------------------------------------------------

export interface Semver {
  major: number;
  minor: number;
  patch: number;
}

/** `v1.34.2`, `1.34.2`, `1.34.2-1.1` (a Debian package version) → 1.34.2; undefined when it is none of these. */
export function parseVersion(text: string): Semver | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(text.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

export function formatVersion(v: Semver): string {
  return `v${v.major}.${v.minor}.${v.patch}`;
}

function compare(a: Semver, b: Semver): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

function mustParse(text: string, what: string): Semver {
  const v = parseVersion(text);
  if (!v) throw new Error(`couldn't parse ${what} version "${text}"`);
  return v;
}

/** kubeadm's MinimumKubeletVersion: three minors below its own (the version-skew policy's kubelet window). */
export const KUBELET_SKEW_MINORS = 3;

// ---- the check primitives (checks.go), named as kubeadm names them -------------------------------------------------

function label(kind: string, path: string): string {
  return `${kind}-${path.replace(/\//g, '-')}`;
}

function fileAvailable(view: NodeView, path: string): PreflightError[] {
  return view.exists(path) ? [{ check: label('FileAvailable', path), message: `${path} already exists` }] : [];
}

function dirAvailable(view: NodeView, path: string): PreflightError[] {
  if (!view.exists(path)) return [];
  const entries = view.entries?.(path);
  return entries !== undefined && entries.length > 0 ? [{ check: label('DirAvailable', path), message: `${path} is not empty` }] : [];
}

function portOpen(view: NodeView, port: number): PreflightError[] {
  return view.portsInUse?.has(port) ? [{ check: `Port-${port}`, message: `Port ${port} is in use` }] : [];
}

function ipv4Forward(view: NodeView): PreflightError[] {
  if (view.ipForward === undefined) return [];
  if (view.ipForward.trim().startsWith('1')) return [];
  return [{ check: label('FileContent', IPV4_FORWARD), message: `${IPV4_FORWARD} contents are not set to 1` }];
}

/** KubeletVersionCheck: not below kubeadm's minimum, and (when the control plane version is known) not newer than it. */
export function kubeletVersionErrors(kubeletVersion: string | undefined, kubeadmVersion: string, controlPlaneVersion?: string): PreflightError[] {
  if (kubeletVersion === undefined)
    return [{ check: 'KubeletVersion', message: 'couldn\'t get kubelet version: exec: "kubelet": executable file not found in $PATH' }];
  const kubelet = parseVersion(kubeletVersion);
  if (!kubelet) return [{ check: 'KubeletVersion', message: `couldn't get kubelet version: couldn't parse kubelet version "${kubeletVersion}"` }];
  const kubeadm = mustParse(kubeadmVersion, 'kubeadm');
  const minimum: Semver = { major: kubeadm.major, minor: Math.max(0, kubeadm.minor - KUBELET_SKEW_MINORS), patch: 0 };
  if (compare(kubelet, minimum) < 0) {
    return [{ check: 'KubeletVersion', message: `Kubelet version "${formatVersion(kubelet)}" is lower than kubeadm can support. Please upgrade kubelet` }];
  }
  if (controlPlaneVersion !== undefined) {
    const cp = mustParse(controlPlaneVersion, 'Kubernetes');
    if (kubelet.major > cp.major || kubelet.minor > cp.minor) {
      return [
        {
          check: 'KubeletVersion',
          message:
            `the kubelet version is higher than the control plane version. This is not a supported version skew and may lead to ` +
            `a malfunctional cluster. Kubelet version: "${formatVersion(kubelet)}" Control plane version: "${formatVersion(cp)}"`,
        },
      ];
    }
  }
  return [];
}

/** KubernetesVersionCheck: kubeadm cannot set up a minor newer than its own. Upstream makes this a warning. */
export function kubernetesVersionWarning(kubernetesVersion: string, kubeadmVersion: string): string | undefined {
  const k8s = mustParse(kubernetesVersion, 'Kubernetes');
  const kubeadm = mustParse(kubeadmVersion, 'kubeadm');
  if (k8s.major > kubeadm.major || (k8s.major === kubeadm.major && k8s.minor > kubeadm.minor)) {
    return (
      `Kubernetes version is greater than kubeadm version. Please consider to upgrade kubeadm. Kubernetes ` +
      `version: ${formatVersion(k8s).slice(1)}. Kubeadm version: ${kubeadm.major}.${kubeadm.minor}.x`
    );
  }
  return undefined;
}

// ---- init, join, join --control-plane ----------------------------------------------------------------------------

export interface InitPreflightInput {
  kubernetesVersion: string;
  kubeadmVersion: string;
  /** The installed kubelet's version; undefined when no kubelet is installed. */
  kubeletVersion: string | undefined;
  bindPort?: number;
  etcdDataDir?: string;
  /** nodeRegistration.criSocket, when the config names one. */
  criSocket?: string;
}

export interface PreflightResult {
  errors: PreflightError[];
  warnings: PreflightError[];
}

function controlPlaneInstanceChecks(view: NodeView, input: { bindPort?: number; etcdDataDir?: string }): PreflightError[] {
  return [
    ...portOpen(view, input.bindPort ?? API_SERVER_PORT),
    ...portOpen(view, KUBE_SCHEDULER_PORT),
    ...portOpen(view, KUBE_CONTROLLER_MANAGER_PORT),
    ...['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'].flatMap((c) => fileAvailable(view, `${MANIFESTS_DIR}/${c}.yaml`)),
  ];
}

function localEtcdChecks(view: NodeView, etcdDataDir: string | undefined): PreflightError[] {
  return [...portOpen(view, ETCD_CLIENT_PORT), ...portOpen(view, ETCD_PEER_PORT), ...dirAvailable(view, etcdDataDir ?? ETCD_DATA_DIR)];
}

/**
 * ContainerRuntimeCheck (checks.go; the CRI client of cmd/kubeadm/app/util/runtime): nodeRegistration.criSocket must be
 * a runtime's listening socket (/var/run is /run). Without one kubeadm finds the runtime itself.
 */
function containerRuntime(view: NodeView, criSocket: string | undefined): PreflightError[] {
  if (criSocket === undefined || !view.runtimeListens) return [];
  const path = criSocket.replace(/^unix:\/\//, '').replace(/^\/var\/run\//, '/run/');
  if (view.runtimeListens(path)) return [];
  return [
    {
      check: 'CRI',
      message:
        `container runtime is not running: validate service connection: validate CRI v1 runtime API for endpoint "${criSocket}": ` +
        `rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix ${path}: connect: no such file or directory"`,
    },
  ];
}

function commonChecks(
  view: NodeView,
  kubeletVersion: string | undefined,
  kubeadmVersion: string,
  controlPlaneVersion: string | undefined,
  criSocket?: string,
): PreflightError[] {
  return [...containerRuntime(view, criSocket), ...kubeletVersionErrors(kubeletVersion, kubeadmVersion, controlPlaneVersion), ...portOpen(view, KUBELET_PORT)];
}

/** `kubeadm init` (RunInitNodeChecks, not a secondary control plane), IPv4 service network, local etcd. */
export function initPreflight(view: NodeView, input: InitPreflightInput): PreflightResult {
  const warning = kubernetesVersionWarning(input.kubernetesVersion, input.kubeadmVersion);
  const errors = [
    ...controlPlaneInstanceChecks(view, input),
    ...commonChecks(view, input.kubeletVersion, input.kubeadmVersion, input.kubernetesVersion, input.criSocket),
    ...ipv4Forward(view),
    ...localEtcdChecks(view, input.etcdDataDir),
  ];
  return { errors, warnings: warning ? [{ check: 'KubernetesVersion', message: warning }] : [] };
}

export interface JoinPreflightInput {
  controlPlane: boolean;
  /** discovery.bootstrapToken.apiServerEndpoint (`host:port`): an IP address adds the IPv4 checks. */
  apiServerEndpoint: string;
  kubeadmVersion: string;
  kubeletVersion: string | undefined;
  /** ClusterConfiguration.kubernetesVersion, for a control-plane join (checked against kubeadm's own). */
  kubernetesVersion?: string;
  bindPort?: number;
  etcdDataDir?: string;
  /** nodeRegistration.criSocket, when the config names one. */
  criSocket?: string;
}

function isIpv4(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}

/**
 * `kubeadm join` preflight. A worker refuses a node that already has a kubelet kubeconfig, a bootstrap kubeconfig,
 * or the cluster CA at /etc/kubernetes/pki/ca.crt (FileAvailableCheck{CACertPath}: discovery writes that file, so
 * one found before join means the node is not clean). A control plane skips the CA check — it must bring the shared
 * CA itself — and adds the control-plane instance checks (RunInitNodeChecks with isSecondaryControlPlane).
 */
export function joinPreflight(view: NodeView, input: JoinPreflightInput): PreflightResult {
  const errors: PreflightError[] = [
    ...fileAvailable(view, KUBELET_KUBECONFIG),
    ...fileAvailable(view, BOOTSTRAP_KUBELET_KUBECONFIG),
    ...commonChecks(view, input.kubeletVersion, input.kubeadmVersion, undefined, input.criSocket),
  ];
  if (!input.controlPlane) errors.push(...fileAvailable(view, CA_CERT_PATH));
  const host = input.apiServerEndpoint.slice(0, Math.max(0, input.apiServerEndpoint.lastIndexOf(':')));
  if (isIpv4(host)) errors.push(...ipv4Forward(view));
  const warnings: PreflightError[] = [];
  if (input.controlPlane) {
    errors.push(...controlPlaneInstanceChecks(view, input), ...localEtcdChecks(view, input.etcdDataDir));
    const warning = input.kubernetesVersion ? kubernetesVersionWarning(input.kubernetesVersion, input.kubeadmVersion) : undefined;
    if (warning) warnings.push({ check: 'KubernetesVersion', message: warning });
  }
  return { errors, warnings };
}

/**
 * The shared certificates a control-plane join needs when it downloads none (no --certificate-key): phases/join/
 * preflight.go checkIfReadyForAdditionalControlPlane → certs.SharedCertificateExists. Returns kubeadm's error text,
 * or undefined when all are there.
 */
export function additionalControlPlaneError(view: NodeView, controlPlaneEndpoint: string | undefined): string | undefined {
  const problems: string[] = [];
  if (!controlPlaneEndpoint) problems.push("unable to add a new control plane instance to a cluster that doesn't have a stable controlPlaneEndpoint address");
  for (const name of SHARED_CERTIFICATES) {
    const path = `${PKI_DIR}/${name}`;
    if (!view.exists(path)) problems.push(`failure loading ${name}: couldn't load the file ${path}: open ${path}: no such file or directory`);
  }
  if (problems.length === 0) return undefined;
  return [
    'One or more conditions for hosting a new control plane instance is not satisfied.',
    '',
    problems.join('\n'),
    '',
    'Please ensure that:',
    '* The cluster has a stable controlPlaneEndpoint address.',
    '* The certificates that must be shared among control plane instances are provided.',
    '',
  ].join('\n');
}

/**
 * kubeadm join's control-plane-prepare/download-certs, when the JoinConfiguration gives `controlPlane.certificateKey`:
 * it reads the Secret kube-system/kubeadm-certs as the bootstrap token's user (cmd/kubeadm/app/phases/copycerts/
 * copycerts.go DownloadCerts). The token may read it only through the Role that `kubeadm init --upload-certs` (or
 * `kubeadm init phase upload-certs`) creates with the Secret; kubeplane's init uploads none, so RBAC refuses the read.
 * The phase's error, in kubeadm's and the API server's words.
 */
export function downloadCertsError(token: string): string {
  const id = token.split('.')[0] ?? '';
  return (
    'error downloading certs: error downloading the secret: secrets "kubeadm-certs" is forbidden: ' +
    `User "system:bootstrap:${id}" cannot get resource "secrets" in API group "" in the namespace "kube-system"`
  );
}

/** The names the API server's serving certificate must hold. */
export interface ApiServerNames {
  dnsNames: string[];
  ips: string[];
}

/**
 * The names kubeadm puts in (and requires of) the API server's serving certificate: the node's name, `kubernetes`
 * and its Service's DNS names, the Service's first address (when kubeadm knows the service subnet), the advertise
 * address, the certSANs and the controlPlaneEndpoint's host (cmd/kubeadm/app/util/pkiutil/pki_helpers.go
 * GetAPIServerAltNames).
 */
export function apiServerNames(input: {
  nodeName: string;
  advertiseAddress: string;
  /** The first address of the service subnet; absent when kubeadm does not know it (a control-plane join). */
  serviceIp?: string;
  dnsDomain: string;
  certSANs: readonly string[];
  controlPlaneEndpoint?: string;
}): ApiServerNames {
  const dnsNames = [input.nodeName, 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', `kubernetes.default.svc.${input.dnsDomain}`];
  const ips = [...(input.serviceIp ? [input.serviceIp] : []), ...(input.advertiseAddress ? [input.advertiseAddress] : [])];
  const endpoint = input.controlPlaneEndpoint;
  const endpointHost = endpoint ? (endpoint.lastIndexOf(':') > 0 ? endpoint.slice(0, endpoint.lastIndexOf(':')) : endpoint).replace(/^\[|\]$/g, '') : '';
  for (const n of [...input.certSANs, ...(endpointHost ? [endpointHost] : [])]) (isIpv4(n) ? ips : dnsNames).push(n);
  return { dnsNames: [...new Set(dnsNames)], ips: [...new Set(ips)] };
}

/**
 * The names kubeadm puts in (and requires of) etcd's serving and peer certificates: the node's name, `localhost`, the
 * advertise address, 127.0.0.1 and ::1, and etcd.local's serverCertSANs or peerCertSANs (cmd/kubeadm/app/util/
 * pkiutil/pki_helpers.go GetEtcdAltNames and GetEtcdPeerAltNames).
 */
export function etcdCertNames(input: { nodeName: string; advertiseAddress: string; certSANs: readonly string[] }): ApiServerNames {
  const dnsNames = [input.nodeName, 'localhost'];
  const ips = [...(input.advertiseAddress ? [input.advertiseAddress] : []), '127.0.0.1', '::1'];
  for (const n of input.certSANs) (isIpv4(n) ? ips : dnsNames).push(n);
  return { dnsNames: [...new Set(dnsNames)], ips: [...new Set(ips)] };
}

/**
 * kubeadm's certs phase when a certificate is already on disk (the renderer places the API server's; a user may place
 * etcd's): it is used if its CA signed it and it holds every required name, otherwise the phase fails
 * (cmd/kubeadm/app/phases/certs/certs.go validateSignedCertWithCA and validateCertificateWithConfig, whose SAN check is
 * Go's x509 VerifyHostname). `name` as kubeadm names the certificate (`apiserver`, `etcd/server`, `etcd/peer`) and
 * `caName` its CA's. Returns the phase's error, or undefined when the certificate is used.
 */
export function existingCertError(name: string, certPem: string, caName: string, caPem: string, names: ApiServerNames): string | undefined {
  let cert: X509Certificate;
  let ca: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
    ca = new X509Certificate(caPem);
  } catch (e) {
    return `[certs] failure loading ${name} certificate: ${(e as Error).message}`;
  }
  if (!cert.verify(ca.publicKey)) return `[certs] certificate ${name} not signed by CA certificate ${caName}: crypto/rsa: verification error`;
  const valid = (cert.subjectAltName ?? '').replace(/DNS:|IP Address:/g, '');
  for (const d of names.dnsNames)
    if (cert.checkHost(d, { subject: 'never' }) === undefined)
      return `[certs] certificate ${name} is invalid: x509: certificate is valid for ${valid}, not ${d}`;
  for (const ip of names.ips)
    if (cert.checkIP(ip) === undefined) return `[certs] certificate ${name} is invalid: x509: certificate is valid for ${valid}, not ${ip}`;
  return undefined;
}

/** existingCertError for the API server's certificate, signed by the cluster CA. */
export function existingApiServerCertError(certPem: string, caPem: string, names: ApiServerNames): string | undefined {
  return existingCertError('apiserver', certPem, 'ca', caPem, names);
}

/**
 * A certificate authority kubeadm loads from disk (certs.go LoadCertificateAuthority, pkiutil TryLoadCertAndKeyFromDisk):
 * its key must be the certificate's. Its error, in the words the fast mode and the netns kubeadm share, or undefined.
 */
export function caPairError(name: string, certPem: string, keyPem: string): string | undefined {
  try {
    const certSpki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
    const keySpki = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    return Buffer.compare(Buffer.from(certSpki), Buffer.from(keySpki)) === 0
      ? undefined
      : `failure loading ${name} certificate authority: the private key does not match the certificate`;
  } catch {
    return `failure loading ${name} certificate authority: the certificate or key does not parse`;
  }
}

/** What kubeadm prints to stderr when preflight fails (RunChecks + handleError), warnings first. */
export function formatPreflight(result: PreflightResult): string {
  const lines = result.warnings.map((w) => `\t[WARNING ${w.check}]: ${w.message}`);
  if (result.errors.length === 0) return lines.map((l) => `${l}\n`).join('');
  return [
    ...lines,
    '[preflight] Some fatal errors occurred:',
    ...result.errors.map((e) => `\t[ERROR ${e.check}]: ${e.message}`),
    '[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`',
    'error execution phase preflight: preflight checks failed',
    'To see the stack trace of this error execute with --v=5 or higher',
    '',
  ].join('\n');
}

// ---- version skew at join and upgrade ----------------------------------------------------------------------------

/**
 * A kubelet joining a cluster: the version-skew policy (https://kubernetes.io/releases/version-skew-policy/#kubelet)
 * allows a kubelet up to three minors older than kube-apiserver and never newer. Returns the reason, or undefined.
 */
export function kubeletSkewError(kubeletVersion: string, apiServerVersion: string): string | undefined {
  const kubelet = mustParse(kubeletVersion, 'kubelet');
  const api = mustParse(apiServerVersion, 'Kubernetes');
  if (kubelet.major !== api.major || kubelet.minor > api.minor) {
    return (
      `the kubelet version is higher than the control plane version. This is not a supported version skew and may lead to ` +
      `a malfunctional cluster. Kubelet version: "${formatVersion(kubelet)}" Control plane version: "${formatVersion(api)}"`
    );
  }
  if (api.minor - kubelet.minor > KUBELET_SKEW_MINORS) {
    return `Kubelet version "${formatVersion(kubelet)}" is lower than kubeadm can support. Please upgrade kubelet`;
  }
  return undefined;
}

export interface UpgradeApplyInput {
  /** What the cluster runs now (ClusterConfiguration / kube-apiserver). */
  clusterVersion: string;
  /** The installed kubeadm. */
  kubeadmVersion: string;
  /** `kubeadm upgrade apply vX.Y.Z`. */
  target: string;
  /** Every Node's kubelet version. */
  kubeletVersions?: string[];
}

/**
 * `kubeadm upgrade apply` (policy.go EnforceVersionPolicies, without --force): one minor at a time; kubeadm at least
 * the target's minor and patch; no kubelet left more than three minors behind. Downgrades: upstream allows one minor
 * down with --force at most and documents none (https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/);
 * kubeplane never downgrades, so any lower target is refused.
 */
export function upgradeApplyErrors(input: UpgradeApplyInput): string[] {
  const cluster = mustParse(input.clusterVersion, 'cluster');
  const kubeadm = mustParse(input.kubeadmVersion, 'kubeadm');
  const target = mustParse(input.target, 'target');
  const t = formatVersion(target);
  const errors: string[] = [];
  if (target.major !== cluster.major || target.minor > cluster.minor + 1) {
    errors.push(`Specified version to upgrade to "${t}" is too high; kubeadm can upgrade only 1 minor version at a time`);
  }
  if (compare(target, cluster) < 0) {
    errors.push(`Specified version to upgrade to "${t}" is lower than the cluster version "${formatVersion(cluster)}"; downgrades are not supported`);
  }
  if (compare(kubeadm, target) < 0) {
    errors.push(
      target.minor > kubeadm.minor || target.major > kubeadm.major
        ? `Specified version to upgrade to "${t}" is at least one minor release higher than the ` +
            `kubeadm minor release (${kubeadm.major}.${kubeadm.minor}). Such an upgrade is not supported`
        : `Specified version to upgrade to "${t}" is higher than the kubeadm version ` +
            `"${formatVersion(kubeadm)}". Upgrade kubeadm first using the tool you used to install kubeadm`,
    );
  } else if (kubeadm.major > target.major || kubeadm.minor > target.minor) {
    errors.push(`Kubeadm version ${formatVersion(kubeadm)} can only be used to upgrade to Kubernetes version ${kubeadm.major}.${kubeadm.minor}`);
  }
  const tooOld = (input.kubeletVersions ?? []).filter((k) => {
    const v = parseVersion(k);
    return v !== undefined && target.minor > v.minor + KUBELET_SKEW_MINORS;
  });
  if (tooOld.length > 0) errors.push(`There are kubelets in this cluster that are too old that have these versions [${tooOld.join(' ')}]`);
  return errors;
}

/**
 * `kubeadm upgrade node` after the package upgrade: the node takes the cluster's version, and the kubelet the
 * package brings must not be newer than the control plane (version-skew policy); the control plane goes first.
 */
export function upgradeNodeErrors(input: { clusterVersion: string; kubeadmVersion: string }): string[] {
  const cluster = mustParse(input.clusterVersion, 'cluster');
  const kubeadm = mustParse(input.kubeadmVersion, 'kubeadm');
  if (kubeadm.major !== cluster.major || kubeadm.minor > cluster.minor) {
    return [
      `the kubelet version is higher than the control plane version. This is not a supported version skew and may lead to a ` +
        `malfunctional cluster. Kubelet version: "${formatVersion(kubeadm)}" Control plane version: "${formatVersion(cluster)}"`,
    ];
  }
  if (cluster.minor > kubeadm.minor + 1) {
    return [
      `Specified version to upgrade to "${formatVersion(cluster)}" is at least one minor release higher ` +
        `than the kubeadm minor release (${kubeadm.major}.${kubeadm.minor}). Such an upgrade is not supported`,
    ];
  }
  return [];
}
