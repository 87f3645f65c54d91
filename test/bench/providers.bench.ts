// Provider benchmarks in the sandbox: API calls per created node (polling excluded) and the virtual time to
// create 100 nodes against the latency model's floor (latency-model.md). Measures; never asserts. It lives here, not
// beside the providers: the real clients' package never imports the sandbox (test/package-boundaries.test.ts).
import { RateBudgets, type Provider } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { AwsProvider, HetznerProvider } from '@kubeplane/providers';
import { nodeCreationFloorMs, Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { type ClusterScenario, createInfrastructure, createNodes } from '@kubeplane/sandbox/testing';
import type { BenchResult } from './types.js';

const NODES = 100;

interface Case {
  name: 'hetzner' | 'aws';
  cloud: 'hetzner' | 'ec2';
  make: (s: Sandbox) => Provider;
  scenario: ClusterScenario;
}

const cases: Case[] = [
  {
    name: 'hetzner',
    cloud: 'hetzner',
    make: (s) =>
      new HetznerProvider({
        token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
        project: 'bench',
        clock: s.clock,
        budgets: new RateBudgets(s.clock),
        random: s.random,
      }),
    scenario: { clusterId: 'bench', region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', nodes: NODES, pollSeconds: 5 },
  },
  {
    name: 'aws',
    cloud: 'ec2',
    make: (s) =>
      new AwsProvider({
        region: 'eu-central-1',
        account: 'bench',
        credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
        clock: s.clock,
        budgets: new RateBudgets(s.clock),
        random: s.random,
        dns: false,
      }),
    scenario: {
      clusterId: 'bench',
      region: 'eu-central-1',
      zone: 'eu-central-1a',
      serverType: 't3.small',
      image: 'ami-0965bd5ba4d59211c',
      nodes: NODES,
      pollSeconds: 5,
    },
  },
];

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const c of cases) {
    // 1. Calls per node: infrastructure and creates, no readiness polling.
    const a = new Sandbox({ seed: 100 }).listen();
    try {
      const provider = c.make(a);
      const infra = await createInfrastructure(provider, a.clock, c.scenario);
      const infraCalls = a.totalCalls();
      const creates = await createNodes(provider, a.clock, c.scenario, { poll: false });
      const total = a.totalCalls();
      results.push({
        name: `${c.name}: API calls per created node (${NODES} nodes + network, firewall, IP, key; polling excluded)`,
        value: total / NODES,
        unit: 'calls/node',
        target: '<= 3',
        note: `${total} calls: ${infraCalls} infrastructure, ${total - infraCalls} for nodes; ${creates.pendings['rate-budget'] ?? 0} budget waits, ${infra.completed + creates.completed} ops`,
      });
    } finally {
      a.close();
    }
    // 2. Virtual time to create 100 nodes (creates + readiness polls every 5 s), against the floor.
    const b = new Sandbox({ seed: 101 }).listen();
    try {
      const provider = c.make(b);
      await createInfrastructure(provider, b.clock, c.scenario);
      const before = b.totalCalls();
      const created = await createNodes(provider, b.clock, c.scenario);
      const polls = b.totalCalls((k) => k === 'hetzner GET /servers' || k === 'ec2 DescribeInstances');
      const floor = nodeCreationFloorMs(c.cloud, NODES);
      results.push({
        name: `${c.name}: virtual time to create ${NODES} nodes until all run`,
        value: created.elapsedMs / 1000,
        unit: 's (virtual)',
        note: `floor ${(floor / 1000).toFixed(1)} s (latency model); ${b.totalCalls() - before} calls incl. ${polls} list/describe`,
      });
      results.push({
        name: `${c.name}: ${NODES}-node creation time / latency-model floor`,
        value: created.elapsedMs / floor,
        unit: 'x floor',
        target: 'close to 1',
      });
    } finally {
      b.close();
    }
  }
  return results;
}
