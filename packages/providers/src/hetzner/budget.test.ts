// 300 Hetzner nodes in virtual time against a project budget that other tools have already drained:
// the provider paces itself, the project never answers 429, and the caller sees no throttle.
import { afterEach, describe, expect, it } from 'vitest';
import { RateBudgets } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { Sandbox, SANDBOX_CREDENTIALS, simulate } from '@kubeplane/sandbox';
import { type ClusterScenario, createInfrastructure, createNodes, nodeRequests } from '@kubeplane/sandbox/testing';
import { HetznerProvider } from './provider.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

describe('Hetzner project rate budget', () => {
  it('creates 300 nodes without exceeding 3600 requests/hour and without one 429', async () => {
    // Only 150 requests are left in the project's bucket when we start (CCM, CSI and an autoscaler share it).
    const left = 150;
    sandbox = new Sandbox({ seed: 300, hetzner: { initiallySpent: 3600 - left } }).listen();
    const clock = sandbox.clock;
    const start = clock.now();
    const provider = new HetznerProvider({
      token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
      project: 'p300',
      clock,
      budgets: new RateBudgets(clock),
      random: sandbox.random,
    });
    const scenario: ClusterScenario = { clusterId: 'big', region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', nodes: 300, pollSeconds: 10 };

    const infra = await createInfrastructure(provider, clock, scenario);
    const result = await createNodes(provider, clock, scenario);

    expect(result.completed).toBe(301);
    expect(sandbox.inventory().filter((i) => i.kind === 'node' && i.clusterId === 'big')).toHaveLength(300);
    expect(sandbox.hetzner.throttled).toBe(0);
    expect((infra.pendings['throttled'] ?? 0) + (result.pendings['throttled'] ?? 0)).toBe(0);
    // The provider did have to wait for its budget: it paced itself rather than being lucky.
    expect(result.pendings['rate-budget'] ?? 0).toBeGreaterThan(0);
    const times = sandbox.hetzner.requestTimes;
    expect(times.length).toBeGreaterThan(300);
    // In every prefix: no more than what was left plus the refill (1 per second) since the start.
    for (const [i, t] of times.entries()) expect(i + 1).toBeLessThanOrEqual(left + Math.floor((t - start) / 1000));
    // And no hour-long window holds more than the project's 3600.
    let j = 0;
    for (let i = 0; i < times.length; i++) {
      while (j < times.length && (times[j] ?? 0) < (times[i] ?? 0) + 3_600_000) j++;
      expect(j - i).toBeLessThanOrEqual(3600);
    }
  });

  it('shares a project with a busy neighbour: 429s become waits, every node is created once, the storm stays small', async () => {
    sandbox = new Sandbox({ seed: 301, hetzner: { initiallySpent: 3600 - 40 } }).listen();
    const clock = sandbox.clock;
    const provider = new HetznerProvider({
      token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
      project: 'shared',
      clock,
      budgets: new RateBudgets(clock),
      random: sandbox.random,
    });
    const scenario: ClusterScenario = { clusterId: 'nb', region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', nodes: 60, pollSeconds: 10 };
    await createInfrastructure(provider, clock, scenario);
    // Another tool (a cloud controller) spends half of the refill, invisibly to our provider's own bucket.
    let neighbour = 0;
    const until = clock.now() + 600_000;
    const neighbourTask = {
      name: 'neighbour',
      run: async () => {
        if (sandbox!.hetzner.budget.tryTake(1) === 0) neighbour += 1;
        return clock.now() >= until
          ? { status: 'done' as const, value: undefined }
          : { status: 'pending' as const, reason: 'in-progress' as const, retryAfterSeconds: 2, message: 'neighbour' };
      },
    };
    const result = await simulate(clock, [
      neighbourTask,
      ...nodeRequests(scenario).map((r) => ({ name: r.name, run: (attempt: number) => provider.compute.createNode(r, { attempt }) })),
    ]);
    const nodes = sandbox.inventory().filter((i) => i.kind === 'node' && i.clusterId === 'nb');
    expect(nodes).toHaveLength(60);
    expect(new Set(nodes.map((n) => n.name)).size).toBe(60);
    expect(neighbour).toBeGreaterThan(100);
    // Some 429s are unavoidable when a neighbour spends the budget we cannot see; each one paused us.
    expect(sandbox.hetzner.throttled).toBeGreaterThan(0);
    expect(sandbox.hetzner.throttled).toBe(result.pendings['throttled'] ?? 0);
    expect(sandbox.hetzner.throttled).toBeLessThanOrEqual(sandbox.hetzner.requests * 0.2);
  });
});
