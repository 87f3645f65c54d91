// Whole-cluster lifecycles in the sandbox: 50 nodes with network, firewall, reserved IP, SSH key and DNS
// records per provider, then teardown leaves the inventory empty, and deleting again still succeeds.
import { afterEach, describe, expect, it } from 'vitest';
import { RateBudgets, settle, type Provider } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { AwsProvider } from './aws/provider.js';
import { HetznerProvider } from './hetzner/provider.js';
import { Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { type ClusterScenario, createInfrastructure, createNodes, dnsRecords, names, nodeRequests } from '@kubeplane/sandbox/testing';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

const aws = (s: Sandbox, budgets: RateBudgets) =>
  new AwsProvider({
    region: 'eu-central-1',
    account: 'lifecycle',
    credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
    clock: s.clock,
    budgets,
    random: s.random,
  });
const hetzner = (s: Sandbox, budgets: RateBudgets) =>
  new HetznerProvider({ token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken), project: 'lifecycle', clock: s.clock, budgets, random: s.random });

const cases: Array<{ name: string; make: (s: Sandbox, b: RateBudgets) => Provider; scenario: Omit<ClusterScenario, 'dns'> }> = [
  { name: 'hetzner', make: hetzner, scenario: { clusterId: 'hz50', region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', nodes: 50 } },
  {
    name: 'aws',
    make: aws,
    scenario: { clusterId: 'aw50', region: 'eu-central-1', zone: 'eu-central-1a', serverType: 't3.small', image: 'ami-0965bd5ba4d59211c', nodes: 50 },
  },
];

describe.each(cases)('$name: 50-node cluster lifecycle', ({ make, scenario: base }) => {
  it('creates everything, tears it all down to an empty inventory, and deleting again succeeds', async () => {
    sandbox = new Sandbox({ seed: 21 }).listen();
    const budgets = new RateBudgets(sandbox.clock);
    const provider = make(sandbox, budgets);
    const dnsProvider = aws(sandbox, budgets);
    const dnsApi = dnsProvider.dns;
    if (!dnsApi) throw new Error('route53 is off');
    const scenario: ClusterScenario = { ...base, dns: { api: dnsApi, zone: 'example.com' } };
    const clock = sandbox.clock;
    const n = names(scenario);
    const scope = { clusterId: scenario.clusterId, region: scenario.region };

    await createInfrastructure(provider, clock, scenario);
    const created = await createNodes(provider, clock, scenario);
    expect(created.completed).toBe(51);
    const cp = nodeRequests(scenario)[0]!;
    const ip = await settle((attempt) => provider.network!.attachReservedIp({ ...scope, name: n.ip }, { ...scope, name: cp.name }, { attempt }), { clock });
    const change = await settle((attempt) => dnsApi.upsertRecords('example.com', scenario.clusterId, dnsRecords(scenario, ip.ip), { attempt }), { clock });
    await settle((attempt) => dnsApi.changeStatus(change.id, { attempt }), { clock });

    // A provider with its own DNS (Hetzner) also gets a record there; the teardown must sweep it by label.
    const ownDns = provider.dns && provider !== dnsProvider && !provider.capabilities.dnsFailover ? provider.dns : undefined;
    if (ownDns) {
      const own = await settle(
        (attempt) =>
          ownDns.upsertRecords('example.de', scenario.clusterId, [{ name: `api.${scenario.clusterId}.example.de`, type: 'A', ttl: 60, values: [ip.ip] }], {
            attempt,
          }),
        { clock },
      );
      await settle((attempt) => ownDns.changeStatus(own.id, { attempt }), { clock });
    }

    const live = sandbox.inventory();
    const kinds = (k: string) => live.filter((i) => i.kind === k).length;
    expect(kinds('node')).toBe(50);
    expect(kinds('network')).toBe(1);
    expect(kinds('firewall')).toBe(1);
    expect(kinds('reserved-ip')).toBeGreaterThanOrEqual(1);
    expect(kinds('ssh-key')).toBe(1);
    expect(kinds('dns-record')).toBe(ownDns ? 5 : 4);
    expect(kinds('health-check')).toBe(2);
    const nodes = await settle(() => provider.compute!.listNodes({ clusterId: scenario.clusterId }), { clock });
    expect(nodes.find((x) => x.name === cp.name)?.publicIPv4).toBe(ip.ip);
    expect(new Set(nodes.map((x) => x.name)).size).toBe(50);

    const recordRefs = dnsRecords(scenario, ip.ip).map((r) => ({ name: r.name, type: r.type, ...(r.setIdentifier ? { setIdentifier: r.setIdentifier } : {}) }));
    await settle((attempt) => dnsApi.deleteRecords('example.com', scenario.clusterId, recordRefs, { attempt }), { clock });
    await settle((attempt) => provider.teardownCluster(scenario.clusterId, scenario.region, { attempt }), { clock });
    expect(sandbox.inventory()).toEqual([]);

    // Deleting what is already gone: done on the first call, for every kind.
    expect(await provider.teardownCluster(scenario.clusterId, scenario.region)).toEqual({ status: 'done', value: undefined });
    expect(await dnsApi.deleteRecords('example.com', scenario.clusterId, recordRefs)).toEqual({ status: 'done', value: undefined });
    for (const request of nodeRequests(scenario).slice(0, 5)) {
      expect(await provider.compute!.deleteNode({ ...scope, name: request.name })).toEqual({ status: 'done', value: undefined });
    }
    expect(await provider.network!.deleteFirewall({ ...scope, name: n.firewall })).toEqual({ status: 'done', value: undefined });
    expect(await provider.network!.deleteReservedIp({ ...scope, name: n.ip })).toEqual({ status: 'done', value: undefined });
    expect(await provider.network!.deleteSshKey({ ...scope, name: n.key })).toEqual({ status: 'done', value: undefined });
    expect(await provider.network!.deleteNetwork({ ...scope, name: n.network })).toEqual({ status: 'done', value: undefined });
    expect(await settle(() => provider.listClusterResources(scenario.clusterId, scenario.region), { clock })).toEqual([]);
  });

  it('tears down a half-built cluster whose state was lost (only the tags remain)', async () => {
    sandbox = new Sandbox({ seed: 22 }).listen();
    const budgets = new RateBudgets(sandbox.clock);
    const scenario: ClusterScenario = { ...base, clusterId: `${base.clusterId}h`, nodes: 6 };
    await createInfrastructure(make(sandbox, budgets), sandbox.clock, scenario);
    await createNodes(make(sandbox, budgets), sandbox.clock, scenario, { poll: false });
    // A fresh provider instance after a restart (30 s): no memory of what was created.
    sandbox.clock.advance(30_000);
    const fresh = make(sandbox, budgets);
    const tagged = await settle(() => fresh.listClusterResources(scenario.clusterId, scenario.region), { clock: sandbox.clock });
    expect(tagged.filter((r) => r.kind === 'node')).toHaveLength(6);
    await settle((attempt) => fresh.teardownCluster(scenario.clusterId, scenario.region, { attempt }), { clock: sandbox.clock });
    expect(sandbox.inventory().filter((i) => i.cloud !== 'route53')).toEqual([]);
  });
});
