// Node heartbeats as a client sees them: each running kubelet renews its Lease every 10 s and re-posts its Ready
// condition every 5 min; a kubelet that hangs or whose machine goes stops both at its last renewal.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { RenderContext, RenderedCluster } from '@kubeplane/sdk/internal';
import { KubernetesEmulator } from './emulator.js';
import { FakeVms, publicAddresses, RENDER_NOW, renderGolden, sandboxContext } from './fixture.js';

const T0 = RENDER_NOW.getTime();
const S = 1000;
const API = 'https://api.hybrid.example.com:6443';

let ctx: RenderContext;
let rendered: RenderedCluster;
const server = setupServer();

beforeAll(async () => {
  ({ ctx, rendered } = await renderGolden());
  server.listen({ onUnhandledRequest: 'error' });
});

afterAll(() => server.close());

function world(): { clock: VirtualClock; vms: FakeVms; emulator: KubernetesEmulator } {
  const clock = new VirtualClock(T0);
  const vms = new FakeVms(clock, publicAddresses(ctx.cluster));
  const emulator = new KubernetesEmulator(sandboxContext(clock), { vms });
  server.resetHandlers(...emulator.handlers());
  for (const n of rendered.nodes) vms.run(n);
  clock.advance(300 * S);
  return { clock, vms, emulator };
}

async function renewals(): Promise<Map<string, number>> {
  const res = await fetch(`${API}/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases`);
  const body = (await res.json()) as { items: Array<{ metadata: { name: string }; spec: { renewTime: string } }> };
  return new Map(body.items.map((l) => [l.metadata.name, Date.parse(l.spec.renewTime)]));
}

async function readyHeartbeat(node: string): Promise<number> {
  const res = await fetch(`${API}/api/v1/nodes/${node}`);
  const body = (await res.json()) as { status: { conditions: Array<{ type: string; lastHeartbeatTime: string }> } };
  return Date.parse(body.status.conditions.find((c) => c.type === 'Ready')?.lastHeartbeatTime ?? '');
}

function registeredAt(emulator: KubernetesEmulator, node: string): number {
  const k = emulator.kubelets().find((x) => x.node === node && x.registeredAtMs !== undefined);
  if (k?.registeredAtMs === undefined) throw new Error(`${node} did not register`);
  return k.registeredAtMs;
}

describe('node heartbeats', () => {
  it('renew every node Lease on the 10 s beat since its kubelet registered', async () => {
    const { clock, emulator } = world();
    const now = clock.now();
    const leases = await renewals();
    expect(leases.size).toBe(rendered.nodes.filter((n) => n.mode !== 'loadbalancer').length);
    for (const [node, renewed] of leases) {
      const reg = registeredAt(emulator, node);
      expect(renewed).toBe(reg + Math.floor((now - reg) / (10 * S)) * 10 * S);
    }
    clock.advance(25 * S);
    for (const [node, renewed] of await renewals()) expect(renewed - (leases.get(node) ?? 0)).toBeGreaterThanOrEqual(20 * S);
  });

  it('post the Ready heartbeat every 5 minutes when nothing changed', async () => {
    const { clock, emulator } = world();
    const reg = registeredAt(emulator, 'htz-worker-1');
    clock.advance(3600 * S);
    const beat = await readyHeartbeat('htz-worker-1');
    expect((beat - reg) % (300 * S)).toBe(0);
    expect(clock.now() - beat).toBeLessThan(300 * S);
  });

  it('stop at the last renewal when the kubelet hangs, while the others go on', async () => {
    const { clock, emulator } = world();
    clock.advance(5 * S);
    const hungAt = clock.now();
    expect(emulator.hangKubelet('htz-worker-1')).toBe(true);
    clock.advance(120 * S);
    const leases = await renewals();
    const reg = registeredAt(emulator, 'htz-worker-1');
    expect(leases.get('htz-worker-1')).toBe(reg + Math.floor((hungAt - reg) / (10 * S)) * 10 * S);
    expect(clock.now() - (leases.get('htz-worker-2') ?? 0)).toBeLessThan(10 * S);
  });

  it('stop when the machine goes, and the node controller records it NotReady', async () => {
    const { clock, vms, emulator } = world();
    // The simulation looks at the machines when asked (a request, a tick): a machine that vanishes from the list
    // stopped when it was first missed.
    emulator.tick();
    const goneAt = clock.now();
    vms.terminate('htz-worker-1');
    emulator.tick();
    clock.advance(120 * S);
    expect(clock.now() - ((await renewals()).get('htz-worker-1') ?? 0)).toBeGreaterThan(110 * S);
    expect((await renewals()).get('htz-worker-1') ?? 0).toBeLessThanOrEqual(goneAt);
    const res = await fetch(
      `${API}/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.name=htz-worker-1,reason=NodeNotReady')}`,
    );
    const events = (await res.json()) as { items: Array<{ message: string; source: { component: string } }> };
    expect(events.items.map((e) => [e.source.component, e.message])).toEqual([['node-controller', 'Node htz-worker-1 status is now: NodeNotReady']]);
  });
});
