// Test fixtures for the Kubernetes side of the sandbox: the hybrid golden cluster rendered by the real bootstrap
// renderer (golden keys, so no key generation), and a hand-driven SandboxVmSource to boot its machines from.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FaultInjector } from '../faults.js';
import {
  generateWireguardKeyPair,
  renderCluster,
  seededRandomSource,
  type BootstrapCluster,
  type ClusterKeys,
  type RenderContext,
  type RenderedCluster,
  type RenderedNode,
} from '@kubeplane/sdk/internal';
import { Redacted, type PemKeyPair } from '@kubeplane/sdk';
import { seededRandom, VirtualClock } from '@kubeplane/sdk/provider';
import type { SandboxContext } from '../context.js';
import type { SandboxManagedCluster, SandboxVm, SandboxVmSource } from './vm-source.js';
import { ClusterApi, type ClusterEvent } from './cluster.js';
import { ApiError } from './store.js';
import { machineCloudOf } from '../clouds/index.js';
import { CRUSOE_CLOUD } from '../crusoe/emulator.js';

const here = dirname(fileURLToPath(import.meta.url));
export const GOLDEN_HYBRID_DIR = resolve(here, '../../../../test/golden/hybrid');
export const RENDER_NOW = new Date('2026-01-01T00:00:00Z');

interface RawPair {
  publicKeyPem: string;
  privateKeyPem: string;
}

export function goldenCluster(): BootstrapCluster {
  return JSON.parse(readFileSync(join(GOLDEN_HYBRID_DIR, 'cluster.json'), 'utf8')) as BootstrapCluster;
}

export function goldenKeys(): ClusterKeys {
  const raw = JSON.parse(readFileSync(join(GOLDEN_HYBRID_DIR, 'keys.json'), 'utf8')) as Record<string, RawPair | Record<string, RawPair>>;
  const pair = (p: RawPair): PemKeyPair => ({ publicKeyPem: p.publicKeyPem, privateKeyPem: Redacted.of(p.privateKeyPem) });
  const many = (name: string): Record<string, PemKeyPair> =>
    Object.fromEntries(Object.entries(raw[name] as Record<string, RawPair>).map(([k, v]) => [k, pair(v)]));
  return {
    clusterCa: pair(raw['clusterCa'] as RawPair),
    frontProxyCa: pair(raw['frontProxyCa'] as RawPair),
    etcdCa: pair(raw['etcdCa'] as RawPair),
    serviceAccount: pair(raw['serviceAccount'] as RawPair),
    admin: pair(raw['admin'] as RawPair),
    apiServer: many('apiServer'),
    meshReader: many('meshReader'),
    meshSigning: pair(raw['meshSigning'] as RawPair),
  };
}

/** A render context for the golden cluster (optionally changed), with deterministic randomness. */
export function goldenContext(cluster: BootstrapCluster = goldenCluster(), seed = 'kubeplane-k8s-sandbox'): RenderContext {
  const wg = seededRandomSource(`${seed}/wireguard`);
  return {
    cluster,
    keys: goldenKeys(),
    wireguardKeys: Object.fromEntries(cluster.nodes.map((n) => [n.name, generateWireguardKeyPair(wg)])),
    random: seededRandomSource(seed),
    now: RENDER_NOW,
  };
}

export async function renderGolden(cluster?: BootstrapCluster): Promise<{ ctx: RenderContext; rendered: RenderedCluster }> {
  const ctx = goldenContext(cluster);
  return { ctx, rendered: await renderCluster(ctx) };
}

export function sandboxContext(clock: VirtualClock = new VirtualClock(RENDER_NOW.getTime())): SandboxContext {
  const random = seededRandom(1);
  return { clock, random, faults: new FaultInjector(random), calls: new Map() };
}

/** User-data as a cloud would hold it: EC2 keeps base64 text, Hetzner the plain string, others raw bytes. */
export function userDataFor(node: RenderedNode, form: 'base64' | 'text' | 'bytes' = node.provider === 'aws' ? 'base64' : 'text'): string | Uint8Array {
  const bytes = node.userData.bytes.reveal();
  if (form === 'bytes') return bytes;
  if (form === 'base64') return Buffer.from(bytes).toString('base64');
  return Buffer.from(bytes).toString('utf8');
}

/** The public address each node of `cluster` was rendered with (its WireGuard peers send there). */
export function publicAddresses(cluster: BootstrapCluster): Record<string, string> {
  return Object.fromEntries(cluster.nodes.flatMap((n) => (n.publicEndpoint ? [[n.name, n.publicEndpoint.slice(0, n.publicEndpoint.lastIndexOf(':'))]] : [])));
}

/** A SandboxVmSource driven by the test. */
export class FakeVms implements SandboxVmSource {
  readonly vms = new Map<string, SandboxVm>();

  /** `addresses`: each machine's public address, by name (those the render gave its peers: see publicAddresses). */
  constructor(
    readonly clock: VirtualClock,
    readonly addresses: Record<string, string> = {},
  ) {}

  listVms(): SandboxVm[] {
    return [...this.vms.values()].map((vm) => ({ ...vm }));
  }

  /** A machine running from now (or `runningSinceMs`) with the node's user-data. */
  run(
    node: RenderedNode,
    options: { runningSinceMs?: number; userData?: string | Uint8Array; name?: string; publicIPv4?: string; id?: string } = {},
  ): SandboxVm {
    const vm: SandboxVm = {
      cloud: machineCloudOf(node.provider)?.name ?? node.provider,
      name: options.name ?? node.name,
      ...(options.id ? { id: options.id } : {}),
      state: 'running',
      runningSinceMs: options.runningSinceMs ?? this.clock.now(),
      userData: options.userData ?? userDataFor(node),
      ...((options.publicIPv4 ?? this.addresses[options.name ?? node.name])
        ? { publicIPv4: options.publicIPv4 ?? this.addresses[options.name ?? node.name] }
        : {}),
    };
    this.vms.set(vm.name, vm);
    return vm;
  }

  /** Terminates a machine: it vanishes from the list, or (`keep`) stays listed as terminated with its stop time, as EC2 shows it for a while. */
  terminate(name: string, options: { keep?: boolean } = {}): void {
    const vm = this.vms.get(name);
    if (!vm) return;
    if (options.keep) this.vms.set(name, { ...vm, state: 'terminated', stoppedAtMs: this.clock.now() });
    else this.vms.delete(name);
  }
}

/**
 * A cloud running one managed control plane (as Crusoe CMK does) whose API answers from `T0`, and machines that
 * join it on their own: the shortest way to an API server tests can talk HTTP to (`pki` from crusoe/cmk-pki.ts
 * issueCmkPki, issued once per test file).
 */
export class ManagedCloud implements SandboxVmSource {
  readonly vms = new Map<string, SandboxVm>();
  readonly endpoint: string;

  constructor(
    readonly name: string,
    readonly runningSinceMs: number,
    readonly pki: { caPem: string; servingCertPem: string; servingKeyPem: string },
  ) {
    this.endpoint = `${name}.crusoecloudcompute.com:6443`;
  }

  listVms(): SandboxVm[] {
    return [...this.vms.values()].map((v) => structuredClone(v));
  }

  listManagedClusters(): SandboxManagedCluster[] {
    return [
      {
        cloud: CRUSOE_CLOUD,
        name: this.name,
        endpoint: this.endpoint,
        kubernetesVersion: 'v1.33.4',
        state: 'running',
        runningSinceMs: this.runningSinceMs,
        caPem: this.pki.caPem,
        addons: [],
        serving: { certPem: this.pki.servingCertPem, keyPem: this.pki.servingKeyPem },
      },
    ];
  }

  /** A machine that joins from `runningSinceMs` (it registers 20 s later and is Ready 30 s after that). */
  node(
    name: string,
    runningSinceMs: number,
    options: {
      labels?: Record<string, string>;
      taints?: Array<{ key: string; value?: string; effect: string }>;
      machine?: SandboxVm['machine'];
      providerId?: string;
    } = {},
  ): void {
    this.vms.set(name, {
      cloud: CRUSOE_CLOUD,
      name,
      state: 'running',
      runningSinceMs,
      userData: '',
      privateIPv4: `172.27.0.${10 + this.vms.size}`,
      ...(options.machine ? { machine: options.machine } : {}),
      managed: {
        endpoint: this.endpoint,
        nodeName: name,
        labels: options.labels ?? {},
        taints: options.taints ?? [],
        providerId: options.providerId ?? `crusoe://${name}`,
        kubeletVersion: 'v1.33.4',
      },
    });
  }
}

/**
 * A bootstrapped cluster API with Ready workers (`nodes`, at 192.168.0.N) and a clock that runs what its
 * controllers scheduled: `advance(ms)` runs every event due by then, in order.
 */
export function clusterWorld(options: { version?: string; nodes?: string[] } = {}) {
  const version = options.version ?? 'v1.34.2';
  const t0 = RENDER_NOW.getTime();
  const queue: Array<{ at: number; event: ClusterEvent }> = [];
  const api = new ClusterApi(
    { name: 'c', endpoint: 'c.example.com:6443', kubernetesVersion: version, caPem: '', podSubnet: '10.244.0.0/16' },
    (at, event) => queue.push({ at, event }),
    t0,
  );
  api.bootstrap({ tokens: [], configMaps: [] }, t0);
  let now = t0;
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      queue.sort((a, b) => a.at - b.at);
      const next = queue[0];
      if (!next || next.at > until) break;
      queue.shift();
      api.runEvent(next.event, next.at);
    }
    now = until;
  };
  for (const [i, name] of (options.nodes ?? ['w-1', 'w-2', 'w-3']).entries()) {
    api.registerNode({ name, labels: {}, taints: [], internalIp: `192.168.0.${i + 1}`, kubeletVersion: version, arch: 'amd64', controlPlane: false }, t0);
    api.setNodeReady(name, t0);
  }
  advance(60_000);
  return { api, advance, now: () => now };
}

/** The API error `f` throws; fails when it throws none. */
export function refused(f: () => unknown): ApiError {
  try {
    f();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
