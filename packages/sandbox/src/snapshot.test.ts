// Sandbox snapshots: a world with resources in every cloud and a cluster booting saves to JSON, restores to the
// same world, and continues after the restore exactly as it would have continued without one.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RateBudgets, settle, type NodeRequest, type Provider } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { renderNode, seededRandomSource, WIREGUARD_PORT, type RenderContext, type RenderedCluster, type RenderedNode } from '@kubeplane/sdk/internal';
import { AwsProvider } from '@kubeplane/providers';
import { HetznerProvider } from '@kubeplane/providers';
import { createInfrastructure, dnsRecords, names, type ClusterScenario } from './cluster-scenario.js';
import { renderGolden, RENDER_NOW } from './kubernetes/fixture.js';
import { KUBE_TIMINGS } from './kubernetes/timings.js';
import { Sandbox, SANDBOX_CREDENTIALS } from './sandbox.js';
import { simulate } from './simulation.js';
import { asSandboxSnapshot, type SandboxSnapshot } from './snapshot.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const S = 1000;
let rendered: RenderedCluster;
let renderCtx: RenderContext;
const open: Sandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

beforeAll(async () => {
  ({ rendered, ctx: renderCtx } = await renderGolden());
});

function providers(s: Sandbox) {
  const budgets = new RateBudgets(s.clock);
  const aws = new AwsProvider({
    region: 'eu-central-1',
    account: 'snap',
    credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
    clock: s.clock,
    budgets,
    random: s.random,
  });
  const hetzner = new HetznerProvider({ token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken), project: 'snap', clock: s.clock, budgets, random: s.random });
  return { aws, hetzner };
}

const hzScenario: ClusterScenario = { clusterId: 'hybrid', region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', nodes: 0 };
const awsScenario: ClusterScenario = {
  clusterId: 'hybrid',
  region: 'eu-central-1',
  zone: 'eu-central-1a',
  serverType: 't3.medium',
  image: 'ami-0965bd5ba4d59211c',
  nodes: 0,
};

function node(name: string): RenderedNode {
  const n = rendered.nodes.find((x) => x.name === name);
  if (!n) throw new Error(`no rendered node ${name}`);
  return n;
}

/**
 * A machine for a golden node with its real user-data, as the engine would request it: rendered with the public
 * addresses of the machines that exist already, so its WireGuard peers are where it will look for them.
 */
async function request(s: Sandbox, name: string): Promise<NodeRequest> {
  const addresses = new Map(s.listVms().flatMap((v) => (v.publicIPv4 ? [[v.name, v.publicIPv4] as const] : [])));
  const cluster = {
    ...renderCtx.cluster,
    nodes: renderCtx.cluster.nodes.map((c) => (addresses.has(c.name) ? { ...c, publicEndpoint: `${addresses.get(c.name)}:${WIREGUARD_PORT}` } : c)),
  };
  // A random source of its own per node, so both worlds of a comparison render the same bytes.
  const n = await renderNode({ ...renderCtx, random: seededRandomSource(`snapshot-test/${name}`), cluster, pki: rendered.pki, node: name });
  const bytes = n.userData.bytes.reveal();
  const scenario = n.provider === 'aws' ? awsScenario : hzScenario;
  const net = names(scenario);
  const arm = n.name === 'aws-worker-1';
  return {
    name,
    clusterId: 'hybrid',
    nodepool: n.role,
    region: scenario.region,
    ...(scenario.zone ? { zone: scenario.zone } : {}),
    serverType: n.provider === 'aws' ? (arm ? 't4g.medium' : 't3.medium') : 'cpx22',
    image: n.provider === 'aws' ? (arm ? 'ami-0abcdef1234567890' : 'ami-0965bd5ba4d59211c') : 'ubuntu-24.04',
    userData: n.provider === 'aws' ? bytes : Buffer.from(bytes).toString('utf8'),
    sshKeyName: net.key,
    networkName: net.network,
  };
}

async function createMachines(s: Sandbox, p: ReturnType<typeof providers>, machines: string[]): Promise<string[]> {
  const ids: string[] = [];
  await simulate(
    s.clock,
    machines.map((name) => {
      const provider: Provider = node(name).provider === 'aws' ? p.aws : p.hetzner;
      return {
        name,
        run: async (attempt: number) => {
          const outcome = await provider.compute!.createNode(await request(s, name), { attempt });
          if (outcome.status === 'done') ids.push(`${name}=${outcome.value.providerId}`);
          return outcome;
        },
      };
    }),
  );
  return ids.sort();
}

/**
 * Networks, firewalls, reserved IPs and SSH keys in Hetzner and EC2, DNS records in Route 53 (with health
 * checks) and Hetzner DNS, and the golden cluster's first machines with their real user-data: then time runs
 * until the API is up, a worker is joining, and a machine, a Route 53 change and kubelet events are in flight.
 */
async function buildWorld(seed: number): Promise<Sandbox> {
  const s = new Sandbox({ seed }).listen();
  open.push(s);
  s.clock.advanceTo(RENDER_NOW.getTime());
  const p = providers(s);
  await createInfrastructure(p.hetzner, s.clock, hzScenario);
  await createInfrastructure(p.aws, s.clock, awsScenario);
  // In the engine's order: the load balancer, the first control plane, then workers that know where both are.
  await createMachines(s, p, ['lb-1']);
  await createMachines(s, p, ['aws-cp-1']);
  await createMachines(s, p, ['aws-worker-1', 'htz-worker-1']);
  // Hetzner boots the load balancer in about 75 s, kubeadm init behind it needs it up: the API answers after ~4 min.
  s.clock.advance(240 * S);
  s.kubernetes.kubelets();
  await createMachines(s, p, ['htz-worker-2']);
  const dns = p.aws.dns!;
  const change = await settle(
    (attempt) => dns.upsertRecords('example.com', 'hybrid', dnsRecords({ ...awsScenario, dns: { api: dns, zone: 'example.com' } }, '3.120.10.11'), { attempt }),
    { clock: s.clock },
  );
  expect(change.id).toBeTruthy();
  const own = p.hetzner.dns!;
  await settle(
    (attempt) => own.upsertRecords('example.de', 'hybrid', [{ name: 'api.hybrid.example.de', type: 'A', ttl: 60, values: ['3.120.10.11'] }], { attempt }),
    { clock: s.clock },
  );
  s.clock.advance(10 * S);
  s.kubernetes.kubelets();
  return s;
}

const roundTrip = (snapshot: SandboxSnapshot): SandboxSnapshot => asSandboxSnapshot(JSON.parse(JSON.stringify(snapshot)));

describe('a sandbox snapshot', () => {
  it('survives JSON and restores the same inventory, machines, call counts, clock and clusters', async () => {
    const original = await buildWorld(3);
    original.close();
    const snapshot = original.snapshot();
    const restored = Sandbox.fromSnapshot(roundTrip(snapshot));
    open.push(restored);

    const kinds = new Set(original.inventory().map((i) => `${i.cloud}/${i.kind}`));
    for (const kind of [
      'ec2/firewall',
      'ec2/network',
      'ec2/node',
      'ec2/reserved-ip',
      'ec2/ssh-key',
      'ec2/subnet',
      'hetzner/dns-record',
      'hetzner/firewall',
      'hetzner/network',
      'hetzner/node',
      'hetzner/reserved-ip',
      'hetzner/ssh-key',
      'route53/dns-record',
      'route53/health-check',
    ]) {
      expect(kinds).toContain(kind);
    }
    expect(JSON.parse(JSON.stringify(restored.snapshot()))).toEqual(JSON.parse(JSON.stringify(snapshot)));
    expect(restored.clock.now()).toBe(original.clock.now());
    expect(restored.inventory()).toEqual(original.inventory());
    expect(restored.listVms()).toEqual(original.listVms());
    expect(restored.calls()).toEqual(original.calls());
    expect(restored.totalCalls()).toBeGreaterThan(20);
    expect(restored.kubernetes.kubelets()).toEqual(original.kubernetes.kubelets());
    expect(restored.kubernetes.inventory()).toEqual(original.kubernetes.inventory());
    expect(restored.kubernetes.inventory().clusters.map((c) => [c.name, c.up])).toEqual([['hybrid', true]]);
  });

  it('draws the same random numbers after a restore as the original does', async () => {
    const original = await buildWorld(4);
    original.close();
    const restored = Sandbox.fromSnapshot(roundTrip(original.snapshot()));
    const next = (s: Sandbox) => [s.random(), s.random(), s.random()];
    expect(next(restored)).toEqual(next(original));
  });

  it('continues after a restore exactly as without one: ids, boots, node registrations, DNS changes', async () => {
    const original = await buildWorld(5);
    original.close();
    const at = original.clock.now();
    const snapshot = roundTrip(original.snapshot());
    // In flight when the snapshot is taken: a Hetzner boot, a Route 53 change, kubelet events.
    expect(original.listVms().find((v) => v.name === 'htz-worker-2')?.state).toBe('pending');
    expect(snapshot.clouds.route53?.changes.length).toBeGreaterThan(0);
    expect(snapshot.kubernetes.simulation.events.length).toBeGreaterThan(0);
    const restored = Sandbox.fromSnapshot(snapshot);
    open.push(restored);

    async function continueIn(s: Sandbox) {
      s.listen();
      const p = providers(s);
      const ids = await createMachines(s, p, ['aws-cp-2', 'htz-worker-2']);
      const timeline: unknown[] = [];
      for (let i = 0; i < 8; i++) {
        s.clock.advance(30 * S);
        timeline.push(s.listVms().map((v) => [v.name, v.state, v.runningSinceMs]));
        timeline.push(s.kubernetes.kubelets().map((k) => [k.vm, k.state, k.registeredAtMs, k.readyAtMs]));
      }
      const nodes = await settle(() => p.hetzner.compute!.listNodes({ clusterId: 'hybrid' }), { clock: s.clock });
      s.close();
      return {
        ids,
        timeline,
        nodes,
        inventory: s.inventory(),
        kubernetes: s.kubernetes.inventory(),
        kubelets: s.kubernetes.kubelets(),
        snapshot: JSON.parse(JSON.stringify(s.snapshot())) as unknown,
      };
    }

    const without = await continueIn(original);
    const after = await continueIn(restored);
    expect(after.ids).toEqual(without.ids);
    expect(after.ids.length).toBe(2);
    expect(after.timeline).toEqual(without.timeline);
    expect(after.nodes).toEqual(without.nodes);
    expect(after.inventory).toEqual(without.inventory);
    expect(after.kubernetes).toEqual(without.kubernetes);
    expect(after.snapshot).toEqual(without.snapshot);

    // The machine that was booting at the snapshot runs from the same virtual instant, and nodes that had not
    // registered then register at the same instants, Ready after Cilium.
    const booted = after.kubelets.find((k) => k.vm === 'htz-worker-2');
    expect(booted?.state).toBe('ready');
    const late = after.kubelets.filter((k) => (k.registeredAtMs ?? 0) > at).map((k) => [k.node, k.registeredAtMs, k.readyAtMs]);
    expect(late.length).toBeGreaterThanOrEqual(2);
    expect(late).toEqual(without.kubelets.filter((k) => (k.registeredAtMs ?? 0) > at).map((k) => [k.node, k.registeredAtMs, k.readyAtMs]));
    for (const [, registered, ready] of late) expect(Number(ready) - Number(registered)).toBe(KUBE_TIMINGS.ciliumReadyMs);
  });

  it('is refused with an actionable error when it is of another version or not a snapshot', () => {
    // Version 1 and 2 worlds (before Crusoe and Cloudflare joined the sandbox; each cloud at the top level) are
    // refused, not half-restored.
    expect(() => asSandboxSnapshot({ v: 1, clockMs: 0, random: 1, calls: [], ec2: [] })).toThrow(/version 1; this kubeplane reads version 3/);
    expect(() => asSandboxSnapshot({ v: 2, clockMs: 0, random: 1, calls: [], ec2: [], hetzner: {} })).toThrow(
      /has version 2; this kubeplane reads version 3\. Destroy the sandbox clusters with the kubeplane that made it, or delete it/,
    );
    expect(() => asSandboxSnapshot({ v: 4 })).toThrow(/version 4; this kubeplane reads version 3/);
    expect(() => asSandboxSnapshot('nope')).toThrow(/not a JSON object/);
    expect(() => new Sandbox({ snapshot: { v: 3 } as unknown as SandboxSnapshot })).toThrow(/clockMs is not a number/);
    const { clouds: _clouds, ...withoutClouds } = JSON.parse(JSON.stringify(new Sandbox().snapshot())) as SandboxSnapshot;
    expect(() => asSandboxSnapshot(withoutClouds)).toThrow(/has no clouds; the file is damaged/);
  });
});
