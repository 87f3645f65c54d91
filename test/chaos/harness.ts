// The chaos harness: one seeded run of a small hybrid cluster's life on the sandbox under a random fault
// schedule — 429 and 5xx storms and timeouts in the clouds, duplicate and reordered deliveries, crashes between
// a cloud call and the state write, leases taken over mid-step, and a manifest changed mid-flight. Invariants
// are checked after every message; a failure names its seed so it can be replayed (CHAOS_SEED=n).
import {
  Engine,
  Kubeplane,
  MemoryQueue,
  MemorySecretStore,
  MemoryStateStore,
  seededRandom,
  seededRandomSource,
  validateManifestText,
  type Lease,
  type LeaseGrant,
  type Manifest,
  type Queue,
  type ReceivedMessage,
  type SendOptions,
  type StateStore,
  type StepEvent,
  type Versioned,
  type VirtualClock,
} from '@kubeplane/sdk';
import { Sandbox, sandboxKubernetes, sandboxProviders, type FaultRule } from '@kubeplane/providers';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash after the cloud call, before the state write');
  }
}

/** Crashes some writes: the step's cloud calls happened, its record write did not. */
class CrashingStateStore implements StateStore {
  armed = false;
  constructor(private readonly inner: StateStore, private readonly random: () => number, private readonly p: number) {}
  get<T>(key: string): Promise<Versioned<T> | null> {
    return this.inner.get<T>(key);
  }
  async put<T>(key: string, value: T, expected: number): Promise<number> {
    if (this.armed && key.startsWith('clusters/') && this.random() < this.p) throw new SimulatedCrash();
    return this.inner.put(key, value, expected);
  }
  delete(key: string, expected: number): Promise<void> {
    return this.inner.delete(key, expected);
  }
  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
}

/** Duplicates and delays deliveries; sometimes hands out the same message twice in one batch. */
class ChaosQueue implements Queue<StepEvent> {
  constructor(private readonly inner: MemoryQueue<StepEvent>, private readonly random: () => number, private readonly p: { duplicate: number; delay: number }) {}
  async send(body: StepEvent, options: SendOptions): Promise<void> {
    const extra = this.random() < this.p.delay ? this.random() * 20 : 0;
    if (process.env.CHAOS_TRACE) console.log('send', body.step, body.seq, body.attempt, options.deduplicationId, options.delaySeconds, extra, 'size before', await this.inner.size());
    await this.inner.send(body, { ...options, delaySeconds: (options.delaySeconds ?? 0) + extra });
    // A duplicate without the deduplication id: delivered again, later, as SQS standard queues may.
    if (this.random() < this.p.duplicate) await this.inner.send(body, { groupId: options.groupId, delaySeconds: (options.delaySeconds ?? 0) + this.random() * 30 });
  }
  async receive(max: number): Promise<Array<ReceivedMessage<StepEvent>>> {
    const got = await this.inner.receive(max);
    const dup = got.filter(() => this.random() < this.p.duplicate).map((m) => ({ ...m, receipt: `dup-${m.receipt}` }));
    return [...got, ...dup];
  }
  ack(receipt: string): Promise<void> {
    return this.inner.ack(receipt);
  }
  release(receipt: string, delaySeconds?: number): Promise<void> {
    return this.inner.release(receipt, delaySeconds);
  }
  nextVisibleAt(): Promise<number | null> {
    return this.inner.nextVisibleAt();
  }
  size(): Promise<number> {
    return this.inner.size();
  }
}

/** A lease whose holder sometimes loses it mid-step (as if it expired): another worker gets it too. */
class ExpiringLease implements Lease {
  readonly #held = new Map<string, LeaseGrant>();
  #token = 0;
  constructor(private readonly clock: VirtualClock, private readonly random: () => number, private readonly pExpire: number) {}
  async acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null> {
    const held = this.#held.get(key);
    const expired = !held || held.expiresAt <= this.clock.now() || this.random() < this.pExpire;
    if (held && !expired && held.owner !== owner) return null;
    const grant = { key, owner, token: ++this.#token, expiresAt: this.clock.now() + ttlSeconds * 1000 };
    this.#held.set(key, grant);
    return { ...grant };
  }
  async renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null> {
    const held = this.#held.get(grant.key);
    if (held?.token !== grant.token) return null;
    held.expiresAt = this.clock.now() + ttlSeconds * 1000;
    return { ...held };
  }
  async release(grant: LeaseGrant): Promise<void> {
    if (this.#held.get(grant.key)?.token === grant.token) this.#held.delete(grant.key);
  }
}

export const CHAOS_MANIFEST = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: chaos }
providers:
  - { name: aws-1, providerType: aws, secretRef: { env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY } } }
  - { name: htz-1, providerType: hetzner, secretRef: { env: { credentials: HCLOUD_TOKEN } } }
nodePools:
  dynamic:
    - { name: cp, providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }, count: 1, serverType: t3.medium, image: ami-0965bd5ba4d59211c }
    - { name: workers, providerSpec: { name: htz-1, region: fsn1 }, count: WORKERS, serverType: cpx32, image: ubuntu-24.04 }
    - { name: lb, providerSpec: { name: htz-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - { name: chaos, version: "1.34.2", network: 10.9.0.0/24, pools: { control: [cp], compute: [workers] } }
loadBalancers:
  roles:
    - { name: api, protocol: tcp, port: 6443, targetPort: 6443, targetPools: [cp] }
  clusters:
    - { name: chaos-lb, roles: [api], dns: { dnsZone: example.com, provider: aws-1, hostname: chaos }, targetedK8s: chaos, pools: [lb] }
`;

export function chaosManifest(workers: number): Manifest {
  const r = validateManifestText(CHAOS_MANIFEST.replace('WORKERS', String(workers)));
  if (!r.ok || !r.manifests[0]) throw new Error(r.errors.map((e) => e.message).join('; '));
  return r.manifests[0];
}

export interface ChaosReport {
  seed: number;
  messages: number;
  crashes: number;
  faultsFired: number;
  violations: string[];
  finalState: string;
  leaked: number;
}


/** The engine under chaos: crashing state writes, a duplicating queue, expiring leases and two workers. */
function chaosEngine(seed: number, rng: () => number, sandbox: Sandbox) {
  const state = new CrashingStateStore(new MemoryStateStore(), rng, rng() * 0.08);
  const queue = new ChaosQueue(new MemoryQueue<StepEvent>({ clock: sandbox.clock, visibilityTimeoutSeconds: 60 }), rng, { duplicate: rng() * 0.15, delay: rng() * 0.2 });
  const lease = new ExpiringLease(sandbox.clock, rng, rng() * 0.1);
  const options = { state, secrets: new MemorySecretStore(), queue, lease, clock: sandbox.clock, random: seededRandomSource(`chaos-${seed}`), providers: sandboxProviders(sandbox), kubernetes: sandboxKubernetes(sandbox), leaseSeconds: 60 };
  const kp = new Kubeplane(options);
  // A second worker on the same queue and stores, as a second Lambda would be.
  const workers = [kp.engine, new Engine({ ...options, workerId: 'second' })];
  if (process.env.CHAOS_TRACE) for (const w of workers) w.on((e) => console.log(w.workerId, JSON.stringify(e).slice(0, 220)));
  const counts = { crashes: 0, messages: 0 };
  // A crash inside apply or destroy is a CLI process dying: the user runs the command again.
  const again = async (command: () => Promise<unknown>) => {
    for (;;) {
      try {
        return await command();
      } catch (e) {
        if (!(e instanceof SimulatedCrash)) throw e;
        counts.crashes++;
      }
    }
  };
  /** Delivers messages until the queue is empty; applies `changeAt` mid-flight; `check` runs after every batch. */
  const drive = async (check: () => void, changeAt?: { after: number; manifest: Manifest; before?: (m: Manifest) => void }) => {
    state.armed = true;
    for (let guard = 0; guard < 5000; guard++) {
      const batch = await queue.receive(4);
      if (batch.length === 0) {
        const next = await queue.nextVisibleAt();
        if (process.env.CHAOS_TRACE) console.log('idle; next visible at', next, 'now', sandbox.clock.now(), 'size', await queue.size());
        if (next === null && changeAt) {
          // The work finished before the change was due: change the manifest now.
          const { manifest, before } = changeAt;
          before?.(manifest);
          await again(() => kp.apply(manifest));
          changeAt = undefined;
          continue;
        }
        if (next === null) break;
        sandbox.clock.advanceTo(next);
        continue;
      }
      // Deliveries of one batch run concurrently on two workers.
      await Promise.all(
        batch.map(async (m, i) => {
          const worker = workers[i % workers.length] as Engine;
          try {
            const outcome = await worker.process(m);
            if (process.env.CHAOS_TRACE) console.log(worker.workerId, 'processed', m.body.step, m.body.seq, m.body.attempt, m.receipt.slice(0, 8), outcome);
          } catch (e) {
            if (process.env.CHAOS_TRACE) console.log(worker.workerId, 'CRASH', m.body.step, m.body.seq, String(e));
            if (e instanceof SimulatedCrash) counts.crashes++;
            else throw e;
          }
        }),
      );
      counts.messages += batch.length;
      check();
      if (changeAt && counts.messages >= changeAt.after) {
        const { manifest, before } = changeAt;
        before?.(manifest);
        await again(() => kp.apply(manifest));
        changeAt = undefined;
      }
    }
    state.armed = false;
  };
  /** Destroys the project under the same chaos; anything left in the clouds afterwards is a violation. */
  const destroyAndReport = async (project: string, check: () => void, violations: string[], finalState: string): Promise<ChaosReport> => {
    await again(() => kp.destroy(project));
    await drive(check);
    const leaked = sandbox.inventory();
    if (leaked.length) violations.push(`leaked after destroy: ${leaked.map((l) => `${l.cloud} ${l.kind} ${l.name ?? l.id}`).join(', ')}`);
    return { seed, messages: counts.messages, crashes: counts.crashes, faultsFired: sandbox.faults.fired.length, violations, finalState, leaked: leaked.length };
  };
  return { kp, drive, destroyAndReport };
}

export async function chaosRun(seed: number): Promise<ChaosReport> {
  const rng = seededRandom(seed * 7919 + 13);
  const sandbox = new Sandbox({ seed }).listen();
  const violations: string[] = [];
  try {
    // The schedule, drawn from the seed.
    const storm = rng();
    const rules: FaultRule[] = [
      { cloud: 'hetzner', operation: '*', kind: 'throttled', probability: storm * 0.15 },
      { cloud: 'hetzner', operation: '*', kind: 'server-error', probability: rng() * 0.08 },
      { cloud: 'ec2', operation: '*', kind: rng() < 0.5 ? 'throttled' : 'throttled-no-headers', probability: rng() * 0.12 },
      { cloud: 'ec2', operation: '*', kind: 'server-error', probability: rng() * 0.06 },
      { cloud: 'ec2', operation: 'RunInstances', kind: rng() < 0.5 ? 'timeout' : 'lost-response', probability: rng() * 0.3 },
      { cloud: 'route53', operation: '*', kind: 'throttled', probability: rng() * 0.1 },
    ];
    for (const rule of rules) sandbox.injectFault(rule);
    const { kp, drive, destroyAndReport } = chaosEngine(seed, rng, sandbox);

    const first = 1 + Math.floor(rng() * 2);
    const second = first === 1 ? 2 : 1;
    const allowed = new Set<string>();
    const remember = (m: Manifest) => {
      for (const p of m.nodePools.dynamic) for (let i = 1; i <= (p.count ?? 0); i++) allowed.add(`${p.name}-${i.toString(16).padStart(2, '0')}`);
    };
    const check = () => {
      const live = sandbox.liveMachines();
      const names = live.map((i) => i.name ?? i.id);
      const dupes = names.filter((n, i) => names.indexOf(n) !== i);
      if (dupes.length) violations.push(`duplicate machines: ${dupes.join(', ')}`);
      const ghosts = names.filter((n) => ![...allowed].some((a) => n.endsWith(a)));
      if (ghosts.length) violations.push(`machines no manifest asked for: ${ghosts.join(', ')}`);
    };

    const m1 = chaosManifest(first);
    const m2 = chaosManifest(second);
    remember(m1);
    await kp.apply(m1);
    await drive(check, { after: 5 + Math.floor(rng() * 40), manifest: m2, before: remember });
    const status = await kp.status('chaos');
    // Converged to the latest manifest: its machines and nodes, nothing else.
    const live = sandbox.liveMachines().map((i) => i.name ?? '').sort();
    const expected = ['cp-01', 'lb-01', ...Array.from({ length: second }, (_, i) => `workers-0${i + 1}`)].sort();
    if (status.state !== 'DONE') violations.push(`did not converge: ${JSON.stringify(status.clusters)}`);
    if (live.length !== expected.length || !expected.every((e) => live.some((n) => n.endsWith(e)))) violations.push(`machines ${live.join(', ')} != desired ${expected.join(', ')}`);
    const ready = sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes).filter((n) => n.ready).map((n) => n.name);
    for (const e of expected.filter((x) => !x.startsWith('lb'))) if (!ready.some((n) => n.endsWith(e))) violations.push(`node ${e} is not Ready`);

    return await destroyAndReport('chaos', check, violations, status.state);
  } finally {
    sandbox.close();
  }
}

export const CMK_CHAOS_MANIFEST = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: cmk-chaos }
providers:
  - { name: crusoe-1, providerType: crusoe, secretRef: { env: { accesskey: CRUSOE_ACCESS_KEY_ID, secretkey: CRUSOE_SECRET_KEY, project: CRUSOE_PROJECT_ID } } }
  - { name: cf-1, providerType: cloudflare, secretRef: { env: { apitoken: CLOUDFLARE_API_TOKEN, accountid: CLOUDFLARE_ACCOUNT_ID } } }
nodePools:
  dynamic:
    - { name: gpu, providerSpec: { name: crusoe-1, region: us-east1-a }, count: GPUS, serverType: h100-80gb-sxm-ib.8x, image: 1.33.4-cmk.4 }
    - { name: cpu, providerSpec: { name: crusoe-1, region: us-east1-a }, autoscaler: { min: 1, max: 3 }, serverType: c1a.8x, image: CPU_IMAGE }
kubernetes:
  clusters:
    - name: cmk
      version: "1.33.4-cmk.20"
      network: 10.9.0.0/24
      controlPlane: managed
      pools: { compute: [gpu, cpu] }
      apiDns: { dnsZone: kubeplane-sandbox.dev, provider: cf-1, hostname: cmk-chaos }
      addons: [{ name: nvidia_gpu_operator }, { name: nvidia_network_operator }, { name: cluster_autoscaler }]
`;

/**
 * The same chaos for a Crusoe Managed Kubernetes cluster: 429 and 5xx storms on Crusoe and Cloudflare, lost responses
 * to the cluster and node-pool creates, crashes, duplicates and a pool count changed mid-flight. It must converge to
 * one cluster with one pool per name and the latest counts, and leave nothing after destroy.
 */
export async function cmkChaosRun(seed: number): Promise<ChaosReport> {
  const rng = seededRandom(seed * 104729 + 7);
  const sandbox = new Sandbox({ seed }).listen();
  const violations: string[] = [];
  try {
    const rules: FaultRule[] = [
      { cloud: 'crusoe', operation: '*', kind: 'throttled', probability: rng() * 0.12 },
      { cloud: 'crusoe', operation: '*', kind: 'server-error', probability: rng() * 0.06 },
      { cloud: 'crusoe', operation: 'POST /kubernetes/clusters', kind: rng() < 0.5 ? 'timeout' : 'lost-response', probability: rng() * 0.4 },
      { cloud: 'crusoe', operation: 'POST /kubernetes/nodepools', kind: rng() < 0.5 ? 'timeout' : 'lost-response', probability: rng() * 0.4 },
      { cloud: 'crusoe', operation: 'PATCH /kubernetes/nodepools/{id}', kind: 'lost-response', probability: rng() * 0.3 },
      { cloud: 'cloudflare', operation: '*', kind: 'throttled', probability: rng() * 0.1 },
    ];
    for (const rule of rules) sandbox.injectFault(rule);
    const { kp, drive, destroyAndReport } = chaosEngine(seed, rng, sandbox);
    const manifest = (gpus: number, cpuImage = '1.33.4-cmk.4'): Manifest => {
      const r = validateManifestText(CMK_CHAOS_MANIFEST.replace('GPUS', String(gpus)).replace('CPU_IMAGE', cpuImage));
      if (!r.ok || !r.manifests[0]) throw new Error(r.errors.map((e) => e.message).join('; '));
      return r.manifests[0];
    };
    const first = 1 + Math.floor(rng() * 3);
    const second = first === 1 ? 3 : 1;
    const poolsOf = () => [...sandbox.crusoe.pools.values()];
    const check = () => {
      const clusters = [...sandbox.crusoe.clusters.values()].filter((c) => c.state !== 'STATE_DELETING');
      if (clusters.length > 1) violations.push(`${clusters.length} CMK clusters: ${clusters.map((c) => c.name).join(', ')}`);
      const names = poolsOf().map((p) => `${p.clusterId}/${p.name}`);
      const dupes = names.filter((n, i) => names.indexOf(n) !== i);
      if (dupes.length) violations.push(`duplicate node pools: ${dupes.join(', ')}`);
      for (const p of poolsOf()) {
        const vms = [...sandbox.crusoe.vms.values()].filter((v) => v.nodePoolId === p.id && v.state !== 'STATE_DELETING').length;
        // A rotation adds one machine while it drains another.
        const cap = (p.name === 'gpu' ? Math.max(first, second) : 3) + 1;
        if (vms > cap) violations.push(`pool ${p.name} has ${vms} machines, more than any manifest asked for (${cap})`);
      }
    };
    await kp.apply(manifest(first));
    // Half the schedules also move the CPU pool to a new node image mid-flight: its machines are rotated.
    const cpuImage = rng() < 0.5 ? '1.33.4-cmk.6' : '1.33.4-cmk.4';
    await drive(check, { after: 5 + Math.floor(rng() * 40), manifest: manifest(second, cpuImage) });
    const status = await kp.status('cmk-chaos');
    if (status.state !== 'DONE') violations.push(`did not converge: ${JSON.stringify(status.clusters)}`);
    const count = (pool: string) => [...sandbox.crusoe.vms.values()].filter((v) => v.nodePoolId === poolsOf().find((p) => p.name === pool)?.id && v.state !== 'STATE_DELETING').length;
    if (count('gpu') !== second) violations.push(`gpu pool has ${count('gpu')} machines, not ${second}`);
    if (count('cpu') < 1 || count('cpu') > 3) violations.push(`cpu pool has ${count('cpu')} machines, outside 1..3`);
    const cpuPool = poolsOf().find((p) => p.name === 'cpu');
    const outdated = [...sandbox.crusoe.vms.values()].filter((v) => v.nodePoolId === cpuPool?.id && v.state !== 'STATE_DELETING' && v.image !== `cmk-worker:${cpuImage}`);
    if (outdated.length) violations.push(`cpu machines not on ${cpuImage}: ${outdated.map((v) => `${v.name} (${v.image})`).join(', ')}`);
    const ready = sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes).filter((n) => n.ready);
    if (ready.length !== count('gpu') + count('cpu')) violations.push(`${ready.length} nodes Ready for ${count('gpu') + count('cpu')} machines`);

    return await destroyAndReport('cmk-chaos', check, violations, status.state);
  } finally {
    sandbox.close();
  }
}
