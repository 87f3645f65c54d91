// Tearing down a big Hetzner cluster is a bounded step: each call deletes at most a batch of servers, as far
// as the project's budget goes, and the next call goes on from what is left.
import { afterEach, describe, expect, it } from 'vitest';
import { RATE_LIMITS, RateBudgets } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { type ClusterScenario, createInfrastructure, createNodes } from '@kubeplane/sandbox/testing';
import { HetznerProvider, TEARDOWN_BATCH } from './provider.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

const scenario: ClusterScenario = { clusterId: 'td', region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', nodes: 60 };

async function builtCluster(seed: number) {
  sandbox = new Sandbox({ seed }).listen();
  const budgets = new RateBudgets(sandbox.clock);
  const provider = new HetznerProvider({
    token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
    project: 'td',
    clock: sandbox.clock,
    budgets,
    random: sandbox.random,
  });
  await createInfrastructure(provider, sandbox.clock, scenario);
  await createNodes(provider, sandbox.clock, scenario, { poll: false });
  const servers = () => sandbox!.inventory().filter((i) => i.kind === 'node' && i.clusterId === 'td').length;
  expect(servers()).toBe(60);
  return { provider, budgets, servers };
}

describe('Hetzner teardown', () => {
  it('deletes at most a batch of servers per call, and finishes over several calls', async () => {
    const { provider, servers } = await builtCluster(41);
    const first = await provider.teardownCluster('td', 'fsn1');
    expect(first).toMatchObject({ status: 'pending', reason: 'in-progress' });
    expect(servers()).toBe(60 - TEARDOWN_BATCH);
    let calls = 1;
    let outcome = first;
    while (outcome.status === 'pending' && calls < 20) {
      sandbox!.clock.advance(outcome.retryAfterSeconds * 1000);
      outcome = await provider.teardownCluster('td', 'fsn1');
      calls += 1;
    }
    expect(outcome.status).toBe('done');
    expect(calls).toBe(Math.ceil(60 / TEARDOWN_BATCH) + 1);
    expect(sandbox!.inventory().filter((i) => i.clusterId === 'td')).toEqual([]);
  });

  it('stops where the rate budget ends, keeping what it deleted, and goes on when it refills', async () => {
    const { provider, budgets, servers } = await builtCluster(42);
    const budget = budgets.get('hetzner:td', RATE_LIMITS.hetznerProject);
    // Leave 7 tokens: the listing (two pages of 50) and 5 deletes.
    expect(await budget.take(Math.floor(await budget.available()) - 7)).toBe(0);
    const first = await provider.teardownCluster('td', 'fsn1');
    expect(first).toMatchObject({ status: 'pending', reason: 'rate-budget' });
    expect(servers()).toBe(55);
    sandbox!.clock.advance(60_000);
    await provider.teardownCluster('td', 'fsn1');
    expect(servers()).toBeLessThan(55);
  });
});
