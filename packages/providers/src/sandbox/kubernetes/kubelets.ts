// Simulated kubelets: each running sandbox VM boots on the virtual clock as its user-data says (OS preparation,
// then kubeadm init, join as a control plane — one at a time — or join), and registers a Node only when its
// config would really work: a live bootstrap token, the cluster CA's pinned hash, and the cluster's endpoint.
import { createHash, createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { ClusterApi, type ClusterApiState, type ClusterEvent, type ClusterIdentity, type TaintLike } from './cluster.js';
import { EventQueue, type QueuedEvent } from './events.js';
import type { KubeObject } from './store.js';
import { KUBE_TIMINGS } from './timings.js';
import { BootFailure, readBootConfig, type NodeBootConfig } from './user-data.js';
import type { SandboxVm, SandboxVmSource } from './vm-source.js';

export type KubeletState =
  | 'preparing'
  | 'initializing'
  | 'waiting-for-api'
  | 'joining'
  | 'registered'
  | 'ready'
  | 'failed'
  | 'stopped'
  | 'load-balancer';

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

export interface SimCluster {
  api: ClusterApi;
  endpoint: string;
  caHash: string;
  /** Control-plane kubelets that finished kubeadm (the API answers while one of them is alive). */
  controlPlanes: Set<Kubelet>;
  /** The end of the running control-plane join (etcd member add happens one at a time). */
  controlPlaneJoinBusyUntil: number;
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
}

/** What the simulation schedules: data naming the kubelet or cluster it concerns, so it can be saved. */
type SimEvent =
  | { kind: 'gone'; kubelet: Kubelet }
  | { kind: 'unreachable'; cluster: SimCluster; node: string }
  | { kind: 'prepared'; kubelet: Kubelet }
  | { kind: 'init-done'; kubelet: Kubelet; caPem: string }
  | { kind: 'discover'; kubelet: Kubelet }
  | { kind: 'joined'; kubelet: Kubelet; cluster: SimCluster }
  | { kind: 'node-ready'; kubelet: Kubelet; cluster: SimCluster; node: string }
  | { kind: 'cluster'; cluster: SimCluster; event: ClusterEvent };

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
}

export interface SimClusterSnapshot {
  identity: ClusterIdentity;
  caHash: string;
  /** Indexes into the snapshot's kubelets. */
  controlPlanes: number[];
  controlPlaneJoinBusyUntil: number;
  api: ClusterApiState;
}

/** A SimEvent with its kubelet and cluster as indexes into the snapshot's lists. */
export type SimEventSnapshot =
  | { kind: 'gone' | 'prepared' | 'discover'; kubelet: number }
  | { kind: 'unreachable'; cluster: number; node: string }
  | { kind: 'init-done'; kubelet: number; caPem: string }
  | { kind: 'joined'; kubelet: number; cluster: number }
  | { kind: 'node-ready'; kubelet: number; cluster: number; node: string }
  | { kind: 'cluster'; cluster: number; event: ClusterEvent };

/**
 * The simulated side of every cluster as plain data (sandbox snapshots). Kubelets keep their machines' user-data,
 * which holds cluster private keys: written to disk with mode 0600, never logged.
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

export class KubeletSimulation {
  readonly #source: SandboxVmSource;
  readonly events = new EventQueue<SimEvent>();
  readonly #kubelets = new Map<string, Kubelet>();
  readonly #retired: Kubelet[] = [];
  readonly clusters = new Map<string, SimCluster>();
  readonly #endpoints = new Set<string>();
  #processedUntil = Number.NEGATIVE_INFINITY;

  constructor(source: SandboxVmSource) {
    this.#source = source;
  }

  /** Brings the simulated side up to `now`: notices new and vanished VMs, then runs every due event. */
  tick(now: number): void {
    const floor = Math.max(this.#processedUntil, Number.NEGATIVE_INFINITY);
    const seen = new Set<string>();
    for (const vm of this.#source.listVms()) {
      const id = `${vm.cloud}/${vm.name}`;
      const current = this.#kubelets.get(id);
      if (vm.state !== 'running') {
        if (current?.alive && (vm.runningSinceMs === undefined || current.runningSince === vm.runningSinceMs)) {
          this.#goneAt(current, Math.max(vm.stoppedAtMs ?? now, floor, current.runningSince));
        } else if (vm.runningSinceMs !== undefined && vm.stoppedAtMs !== undefined && vm.stoppedAtMs > floor && current?.runningSince !== vm.runningSinceMs) {
          // A machine that ran and stopped between two looks: it still booted for as long as it ran.
          if (current) this.#retired.push(current);
          this.#goneAt(this.#start(id, vm, vm.runningSinceMs, floor), vm.stoppedAtMs);
        }
        continue;
      }
      seen.add(id);
      const runningSince = vm.runningSinceMs ?? now;
      if (current && current.runningSince === runningSince && current.alive) {
        current.vm = vm;
        continue;
      }
      if (current?.alive) this.#goneAt(current, Math.max(floor, now));
      if (current) this.#retired.push(current);
      this.#start(id, vm, runningSince, floor);
    }
    for (const k of this.#kubelets.values()) if (k.alive && !seen.has(k.id)) this.#goneAt(k, Math.max(floor, now));
    this.events.runUntil(now, (event, at) => this.#run(event, at));
    this.#processedUntil = now;
  }

  /** The cluster that answers at `host:port`, if its API is up. */
  reachable(endpoint: string): SimCluster | undefined {
    const cluster = this.clusters.get(endpoint);
    if (!cluster) return undefined;
    for (const k of cluster.controlPlanes) if (k.alive) return cluster;
    return undefined;
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
    this.events.at(Math.max(runningSince + KUBE_TIMINGS.osPreparationMs, floor), { kind: 'prepared', kubelet: k });
    return k;
  }

  #gone(k: Kubelet, atMs: number): void {
    k.alive = false;
    const wasRegistered = k.status.state === 'registered' || k.status.state === 'ready';
    if (k.status.state !== 'failed') k.status.state = 'stopped';
    this.#log(k, atMs, 'machine stopped');
    const cluster = k.cluster;
    const node = k.status.node;
    if (wasRegistered && cluster && node) {
      this.events.at(atMs + KUBE_TIMINGS.nodeMonitorGraceMs, { kind: 'unreachable', cluster, node });
    }
  }

  #prepared(k: Kubelet, at: number): void {
    if (!k.alive || !k.config) return;
    const config = k.config;
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
        return this.#fail(k, at, `kubeadm init: the control-plane endpoint ${endpoint} is not an address of this machine (${own.join(', ')}); attach the reserved IP to the first control plane`);
      }
      if (this.reachable(endpoint)) return this.#fail(k, at, `kubeadm init: another cluster already answers at ${endpoint}; the kubelet cannot register with this control plane`);
      k.status.state = 'initializing';
      this.#log(k, at, `kubeadm init: control-plane endpoint ${endpoint}`);
      this.events.at(at + KUBE_TIMINGS.kubeadmInitMs, { kind: 'init-done', kubelet: k, caPem });
      return;
    }
    k.status.state = 'waiting-for-api';
    k.discoveryDeadline = at + KUBE_TIMINGS.discoveryTimeoutMs * KUBE_TIMINGS.kubeadmAttempts;
    this.#discover(k, at);
  }

  #keyMismatch(caPem: string, caKeyPem: string): string | null {
    try {
      const certSpki = new X509Certificate(caPem).publicKey.export({ type: 'spki', format: 'der' });
      const keySpki = createPublicKey(createPrivateKey(caKeyPem)).export({ type: 'spki', format: 'der' });
      return Buffer.compare(Buffer.from(certSpki), Buffer.from(keySpki)) === 0 ? null : 'failure loading ca certificate authority: the private key does not match the certificate';
    } catch {
      return 'failure loading ca certificate authority: the certificate or key does not parse';
    }
  }

  #initDone(k: Kubelet, at: number, caPem: string): void {
    if (!k.alive || !k.config?.kubeadm?.init) return;
    const init = k.config.kubeadm.init;
    const endpoint = init.controlPlaneEndpoint;
    const cluster = this.#cluster({ name: init.clusterName, endpoint, kubernetesVersion: init.kubernetesVersion, caPem }, caCertHash(caPem), new Set([k]), at, at);
    this.clusters.set(endpoint, cluster);
    k.cluster = cluster;
    const meshConfigMaps: KubeObject[] = [];
    const mesh = k.config.files.get(STAGED_MESH);
    if (mesh) {
      for (const doc of parseAllDocuments(mesh)) {
        const o = doc.toJS() as KubeObject | null;
        if (o && o['kind'] === 'ConfigMap' && typeof o.metadata?.name === 'string') meshConfigMaps.push(o);
      }
    }
    cluster.api.bootstrap({ tokens: init.tokens.map((t) => ({ token: t.token, expiresAtMs: at + t.ttlMs })), meshConfigMaps }, at);
    this.#log(k, at, `kubeadm init: control plane up at https://${endpoint}`);
    this.#register(k, cluster, at, true);
  }

  #discover(k: Kubelet, at: number): void {
    if (!k.alive || !k.config?.kubeadm?.join) return;
    const join = k.config.kubeadm.join;
    const deadline = k.discoveryDeadline ?? at;
    const retry = (reason: string): void => {
      k.status.reason = reason;
      this.#log(k, at, `kubeadm join: ${reason}`);
      if (at + KUBE_TIMINGS.discoveryRetryMs > deadline) return this.#fail(k, at, `${reason} (gave up after ${KUBE_TIMINGS.kubeadmAttempts} attempts of ${KUBE_TIMINGS.discoveryTimeoutMs / 60_000} min)`);
      this.events.at(at + KUBE_TIMINGS.discoveryRetryMs, { kind: 'discover', kubelet: k });
    };
    const cluster = this.reachable(join.apiServerEndpoint);
    if (!cluster) return retry(`could not reach the API server at https://${join.apiServerEndpoint} (connection refused or no such host)`);
    const tokenProblem = cluster.api.checkBootstrapToken(join.token, at);
    if (tokenProblem) return retry(`couldn't validate the identity of the API Server: ${tokenProblem}`);
    if (join.caCertHashes.length === 0) return this.#fail(k, at, 'discovery.bootstrapToken.caCertHashes is empty: token-based discovery without a pinned CA is refused');
    if (!join.caCertHashes.includes(cluster.caHash)) {
      return this.#fail(k, at, `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${cluster.caHash}" are pinned`);
    }
    k.cluster = cluster;
    if (join.controlPlane) {
      const files = k.config.files;
      const caPem = files.get(STAGED_CA);
      const caKey = files.get(STAGED_CA_KEY);
      if (!caPem || !caKey) return this.#fail(k, at, 'kubeadm join --control-plane: failure loading certificate authority: the cluster CA key is not on this node and no certificate key was given');
      if (caCertHash(caPem) !== cluster.caHash) return this.#fail(k, at, 'kubeadm join --control-plane: the CA certificate on this node is not the cluster CA');
      const mismatch = this.#keyMismatch(caPem, caKey);
      if (mismatch) return this.#fail(k, at, `kubeadm join --control-plane: ${mismatch}`);
      const start = Math.max(at, cluster.controlPlaneJoinBusyUntil);
      cluster.controlPlaneJoinBusyUntil = start + KUBE_TIMINGS.kubeadmControlPlaneJoinMs;
      k.status.state = 'joining';
      delete k.status.reason;
      this.#log(k, at, start > at ? `kubeadm join --control-plane: waiting for the etcd member add of another control plane until ${new Date(start).toISOString()}` : 'kubeadm join --control-plane: adding an etcd member');
      this.events.at(start + KUBE_TIMINGS.kubeadmControlPlaneJoinMs, { kind: 'joined', kubelet: k, cluster });
      return;
    }
    k.status.state = 'joining';
    delete k.status.reason;
    this.#log(k, at, 'kubeadm join: TLS bootstrap');
    this.events.at(at + KUBE_TIMINGS.kubeadmJoinMs, { kind: 'joined', kubelet: k, cluster });
  }

  #joined(k: Kubelet, cluster: SimCluster, at: number): void {
    if (!k.alive || !k.config?.kubeadm?.join) return;
    if (this.reachable(cluster.endpoint) !== cluster) {
      k.status.state = 'waiting-for-api';
      return this.#discover(k, at);
    }
    const existing = cluster.api.store.get('nodes', undefined, k.config.kubeadm.nodeName);
    const conditions = ((existing?.['status'] as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []);
    if (existing && conditions.some((c) => c.type === 'Ready' && c.status === 'True')) {
      return this.#fail(k, at, `a Node with name "${k.config.kubeadm.nodeName}" and status "Ready" already exists in the cluster; delete it or change the name of this new joining node`);
    }
    if (k.config.kubeadm.join.controlPlane) cluster.controlPlanes.add(k);
    this.#register(k, cluster, at, k.config.kubeadm.join.controlPlane);
  }

  #register(k: Kubelet, cluster: SimCluster, at: number, controlPlane: boolean): void {
    const config = k.config;
    const kubeadm = config?.kubeadm;
    if (!config || !kubeadm) return;
    const labels: Record<string, string> = {};
    for (const pair of (kubeadm.kubeletArgs['node-labels'] ?? '').split(',')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      labels[eq < 0 ? pair : pair.slice(0, eq)] = eq < 0 ? '' : pair.slice(eq + 1);
    }
    const nodeIp = kubeadm.kubeletArgs['node-ip'];
    const providerId = kubeadm.kubeletArgs['provider-id'];
    cluster.api.registerNode(
      {
        name: kubeadm.nodeName,
        labels,
        taints: kubeadm.taints as TaintLike[],
        ...(nodeIp ? { internalIp: nodeIp } : k.vm.privateIPv4 ? { internalIp: k.vm.privateIPv4 } : {}),
        ...(providerId ? { providerId } : {}),
        kubeletVersion: config.kubeletVersion ?? cluster.api.identity.kubernetesVersion,
        arch: config.arch ?? 'amd64',
        controlPlane,
      },
      at,
    );
    k.status.state = 'registered';
    k.status.registeredAtMs = at;
    this.#log(k, at, `kubelet: registered node ${kubeadm.nodeName}`);
    this.events.at(at + KUBE_TIMINGS.ciliumReadyMs, { kind: 'node-ready', kubelet: k, cluster, node: kubeadm.nodeName });
  }

  #nodeReady(k: Kubelet, cluster: SimCluster, node: string, at: number): void {
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
    const events = pending.events.map(({ at, seq, event: e }): QueuedEvent<SimEventSnapshot> => {
      let event: SimEventSnapshot;
      switch (e.kind) {
        case 'gone':
        case 'prepared':
        case 'discover':
          event = { kind: e.kind, kubelet: ku(e.kubelet) };
          break;
        case 'unreachable':
          event = { kind: e.kind, cluster: cl(e.cluster), node: e.node };
          break;
        case 'init-done':
          event = { kind: e.kind, kubelet: ku(e.kubelet), caPem: e.caPem };
          break;
        case 'joined':
          event = { kind: e.kind, kubelet: ku(e.kubelet), cluster: cl(e.cluster) };
          break;
        case 'node-ready':
          event = { kind: e.kind, kubelet: ku(e.kubelet), cluster: cl(e.cluster), node: e.node };
          break;
        case 'cluster':
          event = { kind: e.kind, cluster: cl(e.cluster), event: structuredClone(e.event) };
          break;
      }
      return { at, seq, event };
    });
    return {
      kubelets: kubelets.map((k) => ({
        id: k.id,
        vm: structuredClone({ ...k.vm, userData: typeof k.vm.userData === 'string' ? k.vm.userData : { base64: Buffer.from(k.vm.userData).toString('base64') } }),
        runningSince: k.runningSince,
        alive: k.alive,
        ...(k.stopping !== undefined ? { stopping: k.stopping } : {}),
        status: structuredClone(k.status),
        configured: k.config !== undefined,
        ...(k.cluster ? { cluster: cl(k.cluster) } : {}),
        ...(k.discoveryDeadline !== undefined ? { discoveryDeadline: k.discoveryDeadline } : {}),
      })),
      retired: this.#retired.map(ku),
      current: [...this.#kubelets.entries()].map(([id, k]) => [id, ku(k)]),
      clusters: clusters.map((c) => ({
        identity: { ...c.api.identity },
        caHash: c.caHash,
        controlPlanes: [...c.controlPlanes].map(ku),
        controlPlaneJoinBusyUntil: c.controlPlaneJoinBusyUntil,
        api: c.api.state(),
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
      const vm: SandboxVm = { ...x.vm, userData: typeof x.vm.userData === 'string' ? x.vm.userData : new Uint8Array(Buffer.from(x.vm.userData.base64, 'base64')) };
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
    const events = s.events.map(({ at: when, seq, event: e }): QueuedEvent<SimEvent> => {
      let event: SimEvent;
      switch (e.kind) {
        case 'gone':
        case 'prepared':
        case 'discover':
          event = { kind: e.kind, kubelet: K(e.kubelet) };
          break;
        case 'unreachable':
          event = { kind: e.kind, cluster: C(e.cluster), node: e.node };
          break;
        case 'init-done':
          event = { kind: e.kind, kubelet: K(e.kubelet), caPem: e.caPem };
          break;
        case 'joined':
          event = { kind: e.kind, kubelet: K(e.kubelet), cluster: C(e.cluster) };
          break;
        case 'node-ready':
          event = { kind: e.kind, kubelet: K(e.kubelet), cluster: C(e.cluster), node: e.node };
          break;
        case 'cluster':
          event = { kind: e.kind, cluster: C(e.cluster), event: e.event };
          break;
      }
      return { at: when, seq, event };
    });
    this.events.restore(s.eventSeq, events);
  }
}
