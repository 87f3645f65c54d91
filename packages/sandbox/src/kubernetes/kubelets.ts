// Simulated kubelets: each running sandbox VM boots on the virtual clock as its user-data says (OS preparation,
// then kubeadm init, join as a control plane — one at a time — or join), and registers a Node only when its
// config would really work: a live bootstrap token, the cluster CA's pinned hash, and the cluster's endpoint.
// Control planes a cloud runs itself (Crusoe CMK) answer while the cloud lists them running; the machines of their
// node pools join them without user-data, and the cloud's controller deletes their Nodes when the machines go.
import { createHash, X509Certificate } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { ClusterApi, type ClusterApiState, type ClusterEvent, type ClusterIdentity, type RegisterNode, type TaintLike } from './cluster.js';
import { EventQueue, type QueuedEvent } from './events.js';
import {
  MESH_BUNDLE_KEY,
  MESH_BUNDLE_SIGNATURE_KEY,
  MESH_CONFIGMAP,
  MESH_NAMESPACE,
  MESH_SIGNING_PUBLIC_KEY_PATH,
  verifyMeshBundle,
  type UpgradeInstruction,
} from '@kubeplane/sdk/internal';
import { obj, type KubeObject } from './store.js';
import { KUBE_TIMINGS } from './timings.js';
import { BootFailure, readBootConfig, type NodeBootConfig } from './user-data.js';
import { bootDiskView } from './boot-disk-view.js';
import {
  additionalControlPlaneError,
  API_SERVER_PORT,
  apiServerNames,
  CA_CERT_PATH,
  caPairError,
  downloadCertsError,
  etcdCertNames,
  existingApiServerCertError,
  existingCertError,
  formatPreflight,
  initPreflight,
  joinPreflight,
  kubeletSkewError,
  nodeIpError,
  PKI_DIR,
  type NodeView,
  type PreflightResult,
  upgradeApplyErrors,
  upgradeNodeErrors,
} from './kubeadm-rules.js';
import { kubernetesPackageVersionError, kubernetesRepoMinor } from '../netns/standins/apt-state.js';
import {
  firstServiceIp,
  KubeadmConfigError,
  parseInitConfig,
  parseJoinConfig,
  uploadedConfigMaps,
  type InitConfig,
  type JoinConfig,
} from '../netns/standins/kubeadm-config.js';
import { forwardsTo } from './nginx-rules.js';
import { CONTAINERD_CONFIG, cgroupDriverError, parseContainerdConfig, runcSystemdCgroup } from './runtime-rules.js';
import { overlayPairForms, overlayPairProblem, parseWireguardConfig, type OverlayMember } from './overlay-rules.js';
import type { SandboxManagedCluster, SandboxVm, SandboxVmSource, ServiceRelease } from './vm-source.js';

/** The kubelet renews its node Lease every 10 s (a quarter of nodeLeaseDurationSeconds, 40). */
export const LEASE_RENEW_MS = 10_000;
/** And posts an unchanged node status every nodeStatusReportFrequency, 5 min (KubeletConfiguration default). */
export const NODE_STATUS_REPORT_MS = 300_000;

/** The last instant at or before `nowMs` of a period `everyMs` started at `fromMs`. */
export function lastTick(fromMs: number, nowMs: number, everyMs: number): number {
  return fromMs + Math.floor(Math.max(0, nowMs - fromMs) / everyMs) * everyMs;
}

/**
 * Where a machine's boot stands: preparing the OS, `kubeadm init` or `join`, registered or Ready as a Node, `failed`
 * (see the reason), `stopped` with its machine, or `load-balancer` (a load-balancer node, which runs no kubelet).
 */
export type KubeletState = 'preparing' | 'initializing' | 'waiting-for-api' | 'joining' | 'registered' | 'ready' | 'failed' | 'stopped' | 'load-balancer';

/** One line of a machine's boot log, at a virtual time in ms since the epoch. */
export interface KubeletLogEntry {
  atMs: number;
  message: string;
}

/** What a test or a person debugging the sandbox sees of one machine's boot (like its kubelet and kubeadm logs). */
export interface KubeletStatus {
  cloud: string;
  vm: string;
  /** The Kubernetes node name from its kubeadm config, once read. */
  node?: string;
  /** The endpoint (`host:port`) it initialised or tried to join. */
  endpoint?: string;
  state: KubeletState;
  /** Why it failed, or what it is waiting for. */
  reason?: string;
  registeredAtMs?: number;
  readyAtMs?: number;
  log: KubeletLogEntry[];
}

/** A control plane the cloud runs (CMK), as plain data: the API answers while it is `up`. */
export interface ManagedControlPlane {
  cloud: string;
  name: string;
  runningSince: number;
  addons: string[];
  addonReleases?: ServiceRelease[];
  up: boolean;
  /** Its end is scheduled (the cloud deletes it or no longer lists it). */
  stopping?: boolean;
}

export interface SimCluster {
  api: ClusterApi;
  endpoint: string;
  caHash: string;
  /** Control-plane kubelets that finished kubeadm (the API answers while one of them is alive). */
  controlPlanes: Set<Kubelet>;
  /** The end of the running control-plane join (etcd member add happens one at a time). */
  controlPlaneJoinBusyUntil: number;
  /** Set for a control plane the cloud runs; it has no control-plane kubelets. */
  managed?: ManagedControlPlane;
}

interface Kubelet {
  id: string;
  vm: SandboxVm;
  runningSince: number;
  alive: boolean;
  /** A stop is scheduled. */
  stopping?: boolean;
  status: KubeletStatus;
  config?: NodeBootConfig;
  cluster?: SimCluster;
  discoveryDeadline?: number;
  /** The version an in-place upgrade of this node is under way to (from the mesh ConfigMap). */
  upgrading?: string;
  /** The serial of the last mesh bundle its sync agent accepted (it refuses lower ones). */
  meshSerial?: number;
  /** A fault: the kubelet stopped posting status while its machine runs (hangKubelet). */
  hung?: boolean;
  /** kubeadm init attempts that found no load balancer able to reach this control plane yet. */
  initAttempts?: number;
}

/**
 * What the simulation schedules: data naming the kubelet (K) or cluster (C) it concerns, so it can be saved — live
 * objects while running, indexes into the snapshot's lists in a snapshot.
 */
type SimEventOf<K, C> =
  | { kind: 'gone' | 'prepared' | 'discover'; kubelet: K }
  | { kind: 'unreachable'; cluster: C; node: string }
  | { kind: 'init-done'; kubelet: K; caPem: string }
  | { kind: 'joined'; kubelet: K; cluster: C }
  | { kind: 'node-ready'; kubelet: K; cluster: C; node: string }
  | { kind: 'cluster'; cluster: C; event: ClusterEvent }
  /** A managed control plane starts or stops answering. */
  | { kind: 'managed-up' | 'managed-down'; cluster: C }
  /** The cloud controller manager deletes the Node of a machine that no longer exists (managed node pools). */
  | { kind: 'node-deleted'; cluster: C; node: string; providerId: string }
  /** An in-place upgrade the node's sync agent ran from the mesh ConfigMap (kubeadm upgrade apply|node) finished. */
  | { kind: 'upgraded'; kubelet: K; cluster: C; version: string; mode: string };

type SimEvent = SimEventOf<Kubelet, SimCluster>;

/** The same event with its kubelet and cluster references mapped (to snapshot indexes and back). */
function mapEventRefs<K1, C1, K2, C2>(event: SimEventOf<K1, C1>, kubelet: (k: K1) => K2, cluster: (c: C1) => C2): SimEventOf<K2, C2> {
  const out: Record<string, unknown> = { ...event };
  if ('kubelet' in event) out['kubelet'] = kubelet(event.kubelet);
  if ('cluster' in event) out['cluster'] = cluster(event.cluster);
  return out as SimEventOf<K2, C2>;
}

/** A SandboxVm as plain data: bytes of user-data as base64. */
export type SerializedVm = Omit<SandboxVm, 'userData'> & { userData: string | { base64: string } };

export interface KubeletSnapshot {
  id: string;
  vm: SerializedVm;
  runningSince: number;
  alive: boolean;
  stopping?: boolean;
  status: KubeletStatus;
  /** Its user-data was read (the boot config is read again from `vm.userData` on restore). */
  configured: boolean;
  /** Index into the snapshot's clusters. */
  cluster?: number;
  discoveryDeadline?: number;
  upgrading?: string;
  meshSerial?: number;
  hung?: boolean;
  initAttempts?: number;
}

export interface SimClusterSnapshot {
  identity: ClusterIdentity;
  caHash: string;
  /** Indexes into the snapshot's kubelets. */
  controlPlanes: number[];
  controlPlaneJoinBusyUntil: number;
  api: ClusterApiState;
  managed?: ManagedControlPlane;
}

/** A SimEvent with its kubelet and cluster as indexes into the snapshot's lists. */
export type SimEventSnapshot = SimEventOf<number, number>;

/**
 * The simulated side of every cluster as plain data (sandbox snapshots). Kubelets keep their machines' user-data,
 * which holds cluster private keys, and managed clusters their serving keys: written to disk with mode 0600, never logged.
 */
export interface KubeletSimulationState {
  /** Every kubelet ever started, retired ones included. */
  kubelets: KubeletSnapshot[];
  retired: number[];
  /** The live kubelet per machine (`cloud/name`). */
  current: Array<[string, number]>;
  clusters: SimClusterSnapshot[];
  /** The cluster per endpoint. */
  endpoints: Array<[string, number]>;
  knownEndpoints: string[];
  /** Null before the first tick. */
  processedUntil: number | null;
  eventSeq: number;
  events: Array<QueuedEvent<SimEventSnapshot>>;
}

const STAGED_CA = '/etc/kubeplane/pki/ca.crt';
const STAGED_CA_KEY = '/etc/kubeplane/pki/ca.key';
const STAGED_MESH = '/etc/kubeplane/mesh.yaml';
const BOOTSTRAP_SCRIPT = '/usr/local/sbin/kubeplane-bootstrap';
const WIREGUARD_CONF = '/etc/wireguard/wg0.conf';
const STAGED_NGINX = '/etc/kubeplane/nginx.conf';
/** The bootstrap script's pause between kubeadm attempts (`retry 5 60 kubeadm_once`). */
const KUBEADM_RETRY_MS = 60_000;

/** Whether two looks at machines of one name see the same machine: by the cloud's id where both carry one. */
function sameMachine(a: SandboxVm, b: SandboxVm): boolean {
  return a.id === undefined || b.id === undefined || a.id === b.id;
}

/** `sha256:<hex>` of a certificate's DER SubjectPublicKeyInfo, computed as kubeadm does (independently of the sdk). */
export function caCertHash(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

function isIpv4(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}

function hostOf(endpoint: string): string {
  const i = endpoint.lastIndexOf(':');
  return i > 0 ? endpoint.slice(0, i) : endpoint;
}

/**
 * Real machines behind the simulation (the netns mode, ../netns/): each running machine boots for real from the same
 * user-data, and what its stand-in kubeadm and kubelet report (KubeletSimulation.report) takes the place of the
 * simulation's own boot timeline and rules. Managed node-pool machines are never driven: they have no user-data.
 */
export interface MachineDriver {
  start(vm: SandboxVm): void;
  stop(vm: SandboxVm): void;
}

export class KubeletSimulation {
  readonly #source: SandboxVmSource;
  #driver: MachineDriver | undefined;
  readonly events = new EventQueue<SimEvent>();
  readonly #kubelets = new Map<string, Kubelet>();
  readonly #retired: Kubelet[] = [];
  readonly clusters = new Map<string, SimCluster>();
  readonly #endpoints = new Set<string>();
  #processedUntil = Number.NEGATIVE_INFINITY;

  constructor(source: SandboxVmSource) {
    this.#source = source;
  }

  /** From now on, machines that start running boot for real through `driver`, and their reports drive their kubelets. */
  useDriver(driver: MachineDriver): void {
    this.#driver = driver;
  }

  /**
   * What a real machine reported (the netns mode), at virtual time `at`: its bootstrap ended, kubeadm initialised,
   * joined, upgraded or failed, its kubelet (re)started. The machine checked everything itself, against real TLS,
   * WireGuard and etcd; the simulation keeps the cluster's API objects in step with it.
   */
  report(machine: string, event: string, detail: Record<string, unknown>, at: number): void {
    const k = this.#kubelets.get(machine);
    if (!k?.alive || !k.config) return;
    const text = (key: string): string => (typeof detail[key] === 'string' ? (detail[key] as string) : '');
    switch (event) {
      case 'bootstrap-exit': {
        const code = Number(detail['code'] ?? 1);
        if (code !== 0)
          return this.#fail(
            k,
            at,
            `kubeplane-bootstrap exited with code ${code}${k.status.reason ? `: ${k.status.reason}` : ''} ` +
              `(see /var/log/kubeplane-bootstrap.log on the machine)`,
          );
        this.#log(k, at, 'bootstrap: done');
        if (k.config.mode === 'loadbalancer') k.status.state = 'load-balancer';
        return;
      }
      case 'kubelet-failed':
        // The kubelet stand-in refused to run (its node-ip, say): the node never becomes Ready.
        return this.#fail(k, at, `kubelet: ${text('reason')}`);
      case 'kubeadm-failed':
        k.status.reason = text('reason');
        return this.#log(k, at, `kubeadm: ${k.status.reason}`);
      case 'kubeadm-init-ok':
        return this.#initDone(k, at, text('caPem') || (k.config.files.get(STAGED_CA) ?? ''), true);
      case 'kubeadm-join-ok': {
        // kubeadm may finish while the kubelet it started refuses to run: that node never registers.
        if (k.status.state === 'failed') return;
        const endpoint = k.config.kubeadm?.join?.apiServerEndpoint ?? '';
        const cluster = this.reachable(endpoint);
        if (!cluster) return this.#fail(k, at, `kubeadm join reported success, but no cluster answers at ${endpoint} in the sandbox`);
        k.cluster = cluster;
        const controlPlane = detail['controlPlane'] === true;
        if (controlPlane) cluster.controlPlanes.add(k);
        return this.#register(k, cluster, at, controlPlane);
      }
      case 'kubelet-started': {
        const version = text('version');
        const node = k.status.node;
        if (!version || !node || !k.cluster || (k.status.state !== 'ready' && k.status.state !== 'registered')) return;
        const current = obj(obj(k.cluster.api.store.get('nodes', undefined, node)?.['status'])?.['nodeInfo'])?.['kubeletVersion'];
        if (current !== version) {
          k.cluster.api.setKubeletVersion(node, version);
          this.#log(k, at, `kubelet: restarted at ${version}`);
        }
        return;
      }
      case 'kubeadm-upgrade-ok': {
        const version = text('version').replace(/^v/, '');
        if (text('mode') === 'apply' && k.cluster) k.cluster.api.identity.kubernetesVersion = `v${version}`;
        return this.#log(k, at, `kubeadm upgrade ${text('mode')}: v${version}`);
      }
      default:
        return this.#log(k, at, `${event}`);
    }
  }

  /** Brings the simulated side up to `now`: notices new and vanished VMs, then runs every due event. */
  tick(now: number): void {
    const floor = Math.max(this.#processedUntil, Number.NEGATIVE_INFINITY);
    // Control planes first, so one that starts answering at the instant a machine boots is up for it.
    this.#noticeManagedClusters(this.#source.listManagedClusters?.() ?? [], now, floor);
    const seen = new Set<string>();
    for (const vm of this.#source.listVms()) {
      const id = `${vm.cloud}/${vm.name}`;
      const current = this.#kubelets.get(id);
      // A stopped machine of the same name as the one a kubelet runs on (a terminated duplicate launch, the machine a
      // re-creation replaced) is another machine: its stop must not stop this kubelet, nor its past boot replace it.
      const same = current !== undefined && sameMachine(current.vm, vm);
      if (vm.state !== 'running') {
        if (current?.alive && same && (vm.runningSinceMs === undefined || current.runningSince === vm.runningSinceMs)) {
          this.#goneAt(current, Math.max(vm.stoppedAtMs ?? now, floor, current.runningSince));
        } else if (
          vm.runningSinceMs !== undefined &&
          vm.stoppedAtMs !== undefined &&
          vm.stoppedAtMs > floor &&
          current?.runningSince !== vm.runningSinceMs &&
          !(current?.alive && !same)
        ) {
          // A machine that ran and stopped between two looks: it still booted for as long as it ran (unless another
          // machine of its name runs: the simulation follows one machine per name, the one that runs).
          if (current) this.#retired.push(current);
          this.#goneAt(this.#start(id, vm, vm.runningSinceMs, floor), vm.stoppedAtMs);
        }
        continue;
      }
      seen.add(id);
      const runningSince = vm.runningSinceMs ?? now;
      if (current && same && current.runningSince === runningSince && current.alive) {
        current.vm = vm;
        continue;
      }
      if (current?.alive) this.#goneAt(current, Math.max(floor, now));
      if (current) this.#retired.push(current);
      this.#start(id, vm, runningSince, floor);
    }
    for (const k of this.#kubelets.values()) if (k.alive && !seen.has(k.id)) this.#goneAt(k, Math.max(floor, now));
    this.events.runUntil(now, (event, at) => this.#run(event, at));
    // Real machines run the real sync agent, which reads the same instructions.
    if (!this.#driver) this.#noticeUpgrades(now);
    this.#processedUntil = now;
  }

  /**
   * The nodes' sync agents act only on the signed mesh bundle (as renderMeshSyncScript does): each verifies it with the
   * public key from its own user-data and refuses a serial below the last it applied. A node named in its upgrade
   * instruction upgrades in place, within a timer period plus the upgrade itself.
   */
  #noticeUpgrades(now: number): void {
    for (const cluster of new Set(this.clusters.values())) {
      if (cluster.managed) continue;
      const data = obj(cluster.api.store.get('configmaps', MESH_NAMESPACE, MESH_CONFIGMAP)?.['data']) ?? {};
      for (const k of this.#kubelets.values()) {
        const node = k.status.node;
        if (!k.alive || k.cluster !== cluster || !node) continue;
        const upgrade = this.#verifiedUpgrade(k, data, now);
        if (!upgrade?.nodes.includes(node) || k.upgrading === upgrade.version) continue;
        const version = upgrade.version;
        if (k.status.state !== 'ready' && k.status.state !== 'registered') continue;
        const current = obj(obj(cluster.api.store.get('nodes', undefined, node)?.['status'])?.['nodeInfo'])?.['kubeletVersion'];
        if (current === `v${version}`) continue;
        k.upgrading = version;
        this.#log(k, now, `kubeplane-mesh-sync: upgrading in place to v${version} (kubeadm upgrade ${upgrade.mode})`);
        this.events.at(now + KUBE_TIMINGS.meshSyncIntervalMs + KUBE_TIMINGS.kubeadmUpgradeMs, {
          kind: 'upgraded',
          kubelet: k,
          cluster,
          version,
          mode: upgrade.mode,
        });
      }
    }
  }

  /** Each bundle is checked once per node; a refusal is logged once, as the agent's journal would show it. */
  readonly #meshChecked = new WeakMap<Kubelet, { signed: string; upgrade?: UpgradeInstruction }>();
  #verifiedUpgrade(k: Kubelet, data: Record<string, unknown>, now: number): UpgradeInstruction | undefined {
    const signature = String(data[MESH_BUNDLE_SIGNATURE_KEY] ?? '');
    const signed = `${String(data[MESH_BUNDLE_KEY] ?? '')} ${signature}`;
    const seen = this.#meshChecked.get(k);
    if (seen?.signed === signed) return seen.upgrade;
    const check = verifyMeshBundle(data, k.config?.files.get(MESH_SIGNING_PUBLIC_KEY_PATH) ?? '', k.meshSerial ?? 0);
    if (!check.ok) {
      this.#meshChecked.set(k, { signed });
      if (signature || k.meshSerial !== undefined) this.#log(k, now, `kubeplane-mesh-sync: refused the mesh bundle: ${check.reason}; nothing changed`);
      return undefined;
    }
    k.meshSerial = check.bundle.serial;
    this.#meshChecked.set(k, { signed, ...(check.bundle.upgrade ? { upgrade: check.bundle.upgrade } : {}) });
    return check.bundle.upgrade;
  }

  /** kubeadm's own checks, then the new kubelet: `apply` upgrades the control plane (one minor at most), `node` follows it. */
  #upgraded(k: Kubelet, cluster: SimCluster, version: string, mode: string, at: number): void {
    const node = k.status.node;
    if (!k.alive || !node || this.reachable(cluster.endpoint) !== cluster) return;
    // The package brings kubeadm and the kubelet of `version`; kubeadm's rules decide (kubeadm-rules.ts, shared with
    // the netns kubeadm stand-in): apply goes one minor at a time and never down, node never overtakes the control plane.
    const clusterVersion = cluster.api.identity.kubernetesVersion;
    if (mode === 'apply') {
      if (!cluster.controlPlanes.has(k)) return this.#log(k, at, 'kubeadm upgrade apply: failed: this node is not a control plane');
      const errors = upgradeApplyErrors({ clusterVersion, kubeadmVersion: version, target: version });
      if (errors.length > 0) return this.#log(k, at, `kubeadm upgrade apply: failed: ${errors.join('; ')}`);
      cluster.api.identity.kubernetesVersion = `v${version}`;
    } else {
      const errors = upgradeNodeErrors({ clusterVersion, kubeadmVersion: version });
      if (errors.length > 0) return this.#log(k, at, `kubeadm upgrade node: failed: ${errors.join('; ')} (upgrade the control plane first)`);
    }
    cluster.api.setKubeletVersion(node, `v${version}`);
    this.#log(k, at, `kubelet: restarted at v${version}`);
  }

  /** The cluster that answers at `host:port`, if its API is up. */
  reachable(endpoint: string): SimCluster | undefined {
    const cluster = this.clusters.get(endpoint);
    if (!cluster) return undefined;
    if (cluster.managed) return cluster.managed.up ? cluster : undefined;
    for (const k of cluster.controlPlanes) if (k.alive) return cluster;
    return undefined;
  }

  /**
   * A managed control plane the cloud lists as running gets a cluster answering from when it started running; one
   * the cloud deletes or no longer lists stops answering (now: the cloud does not say when it went).
   */
  #noticeManagedClusters(listed: SandboxManagedCluster[], now: number, floor: number): void {
    const running = new Set<string>();
    for (const mc of listed) {
      if (mc.state !== 'running') continue;
      running.add(mc.endpoint);
      const runningSince = mc.runningSinceMs ?? now;
      const current = this.clusters.get(mc.endpoint);
      const m = current?.managed;
      if (m && !m.stopping && m.cloud === mc.cloud && m.name === mc.name && m.runningSince === runningSince) continue;
      if (current && m && !m.stopping) this.#managedDownAt(current, Math.max(floor, now));
      const upAt = Math.max(runningSince, floor);
      const identity: ClusterIdentity = {
        name: mc.name,
        endpoint: mc.endpoint,
        kubernetesVersion: mc.kubernetesVersion,
        caPem: mc.caPem,
        ...(mc.serving ? { serving: { ...mc.serving } } : {}),
        ...(mc.podSubnet ? { podSubnet: mc.podSubnet } : {}),
        ...(mc.serviceSubnet ? { serviceSubnet: mc.serviceSubnet } : {}),
        ...(mc.nodeCidrMaskSize ? { nodeCidrMaskSize: mc.nodeCidrMaskSize } : {}),
      };
      const cluster = this.#cluster(identity, caCertHash(mc.caPem), new Set(), upAt, upAt);
      cluster.managed = {
        cloud: mc.cloud,
        name: mc.name,
        runningSince,
        addons: [...mc.addons],
        ...(mc.addonReleases ? { addonReleases: structuredClone(mc.addonReleases) } : {}),
        up: false,
      };
      this.clusters.set(mc.endpoint, cluster);
      this.#endpoints.add(mc.endpoint);
      this.events.at(upAt, { kind: 'managed-up', cluster });
    }
    for (const c of this.clusters.values()) if (c.managed && !c.managed.stopping && !running.has(c.endpoint)) this.#managedDownAt(c, Math.max(floor, now));
  }

  #managedDownAt(cluster: SimCluster, atMs: number): void {
    if (cluster.managed) cluster.managed.stopping = true;
    this.events.at(atMs, { kind: 'managed-down', cluster });
  }

  #managedUp(cluster: SimCluster, at: number): void {
    const m = cluster.managed;
    if (!m || m.up) return;
    m.up = true;
    cluster.api.bootstrapCmk({ addons: m.addons, releases: m.addonReleases ?? [] }, at);
  }

  /** Every endpoint some machine's user-data names (so requests to them fail like a dead address, not as unknown). */
  knownEndpoints(): ReadonlySet<string> {
    return this.#endpoints;
  }

  statuses(): KubeletStatus[] {
    return [...this.#retired, ...this.#kubelets.values()].map((k) => ({ ...k.status, log: [...k.status.log] }));
  }

  #log(k: Kubelet, atMs: number, message: string): void {
    const last = k.status.log[k.status.log.length - 1];
    if (last?.message === message) return;
    k.status.log.push({ atMs, message });
  }

  #fail(k: Kubelet, atMs: number, reason: string): void {
    k.status.state = 'failed';
    k.status.reason = reason;
    this.#log(k, atMs, `failed: ${reason}`);
  }

  /** Stops a kubelet as an event, so whatever was due before it still happens first. */
  #goneAt(k: Kubelet, atMs: number): void {
    if (k.stopping) return;
    k.stopping = true;
    this.events.at(atMs, { kind: 'gone', kubelet: k });
  }

  #start(id: string, vm: SandboxVm, runningSince: number, floor: number): Kubelet {
    const k: Kubelet = { id, vm, runningSince, alive: true, status: { cloud: vm.cloud, vm: vm.name, state: 'preparing', log: [] } };
    this.#kubelets.set(id, k);
    const bootAt = Math.max(runningSince, floor);
    this.#log(k, bootAt, 'cloud-init: first boot');
    const managed = vm.managed;
    if (managed) {
      // The provider's node image carries the kubelet and its credentials: it joins as soon as it runs.
      k.status.node = managed.nodeName;
      k.status.endpoint = managed.endpoint;
      this.#endpoints.add(managed.endpoint);
      k.status.state = 'waiting-for-api';
      k.discoveryDeadline = bootAt + KUBE_TIMINGS.discoveryTimeoutMs * KUBE_TIMINGS.kubeadmAttempts;
      this.events.at(bootAt, { kind: 'discover', kubelet: k });
      return k;
    }
    try {
      k.config = readBootConfig(vm.userData);
    } catch (error) {
      if (!(error instanceof BootFailure)) throw error;
      this.#fail(k, bootAt, error.message);
      return k;
    }
    const kubeadm = k.config.kubeadm;
    if (kubeadm) k.status.node = kubeadm.nodeName;
    const endpoint = kubeadm?.init?.controlPlaneEndpoint ?? kubeadm?.join?.apiServerEndpoint;
    if (endpoint) {
      k.status.endpoint = endpoint;
      this.#endpoints.add(endpoint);
    }
    if (this.#driver) {
      this.#log(k, bootAt, 'netns: booting the machine for real');
      this.#driver.start(vm);
      return k;
    }
    this.events.at(Math.max(runningSince + KUBE_TIMINGS.osPreparationMs, floor), { kind: 'prepared', kubelet: k });
    return k;
  }

  #gone(k: Kubelet, atMs: number): void {
    if (k.alive) this.#freezeLease(k, atMs);
    k.alive = false;
    if (this.#driver && !k.vm.managed) this.#driver.stop(k.vm);
    const wasRegistered = k.status.state === 'registered' || k.status.state === 'ready';
    if (k.status.state !== 'failed') k.status.state = 'stopped';
    this.#log(k, atMs, 'machine stopped');
    const cluster = k.cluster;
    const node = k.status.node;
    if (wasRegistered && cluster && node) {
      this.events.at(atMs + KUBE_TIMINGS.nodeMonitorGraceMs, { kind: 'unreachable', cluster, node });
      // The managed cluster's cloud controller manager deletes the Node of an instance that no longer exists, once
      // the node is NotReady (kubeadm clusters run no cloud controller: deleting their Nodes is the engine's job).
      const managed = k.vm.managed;
      if (managed) this.events.at(atMs + KUBE_TIMINGS.nodeMonitorGraceMs, { kind: 'node-deleted', cluster, node, providerId: managed.providerId });
    }
  }

  #deleteCloudNode(cluster: SimCluster, node: string, providerId: string, at: number): void {
    if (this.reachable(cluster.endpoint) !== cluster) return;
    const current = cluster.api.store.get('nodes', undefined, node);
    if ((current?.['spec'] as { providerID?: string } | undefined)?.providerID !== providerId) return;
    cluster.api.delete('nodes', undefined, node, at);
  }

  #prepared(k: Kubelet, at: number): void {
    if (!k.alive || !k.config) return;
    const config = k.config;
    // The Kubernetes packages the script pins, from the repository it adds (the apt-get stand-in's rule).
    const script = config.files.get(BOOTSTRAP_SCRIPT) ?? '';
    const repo = /^readonly K8S_REPO='([^']+)'/m.exec(script)?.[1];
    const pinned = /^readonly K8S_PACKAGE_VERSION='([^']+)'/m.exec(script)?.[1];
    if (config.mode !== 'loadbalancer' && repo !== undefined && pinned !== undefined) {
      const minor = kubernetesRepoMinor(repo);
      const refused = minor === undefined ? 'E: Unable to locate package kubelet' : kubernetesPackageVersionError(minor, 'kubelet', pinned);
      if (refused) return this.#fail(k, at, `bootstrap: apt-get install kubelet=${pinned}: ${refused}`);
      // configure_containerd restarts containerd (Type=notify): a configuration it cannot load fails the job.
      const toml = bootDiskView(config, script).read(CONTAINERD_CONFIG);
      const loaded = toml === undefined ? undefined : parseContainerdConfig(toml);
      if (loaded && 'error' in loaded)
        return this.#fail(
          k,
          at,
          'bootstrap: systemctl restart containerd: Job for containerd.service failed because the control process exited with error code ' +
            `(its journal: containerd: ${loaded.error})`,
        );
    }
    this.#log(k, at, 'bootstrap: host prepared, packages installed');
    if (config.mode === 'loadbalancer') {
      k.status.state = 'load-balancer';
      return;
    }
    const kubeadm = config.kubeadm;
    if (!kubeadm) return;
    if (!kubeadm.nodeName) return this.#fail(k, at, 'kubeadm: nodeRegistration.name is empty');
    if (kubeadm.init) {
      const endpoint = kubeadm.init.controlPlaneEndpoint;
      const caPem = config.files.get(STAGED_CA);
      const caKey = config.files.get(STAGED_CA_KEY);
      if (!caPem || !caKey) return this.#fail(k, at, `kubeadm init: failure loading ca certificate authority: ${STAGED_CA} or its key is missing`);
      const mismatch = this.#keyMismatch(caPem, caKey);
      if (mismatch) return this.#fail(k, at, `kubeadm init: ${mismatch}`);
      const host = hostOf(endpoint);
      const own = [k.vm.publicIPv4, k.vm.privateIPv4].filter((ip): ip is string => ip !== undefined);
      if (isIpv4(host) && own.length > 0 && !own.includes(host)) {
        return this.#fail(
          k,
          at,
          `kubeadm init: the control-plane endpoint ${endpoint} is not an address of this ` +
            `machine (${own.join(', ')}); attach the reserved IP to the first control plane`,
        );
      }
      if (this.reachable(endpoint))
        return this.#fail(k, at, `kubeadm init: another cluster already answers at ${endpoint}; the kubelet cannot register with this control plane`);
      // kubeadm init's preflight, from the same rule table as the netns kubeadm, on the disk the boot script leaves.
      const etcdDataDir = this.#initConfig(config)?.cluster.etcdDataDir;
      const criSocket = this.#initConfig(config)?.node.criSocket;
      const refused = this.#preflightAfterRetries(k, at, 'kubeadm init', config, (view) =>
        initPreflight(view, {
          kubernetesVersion: kubeadm.init?.kubernetesVersion || (config.kubeletVersion ?? ''),
          kubeadmVersion: config.kubeletVersion ?? '',
          kubeletVersion: config.kubeletVersion,
          ...(etcdDataDir ? { etcdDataDir } : {}),
          ...(criSocket ? { criSocket } : {}),
        }),
      );
      if (refused) return this.#fail(k, at, refused);
      const certs = this.#apiServerCertError(config, 'init');
      if (certs) return this.#fail(k, at, `kubeadm init: error execution phase certs/apiserver: ${certs}`);
      const etcdCerts = this.#etcdCertError(config, 'init');
      if (etcdCerts) return this.#fail(k, at, `kubeadm init: error execution phase certs/${etcdCerts}`);
      const pods = this.#runtimeContractError(config, `etcd-${kubeadm.nodeName}`);
      if (pods)
        return this.#fail(k, at, `kubeadm init: error execution phase wait-control-plane: the control plane's static pods never start: kubelet: ${pods}`);
      k.status.state = 'initializing';
      this.#log(k, at, `kubeadm init: control-plane endpoint ${endpoint}`);
      this.events.at(at + KUBE_TIMINGS.kubeadmInitMs, { kind: 'init-done', kubelet: k, caPem });
      return;
    }
    const join = kubeadm.join;
    if (join) {
      // kubeadm join's preflight, from the same rule table as the netns mode's kubeadm, on the disk the bootstrap
      // script leaves: what user-data writes plus what its place_certificates installs.
      const refused = this.#preflightAfterRetries(k, at, 'kubeadm join', config, (view) =>
        joinPreflight(view, {
          controlPlane: join.controlPlane,
          apiServerEndpoint: join.apiServerEndpoint,
          kubeadmVersion: config.kubeletVersion ?? '',
          kubeletVersion: config.kubeletVersion,
          ...(kubeadm.criSocket ? { criSocket: kubeadm.criSocket } : {}),
        }),
      );
      if (refused) return this.#fail(k, at, refused);
    }
    if (join?.controlPlane && !this.#joinConfig(config)?.controlPlane?.certificateKey) {
      // The shared certificates a control plane brings (kubeplane ships them; kubeadm downloads none without a
      // certificateKey), checked as kubeadm checks them before it joins.
      const cluster = this.#clusterConfigOf(join.apiServerEndpoint);
      const missing = additionalControlPlaneError(
        bootDiskView(config, config.files.get(BOOTSTRAP_SCRIPT) ?? ''),
        cluster?.controlPlaneEndpoint ?? join.apiServerEndpoint,
      );
      if (missing) return this.#fail(k, at, `kubeadm join: error execution phase preflight: ${oneLine(missing)}`);
      const certs = this.#apiServerCertError(config, 'join') ?? this.#etcdCertError(config, 'join');
      if (certs) return this.#fail(k, at, `kubeadm join: error execution phase control-plane-prepare/certs: ${certs}`);
    }
    k.status.state = 'waiting-for-api';
    k.discoveryDeadline = at + KUBE_TIMINGS.discoveryTimeoutMs * KUBE_TIMINGS.kubeadmAttempts;
    this.#discover(k, at);
  }

  /**
   * kubeadm's certs phase on the API server certificate the boot script places (the same rule as the netns kubeadm's):
   * the cluster CA must have signed it and it must hold every name kubeadm requires. Undefined when it is used (or
   * there is none: kubeadm would make one).
   */
  #apiServerCertError(config: NodeBootConfig, phase: 'init' | 'join'): string | undefined {
    const view = bootDiskView(config, config.files.get(BOOTSTRAP_SCRIPT) ?? '');
    const certPem = view.read(`${PKI_DIR}/apiserver.crt`);
    const caPem = view.read(CA_CERT_PATH);
    const kubeadm = config.kubeadm;
    if (certPem === undefined || caPem === undefined || !kubeadm) return undefined;
    const version = config.kubeletVersion ?? '';
    try {
      if (phase === 'init') {
        const init = parseInitConfig(kubeadm.configText, version);
        return existingApiServerCertError(
          certPem,
          caPem,
          apiServerNames({
            nodeName: init.node.name,
            advertiseAddress: init.advertiseAddress,
            serviceIp: firstServiceIp(init.cluster.serviceSubnet),
            dnsDomain: init.cluster.dnsDomain,
            certSANs: init.cluster.certSANs,
            ...(init.cluster.controlPlaneEndpoint ? { controlPlaneEndpoint: init.cluster.controlPlaneEndpoint } : {}),
          }),
        );
      }
      // A control-plane join takes the ClusterConfiguration from the cluster (the first control plane's); the names
      // it adds of its own are its node name and advertise address.
      const join = parseJoinConfig(kubeadm.configText, version);
      const cluster = this.#clusterConfigOf(join.apiServerEndpoint);
      return existingApiServerCertError(
        certPem,
        caPem,
        apiServerNames({
          nodeName: join.node.name,
          advertiseAddress: join.controlPlane?.advertiseAddress ?? '',
          ...(cluster ? { serviceIp: firstServiceIp(cluster.serviceSubnet) } : {}),
          dnsDomain: cluster?.dnsDomain ?? 'cluster.local',
          certSANs: cluster?.certSANs ?? [],
          ...(cluster?.controlPlaneEndpoint ? { controlPlaneEndpoint: cluster.controlPlaneEndpoint } : {}),
        }),
      );
    } catch (e) {
      if (e instanceof KubeadmConfigError) return undefined;
      throw e;
    }
  }

  /**
   * kubeadm's certs phase on etcd's serving and peer certificates, when the boot script places them (the same rule as
   * the netns kubeadm's): the etcd CA must have signed each and it must hold the node's etcd names. The phase's error
   * (`etcd-server: …`), or undefined when there are none on disk or they are used.
   */
  #etcdCertError(config: NodeBootConfig, phase: 'init' | 'join'): string | undefined {
    const view = bootDiskView(config, config.files.get(BOOTSTRAP_SCRIPT) ?? '');
    const caPem = view.read(`${PKI_DIR}/etcd/ca.crt`);
    const kubeadm = config.kubeadm;
    if (caPem === undefined || !kubeadm) return undefined;
    const version = config.kubeletVersion ?? '';
    let node: { nodeName: string; advertiseAddress: string; server: readonly string[]; peer: readonly string[] };
    try {
      if (phase === 'init') {
        const init = parseInitConfig(kubeadm.configText, version);
        node = {
          nodeName: init.node.name,
          advertiseAddress: init.advertiseAddress,
          server: init.cluster.etcdServerCertSANs,
          peer: init.cluster.etcdPeerCertSANs,
        };
      } else {
        const join = parseJoinConfig(kubeadm.configText, version);
        const cluster = this.#clusterConfigOf(join.apiServerEndpoint);
        node = {
          nodeName: join.node.name,
          advertiseAddress: join.controlPlane?.advertiseAddress ?? '',
          server: cluster?.etcdServerCertSANs ?? [],
          peer: cluster?.etcdPeerCertSANs ?? [],
        };
      }
    } catch (e) {
      if (e instanceof KubeadmConfigError) return undefined;
      throw e;
    }
    for (const kind of ['server', 'peer'] as const) {
      const certPem = view.read(`${PKI_DIR}/etcd/${kind}.crt`);
      if (certPem === undefined) continue;
      const names = etcdCertNames({ nodeName: node.nodeName, advertiseAddress: node.advertiseAddress, certSANs: node[kind] });
      const error = existingCertError(`etcd/${kind}`, certPem, 'etcd/ca', caPem, names);
      if (error) return `etcd-${kind}: ${error}`;
    }
    return undefined;
  }

  /**
   * A preflight as the boot script meets it: its first attempt on the disk user-data leaves, and, when that fails,
   * the next after `kubeadm reset --force` (kubeadm_once), which empties what kubeadm left before: a failure reset
   * clears (a stale /var/lib/etcd, a kubelet.conf) passes then. The failure's text when every attempt fails.
   */
  #preflightAfterRetries(k: Kubelet, at: number, what: string, config: NodeBootConfig, check: (view: NodeView) => PreflightResult): string | undefined {
    const script = config.files.get(BOOTSTRAP_SCRIPT) ?? '';
    const first = check(bootDiskView(config, script));
    if (first.errors.length === 0) return undefined;
    const again = check(bootDiskView(config, script, { afterReset: true }));
    if (again.errors.length > 0) return `${what}: ${oneLine(formatPreflight(again))}`;
    this.#log(k, at, `${what}: ${oneLine(formatPreflight(first))}; ${what} failed; resetting before the next attempt`);
    return undefined;
  }

  /** The InitConfiguration of a first control plane, as kubeadm reads it; undefined when kubeadm would refuse it. */
  /**
   * The runtime contract on the boot disk (the same rule as the netns kubelet's): the cgroup driver of the kubelet's
   * configuration (kubeadm's, from the init config) against containerd's runc, as the script leaves config.toml.
   */
  #runtimeContractError(config: NodeBootConfig, pod: string): string | undefined {
    const toml = bootDiskView(config, config.files.get(BOOTSTRAP_SCRIPT) ?? '').read(CONTAINERD_CONFIG);
    const kubelet = this.#initConfig(config)?.kubelet;
    if (toml === undefined || !kubelet) return undefined;
    const containerd = parseContainerdConfig(toml);
    if ('error' in containerd) return undefined;
    return cgroupDriverError(typeof kubelet['cgroupDriver'] === 'string' ? kubelet['cgroupDriver'] : 'cgroupfs', runcSystemdCgroup(containerd.config), pod);
  }

  #joinConfig(config: NodeBootConfig): JoinConfig | undefined {
    if (!config.kubeadm?.join) return undefined;
    try {
      return parseJoinConfig(config.kubeadm.configText, config.kubeletVersion ?? '');
    } catch (e) {
      if (e instanceof KubeadmConfigError) return undefined;
      throw e;
    }
  }

  #initConfig(config: NodeBootConfig): InitConfig | undefined {
    if (!config.kubeadm?.init) return undefined;
    try {
      return parseInitConfig(config.kubeadm.configText, config.kubeletVersion ?? '');
    } catch {
      return undefined;
    }
  }

  /** The ClusterConfiguration of the cluster at `endpoint`, as its first control plane's kubeadm config has it. */
  #clusterConfigOf(endpoint: string): InitConfig['cluster'] | undefined {
    for (const other of this.#kubelets.values()) {
      const kubeadm = other.config?.kubeadm;
      if (!kubeadm?.init || kubeadm.init.controlPlaneEndpoint !== endpoint) continue;
      try {
        return parseInitConfig(kubeadm.configText, other.config?.kubeletVersion ?? '').cluster;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** The machine as the overlay sees it at first boot: the wg0.conf its user-data writes, and its public address. */
  #overlayMember(k: Kubelet): OverlayMember | undefined {
    const text = k.config?.files.get(WIREGUARD_CONF);
    const config = text === undefined ? undefined : parseWireguardConfig(text);
    if (!config) return undefined;
    return { name: k.status.node ?? k.vm.name, config, ...(k.vm.publicIPv4 ? { publicIPv4: k.vm.publicIPv4 } : {}) };
  }

  static #roleOf(k: Kubelet): string {
    const mode = k.config?.mode;
    return mode === 'loadbalancer' ? 'loadbalancer' : mode === 'join' ? 'compute' : 'control';
  }

  /** Why `a` and `b` cannot reach each other over WireGuard, or null when they can (see overlay-rules.ts). */
  #overlayProblem(a: Kubelet, b: Kubelet): string | null {
    const ma = this.#overlayMember(a);
    const mb = this.#overlayMember(b);
    if (!ma || !mb) return `${a.status.node ?? a.vm.name} or ${b.status.node ?? b.vm.name} has no WireGuard configuration (${WIREGUARD_CONF})`;
    const roles = new Map<OverlayMember, string>([
      [ma, KubeletSimulation.#roleOf(a)],
      [mb, KubeletSimulation.#roleOf(b)],
    ]);
    return overlayPairForms(ma, mb, (m) => roles.get(m) ?? 'compute') ? null : overlayPairProblem(ma, mb);
  }

  /** The live load-balancer machines whose nginx forwards the API port to this control plane's overlay address. */
  #apiLoadBalancers(k: Kubelet, port: string): Kubelet[] {
    const own = this.#overlayMember(k)?.config.overlayIp;
    if (!own) return [];
    return [...this.#kubelets.values()].filter((lb) => {
      if (!lb.alive || lb.config?.mode !== 'loadbalancer' || lb.status.state !== 'load-balancer') return false;
      const nginx = lb.config.files.get(STAGED_NGINX) ?? '';
      const peers = this.#overlayMember(lb)?.config.peers ?? [];
      // The endpoint's port on the load balancer, forwarded to this control plane's API server (kubeadm's bindPort).
      return forwardsTo(nginx, Number(port), `${own}:${API_SERVER_PORT}`) && peers.some((p) => p.overlayIp === own);
    });
  }

  #keyMismatch(caPem: string, caKeyPem: string): string | null {
    return caPairError('ca', caPem, caKeyPem) ?? null;
  }

  #initDone(k: Kubelet, at: number, caPem: string, verified = false): void {
    if (!k.alive || !k.config?.kubeadm?.init) return;
    const init = k.config.kubeadm.init;
    const endpoint = init.controlPlaneEndpoint;
    if (verified && this.reachable(endpoint)) return this.#fail(k, at, `kubeadm init: another cluster already answers at ${endpoint}`);
    // kubeadm init talks to the API through controlPlaneEndpoint from its upload-config phase on. Behind a load
    // balancer that is nginx on the LB nodes forwarding over WireGuard to this node's overlay address.
    if (!verified && !isIpv4(hostOf(endpoint))) {
      const port = endpoint.slice(endpoint.lastIndexOf(':') + 1);
      const lbs = this.#apiLoadBalancers(k, port);
      const reaching = lbs.filter((lb) => this.#overlayProblem(lb, k) === null);
      if (reaching.length === 0) {
        const why = lbs.length === 0 ? `no load-balancer node forwards ${endpoint} to this node yet` : lbs.map((lb) => this.#overlayProblem(lb, k)).join('; ');
        const attempts = (k.initAttempts ?? 0) + 1;
        k.initAttempts = attempts;
        if (attempts >= KUBE_TIMINGS.kubeadmAttempts)
          return this.#fail(k, at, `kubeadm init: timed out waiting for the API server at https://${endpoint}: ${why}`);
        this.#log(k, at, `kubeadm init: the API server at https://${endpoint} does not answer (${why}); resetting and retrying`);
        this.events.at(at + KUBE_TIMINGS.kubeadmInitMs + KUBEADM_RETRY_MS, { kind: 'init-done', kubelet: k, caPem });
        return;
      }
    }
    const cluster = this.#cluster(
      {
        name: init.clusterName,
        endpoint,
        kubernetesVersion: init.kubernetesVersion,
        caPem,
        ...(init.serviceSubnet ? { serviceSubnet: init.serviceSubnet } : {}),
        ...(init.podSubnet ? { podSubnet: init.podSubnet } : {}),
      },
      caCertHash(caPem),
      new Set([k]),
      at,
      at,
    );
    this.clusters.set(endpoint, cluster);
    k.cluster = cluster;
    // What kubeadm init's upload-config and kubelet-start phases store (every join reads them), and the mesh ConfigMap.
    const configMaps: KubeObject[] = uploadedConfigMaps(k.config.kubeadm.configText, k.config.kubeletVersion ?? '');
    const mesh = k.config.files.get(STAGED_MESH);
    if (mesh) {
      for (const doc of parseAllDocuments(mesh)) {
        const o = doc.toJS() as KubeObject | null;
        if (o && o['kind'] === 'ConfigMap' && typeof o.metadata?.name === 'string') configMaps.push(o);
      }
    }
    cluster.api.bootstrap(
      { tokens: init.tokens.map((t) => ({ token: t.token, expiresAtMs: at + t.ttlMs, usages: t.usages, groups: t.groups })), configMaps },
      at,
    );
    this.#log(k, at, `kubeadm init: control plane up at https://${endpoint}`);
    this.#register(k, cluster, at, true);
  }

  /** A joining node looks for its API server: kubeadm's token discovery, or a managed node's own credentials. */
  #discover(k: Kubelet, at: number): void {
    const config = k.config;
    const join = config?.kubeadm?.join;
    const endpoint = k.vm.managed?.endpoint ?? join?.apiServerEndpoint;
    if (!k.alive || endpoint === undefined) return;
    const tool = join ? 'kubeadm join' : 'kubelet';
    const deadline = k.discoveryDeadline ?? at;
    const retry = (reason: string): void => {
      k.status.reason = reason;
      this.#log(k, at, `${tool}: ${reason}`);
      if (at + KUBE_TIMINGS.discoveryRetryMs > deadline)
        return this.#fail(k, at, `${reason} (gave up after ${KUBE_TIMINGS.kubeadmAttempts} attempts of ${KUBE_TIMINGS.discoveryTimeoutMs / 60_000} min)`);
      this.events.at(at + KUBE_TIMINGS.discoveryRetryMs, { kind: 'discover', kubelet: k });
    };
    const cluster = this.reachable(endpoint);
    if (!cluster) return retry(`could not reach the API server at https://${endpoint} (connection refused or no such host)`);
    if (join) {
      const tokenProblem = cluster.api.checkBootstrapToken(join.token, at);
      if (tokenProblem) return retry(`couldn't validate the identity of the API Server: ${tokenProblem}`);
      if (join.caCertHashes.length === 0)
        return this.#fail(k, at, 'discovery.bootstrapToken.caCertHashes is empty: token-based discovery without a pinned CA is refused');
      if (!join.caCertHashes.includes(cluster.caHash)) {
        return this.#fail(k, at, `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${cluster.caHash}" are pinned`);
      }
      // Discovery done, kubeadm join reads the kubeadm-config ConfigMap as the token's user: the bootstrap
      // authenticator takes only a token with the authentication usage.
      if (!cluster.api.bootstrapTokenAuthenticates(join.token, at))
        return retry('error execution phase preflight: unable to fetch the kubeadm-config ConfigMap: failed to get config map: Unauthorized');
      // kubelet-start: the installed kubelet against the cluster's version (the netns kubeadm's same rule).
      const skew = config?.kubeletVersion ? kubeletSkewError(config.kubeletVersion, cluster.api.identity.kubernetesVersion) : undefined;
      if (skew) return this.#fail(k, at, `kubeadm join: error execution phase kubelet-start: ${skew}`);
    }
    k.cluster = cluster;
    if (config && join?.controlPlane) {
      // With a certificateKey kubeadm downloads the shared certificates from a Secret no upload-certs made (the netns
      // kubeadm's same rule).
      if (this.#joinConfig(config)?.controlPlane?.certificateKey)
        return this.#fail(k, at, `kubeadm join: error execution phase control-plane-prepare/download-certs: ${downloadCertsError(join.token)}`);
      const files = config.files;
      const caPem = files.get(STAGED_CA);
      const caKey = files.get(STAGED_CA_KEY);
      if (!caPem || !caKey)
        return this.#fail(
          k,
          at,
          'kubeadm join --control-plane: failure loading certificate authority: the cluster CA key is not on this node and no certificate key was given',
        );
      if (caCertHash(caPem) !== cluster.caHash) return this.#fail(k, at, 'kubeadm join --control-plane: the CA certificate on this node is not the cluster CA');
      const mismatch = this.#keyMismatch(caPem, caKey);
      if (mismatch) return this.#fail(k, at, `kubeadm join --control-plane: ${mismatch}`);
      // etcd member add and the new member's raft traffic run between control planes' overlay addresses.
      for (const member of cluster.controlPlanes) {
        const problem = member.alive ? this.#overlayProblem(k, member) : null;
        if (problem)
          return this.#fail(
            k,
            at,
            `kubeadm join --control-plane: cannot reach etcd at ${this.#overlayMember(member)?.config.overlayIp ?? member.vm.name}:2380: ${problem}`,
          );
      }
      const start = Math.max(at, cluster.controlPlaneJoinBusyUntil);
      cluster.controlPlaneJoinBusyUntil = start + KUBE_TIMINGS.kubeadmControlPlaneJoinMs;
      k.status.state = 'joining';
      delete k.status.reason;
      this.#log(
        k,
        at,
        start > at
          ? `kubeadm join --control-plane: waiting for the etcd member add of another control plane until ${new Date(start).toISOString()}`
          : 'kubeadm join --control-plane: adding an etcd member',
      );
      this.events.at(start + KUBE_TIMINGS.kubeadmControlPlaneJoinMs, { kind: 'joined', kubelet: k, cluster });
      return;
    }
    k.status.state = 'joining';
    delete k.status.reason;
    this.#log(k, at, `${tool}: TLS bootstrap`);
    this.events.at(at + KUBE_TIMINGS.kubeadmJoinMs, { kind: 'joined', kubelet: k, cluster });
  }

  #joined(k: Kubelet, cluster: SimCluster, at: number): void {
    const node = k.vm.managed?.nodeName ?? k.config?.kubeadm?.nodeName;
    if (!k.alive || node === undefined || !(k.vm.managed || k.config?.kubeadm?.join)) return;
    if (this.reachable(cluster.endpoint) !== cluster) {
      k.status.state = 'waiting-for-api';
      return this.#discover(k, at);
    }
    const existing = cluster.api.store.get('nodes', undefined, node);
    const conditions = (existing?.['status'] as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
    if (existing && conditions.some((c) => c.type === 'Ready' && c.status === 'True')) {
      return this.#fail(
        k,
        at,
        `a Node with name "${node}" and status "Ready" already exists in the cluster; delete it or change the name of this new joining node`,
      );
    }
    // The kubelet refuses a node-ip none of the machine's interfaces holds (pkg/kubelet/nodestatus/setters.go
    // validateNodeIP): its public and private addresses, and the overlay address wg0 takes.
    const nodeIp = k.config?.kubeadm?.kubeletArgs['node-ip'];
    const held = [k.vm.publicIPv4, k.vm.privateIPv4, this.#overlayMember(k)?.config.overlayIp].filter((ip): ip is string => ip !== undefined);
    const nodeIpRefused = k.vm.managed ? undefined : nodeIpError(nodeIp, held);
    if (nodeIpRefused) return this.#fail(k, at, `kubelet: ${nodeIpRefused}`);
    const controlPlane = k.config?.kubeadm?.join?.controlPlane === true;
    if (!controlPlane && !k.vm.managed) {
      // The kubelet's node-ip is its overlay address: the API servers reach it (logs, exec, webhooks) and Cilium
      // tunnels to it only over WireGuard. A worker no control plane can reach would register and be broken.
      for (const member of cluster.controlPlanes) {
        const problem = member.alive ? this.#overlayProblem(k, member) : null;
        if (problem)
          return this.#fail(
            k,
            at,
            `kubelet: node-ip ${this.#overlayMember(k)?.config.overlayIp ?? '?'} is ` +
              `unreachable from control plane ${member.status.node ?? member.vm.name}: ${problem}`,
          );
      }
    }
    if (controlPlane) cluster.controlPlanes.add(k);
    this.#register(k, cluster, at, controlPlane);
  }

  /** The Node a kubelet registers: from its kubeadm config and kubelet flags, or as its managed node pool says. */
  #registration(k: Kubelet, cluster: SimCluster, controlPlane: boolean): RegisterNode | undefined {
    const internalIp = k.vm.privateIPv4 ? { internalIp: k.vm.privateIPv4 } : {};
    const managed = k.vm.managed;
    if (managed) {
      return {
        name: managed.nodeName,
        labels: { ...managed.labels },
        taints: managed.taints.map((t) => ({ ...t })),
        ...internalIp,
        providerId: managed.providerId,
        kubeletVersion: managed.kubeletVersion ?? cluster.api.identity.kubernetesVersion,
        arch: managed.labels['kubernetes.io/arch'] ?? 'amd64',
        controlPlane,
        ...(k.vm.machine ? { machine: k.vm.machine } : {}),
      };
    }
    const config = k.config;
    const kubeadm = config?.kubeadm;
    if (!config || !kubeadm) return undefined;
    const labels: Record<string, string> = {};
    for (const pair of (kubeadm.kubeletArgs['node-labels'] ?? '').split(',')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      labels[eq < 0 ? pair : pair.slice(0, eq)] = eq < 0 ? '' : pair.slice(eq + 1);
    }
    const nodeIp = kubeadm.kubeletArgs['node-ip'];
    const providerId = kubeadm.kubeletArgs['provider-id'];
    return {
      name: kubeadm.nodeName,
      labels,
      taints: kubeadm.taints as TaintLike[],
      ...(nodeIp ? { internalIp: nodeIp } : internalIp),
      ...(providerId ? { providerId } : {}),
      kubeletVersion: config.kubeletVersion ?? cluster.api.identity.kubernetesVersion,
      arch: config.arch ?? 'amd64',
      controlPlane,
      ...(k.vm.machine ? { machine: k.vm.machine } : {}),
    };
  }

  #register(k: Kubelet, cluster: SimCluster, at: number, controlPlane: boolean): void {
    const node = this.#registration(k, cluster, controlPlane);
    if (!node) return;
    cluster.api.registerNode(node, at);
    k.status.state = 'registered';
    k.status.registeredAtMs = at;
    this.#log(k, at, `kubelet: registered node ${node.name}`);
    this.events.at(at + KUBE_TIMINGS.ciliumReadyMs, { kind: 'node-ready', kubelet: k, cluster, node: node.name });
  }

  /**
   * When each running kubelet of the cluster at `endpoint` last renewed its node Lease: every quarter of the lease
   * duration (10 s) since it registered (pkg/kubelet/nodelease: renewInterval = 0.25 × nodeLeaseDurationSeconds).
   * Computed on read rather than scheduled, so a long simulation does not carry an event per node every 10 s.
   */
  leaseRenewals(endpoint: string, nowMs: number): Map<string, { renewedAtMs: number; registeredAtMs: number }> {
    const out = new Map<string, { renewedAtMs: number; registeredAtMs: number }>();
    for (const k of this.#kubelets.values()) {
      const registeredAtMs = k.status.registeredAtMs;
      if (!k.alive || k.hung || !k.status.node || k.cluster?.endpoint !== endpoint || registeredAtMs === undefined || registeredAtMs > nowMs) continue;
      out.set(k.status.node, { registeredAtMs, renewedAtMs: lastTick(registeredAtMs, nowMs, LEASE_RENEW_MS) });
    }
    return out;
  }

  /** The kubelet stops renewing: its Lease keeps the last renewal before `atMs`. */
  #freezeLease(k: Kubelet, atMs: number): void {
    const node = k.status.node ? k.cluster?.api.store.get('nodes', undefined, k.status.node) : undefined;
    const registeredAtMs = k.status.registeredAtMs;
    if (!node || !k.cluster || registeredAtMs === undefined || k.hung) return;
    k.cluster.api.renewNodeLease(node, lastTick(registeredAtMs, atMs, LEASE_RENEW_MS));
  }

  /**
   * A fault for remediation tests: the node's kubelet stops posting status while its machine keeps running (a hung
   * kubelet, a wedged GPU driver). The node lifecycle controller marks it unreachable after the grace period.
   */
  hangKubelet(node: string, now: number): boolean {
    const k = [...this.#kubelets.values()].find((x) => x.alive && x.status.node === node && x.cluster);
    if (!k?.cluster) return false;
    this.#freezeLease(k, now);
    k.hung = true;
    k.status.state = 'failed';
    k.status.reason = 'kubelet stopped posting node status (sandbox fault)';
    this.#log(k, now, `failed: ${k.status.reason}`);
    this.events.at(now + KUBE_TIMINGS.nodeMonitorGraceMs, { kind: 'unreachable', cluster: k.cluster, node });
    return true;
  }

  #nodeReady(k: Kubelet, cluster: SimCluster, node: string, at: number): void {
    if (k.hung) return;
    if (!k.alive || this.reachable(cluster.endpoint) !== cluster) return;
    if (!cluster.api.store.get('nodes', undefined, node)) return;
    cluster.api.setNodeReady(node, at);
    k.status.state = 'ready';
    k.status.readyAtMs = at;
    this.#log(k, at, 'kubelet: node Ready (Cilium agent running)');
  }

  #run(event: SimEvent, at: number): void {
    switch (event.kind) {
      case 'gone':
        return this.#gone(event.kubelet, at);
      case 'unreachable':
        if (this.reachable(event.cluster.endpoint) !== event.cluster) return;
        return event.cluster.api.markNodeUnreachable(event.node, at);
      case 'prepared':
        return this.#prepared(event.kubelet, at);
      case 'init-done':
        return this.#initDone(event.kubelet, at, event.caPem);
      case 'discover':
        return this.#discover(event.kubelet, at);
      case 'joined':
        return this.#joined(event.kubelet, event.cluster, at);
      case 'node-ready':
        return this.#nodeReady(event.kubelet, event.cluster, event.node, at);
      case 'cluster':
        return event.cluster.api.runEvent(event.event, at);
      case 'managed-up':
        return this.#managedUp(event.cluster, at);
      case 'managed-down':
        if (event.cluster.managed) event.cluster.managed.up = false;
        return;
      case 'node-deleted':
        return this.#deleteCloudNode(event.cluster, event.node, event.providerId, at);
      case 'upgraded':
        return this.#upgraded(event.kubelet, event.cluster, event.version, event.mode, at);
    }
  }

  /** A cluster's API, its controllers scheduling on this simulation's queue. */
  #cluster(identity: ClusterIdentity, caHash: string, controlPlanes: Set<Kubelet>, controlPlaneJoinBusyUntil: number, nowMs: number): SimCluster {
    const holder: { cluster?: SimCluster } = {};
    const api = new ClusterApi(identity, (t, event) => this.events.at(t, { kind: 'cluster', cluster: holder.cluster as SimCluster, event }), nowMs);
    const cluster: SimCluster = { api, endpoint: identity.endpoint, caHash, controlPlanes, controlPlaneJoinBusyUntil };
    holder.cluster = cluster;
    return cluster;
  }

  /** A deep copy of the simulation: kubelets, clusters (objects and controllers' schedules) and pending events. */
  state(): KubeletSimulationState {
    const kubelets = [...this.#retired, ...this.#kubelets.values()];
    const kubeletIndex = new Map(kubelets.map((k, i) => [k, i]));
    const clusters: SimCluster[] = [];
    const clusterIndex = new Map<SimCluster, number>();
    const cl = (c: SimCluster): number => {
      let i = clusterIndex.get(c);
      if (i === undefined) {
        i = clusters.length;
        clusters.push(c);
        clusterIndex.set(c, i);
      }
      return i;
    };
    const ku = (k: Kubelet): number => {
      const i = kubeletIndex.get(k);
      if (i === undefined) throw new Error(`kubernetes sandbox: a pending event names a kubelet (${k.id}) the simulation no longer holds`);
      return i;
    };
    for (const c of this.clusters.values()) cl(c);
    for (const k of kubelets) if (k.cluster) cl(k.cluster);
    const pending = this.events.pending();
    const events = pending.events.map(
      ({ at, seq, event }): QueuedEvent<SimEventSnapshot> => ({ at, seq, event: structuredClone(mapEventRefs(event, ku, cl)) }),
    );
    return {
      kubelets: kubelets.map((k) => ({
        id: k.id,
        vm: structuredClone({
          ...k.vm,
          userData: typeof k.vm.userData === 'string' ? k.vm.userData : { base64: Buffer.from(k.vm.userData).toString('base64') },
        }),
        runningSince: k.runningSince,
        alive: k.alive,
        ...(k.stopping !== undefined ? { stopping: k.stopping } : {}),
        status: structuredClone(k.status),
        configured: k.config !== undefined,
        ...(k.cluster ? { cluster: cl(k.cluster) } : {}),
        ...(k.discoveryDeadline !== undefined ? { discoveryDeadline: k.discoveryDeadline } : {}),
        ...(k.upgrading !== undefined ? { upgrading: k.upgrading } : {}),
        ...(k.meshSerial !== undefined ? { meshSerial: k.meshSerial } : {}),
        ...(k.hung !== undefined ? { hung: k.hung } : {}),
        ...(k.initAttempts !== undefined ? { initAttempts: k.initAttempts } : {}),
      })),
      retired: this.#retired.map(ku),
      current: [...this.#kubelets.entries()].map(([id, k]) => [id, ku(k)]),
      clusters: clusters.map((c) => ({
        identity: { ...c.api.identity },
        caHash: c.caHash,
        controlPlanes: [...c.controlPlanes].map(ku),
        controlPlaneJoinBusyUntil: c.controlPlaneJoinBusyUntil,
        api: c.api.state(),
        ...(c.managed ? { managed: structuredClone(c.managed) } : {}),
      })),
      endpoints: [...this.clusters.entries()].map(([endpoint, c]) => [endpoint, cl(c)]),
      knownEndpoints: [...this.#endpoints],
      processedUntil: Number.isFinite(this.#processedUntil) ? this.#processedUntil : null,
      eventSeq: pending.seq,
      events,
    };
  }

  /** Replaces the simulation with a copy of `state`; the machines keep coming from this simulation's source. */
  restore(state: KubeletSimulationState): void {
    const s = structuredClone(state);
    const kubelets = s.kubelets.map((x): Kubelet => {
      const vm: SandboxVm = {
        ...x.vm,
        userData: typeof x.vm.userData === 'string' ? x.vm.userData : new Uint8Array(Buffer.from(x.vm.userData.base64, 'base64')),
      };
      return {
        id: x.id,
        vm,
        runningSince: x.runningSince,
        alive: x.alive,
        ...(x.stopping !== undefined ? { stopping: x.stopping } : {}),
        status: x.status,
        // The boot config is a pure function of the user-data; it was read without a failure before.
        ...(x.configured ? { config: readBootConfig(vm.userData) } : {}),
        ...(x.discoveryDeadline !== undefined ? { discoveryDeadline: x.discoveryDeadline } : {}),
        ...(x.upgrading !== undefined ? { upgrading: x.upgrading } : {}),
        ...(x.meshSerial !== undefined ? { meshSerial: x.meshSerial } : {}),
        ...(x.hung !== undefined ? { hung: x.hung } : {}),
        ...(x.initAttempts !== undefined ? { initAttempts: x.initAttempts } : {}),
      };
    });
    const at = <T>(list: T[], i: number, what: string): T => {
      const found = list[i];
      if (found === undefined) throw new Error(`kubernetes sandbox snapshot: no ${what} #${i}`);
      return found;
    };
    const clusters = s.clusters.map((c) => {
      const cluster = this.#cluster(c.identity, c.caHash, new Set(c.controlPlanes.map((i) => at(kubelets, i, 'kubelet'))), c.controlPlaneJoinBusyUntil, 0);
      cluster.api.restore(c.api);
      if (c.managed) cluster.managed = c.managed;
      return cluster;
    });
    s.kubelets.forEach((x, i) => {
      if (x.cluster !== undefined) at(kubelets, i, 'kubelet').cluster = at(clusters, x.cluster, 'cluster');
    });
    this.#retired.splice(0, this.#retired.length, ...s.retired.map((i) => at(kubelets, i, 'kubelet')));
    this.#kubelets.clear();
    for (const [id, i] of s.current) this.#kubelets.set(id, at(kubelets, i, 'kubelet'));
    this.clusters.clear();
    for (const [endpoint, i] of s.endpoints) this.clusters.set(endpoint, at(clusters, i, 'cluster'));
    this.#endpoints.clear();
    for (const e of s.knownEndpoints) this.#endpoints.add(e);
    this.#processedUntil = s.processedUntil ?? Number.NEGATIVE_INFINITY;
    const K = (i: number): Kubelet => at(kubelets, i, 'kubelet');
    const C = (i: number): SimCluster => at(clusters, i, 'cluster');
    const events = s.events.map(({ at: when, seq, event }): QueuedEvent<SimEvent> => ({ at: when, seq, event: mapEventRefs(event, K, C) }));
    this.events.restore(s.eventSeq, events);
  }
}

/** kubeadm's multi-line output as one status line. */
function oneLine(text: string): string {
  return text
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .join(' ');
}
