// What a warm worker meets when another worker changed the cloud under it (found by chaos: a destroy and apply
// by another Lambda container; two deliveries of one DNS step). Each ends in a retry, not a failed step.
import { afterEach, describe, expect, it } from 'vitest';
import { KubeplaneError, Redacted } from '@kubeplane/sdk';
import { RateBudgets, settle } from '@kubeplane/sdk/provider';
import { Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { HetznerProvider } from './hetzner/provider.js';
import { AwsProvider } from './aws/provider.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

describe('a warm worker after another worker changed the cloud', () => {
  it('Hetzner: a firewall re-made under its name (new id) is looked up again, not reported missing', async () => {
    sandbox = new Sandbox({ seed: 3 }).listen();
    const s = sandbox;
    const worker = () =>
      new HetznerProvider({
        token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
        project: 'ww',
        clock: s.clock,
        budgets: new RateBudgets(s.clock),
        random: s.random,
      });
    const warm = worker();
    const other = worker();
    const scope = { clusterId: 'ww', region: 'fsn1' };
    const firewall = { ...scope, name: 'ww-fw', rules: [{ protocol: 'tcp' as const, port: 6443, sourceCidrs: ['0.0.0.0/0'] }] };
    const node = (name: string) => ({
      name,
      clusterId: 'ww',
      nodepool: 'w',
      region: 'fsn1',
      serverType: 'cpx22',
      image: 'ubuntu-24.04',
      userData: '#cloud-config\n',
      firewallNames: ['ww-fw'],
    });
    await settle((attempt) => warm.network.ensureFirewall(firewall, { attempt }), { clock: s.clock });
    await settle((attempt) => warm.compute.createNode(node('ww-1'), { attempt }), { clock: s.clock });
    // The other worker destroys and re-creates: same name, another id.
    await settle((attempt) => other.compute.deleteNode({ ...scope, name: 'ww-1' }, { attempt }), { clock: s.clock });
    await settle((attempt) => other.network.deleteFirewall({ ...scope, name: 'ww-fw' }, { attempt }), { clock: s.clock });
    await settle((attempt) => other.network.ensureFirewall(firewall, { attempt }), { clock: s.clock });
    const first = await warm.compute.createNode(node('ww-2'), { attempt: 1 });
    expect(first).toMatchObject({ status: 'pending' });
    const created = await settle((attempt) => warm.compute.createNode(node('ww-2'), { attempt }), { clock: s.clock });
    expect(created.name).toBe('ww-2');
  });

  it('Route 53: a delete batch refused because another delivery deleted the records after the listing is retried', async () => {
    sandbox = new Sandbox({ seed: 4, ec2: { describeLagMaxMs: 0 } }).listen();
    const s = sandbox;
    const credentials = { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) };
    const worker = () =>
      new AwsProvider({ region: 'eu-central-1', account: 'ww', credentials, clock: s.clock, budgets: new RateBudgets(s.clock), random: s.random }).dns!;
    const [a, b] = [worker(), worker()];
    const records = [
      { name: 'api.ww.example.com', type: 'A' as const, ttl: 60, values: ['203.0.113.7'] },
      { name: 'ingress.ww.example.com', type: 'A' as const, ttl: 60, values: ['203.0.113.8'] },
    ];
    await settle((attempt) => a.upsertRecords('example.com', 'ww', records, { attempt }), { clock: s.clock });
    // Both deliveries list the records, then both send their DELETE batch: the second batch names records gone.
    const outcomes = await Promise.all([
      a.deleteRecords('example.com', 'ww', records, { attempt: 1 }),
      b.deleteRecords('example.com', 'ww', records, { attempt: 1 }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['done', 'pending']);
    await settle((attempt) => b.deleteRecords('example.com', 'ww', records, { attempt }), { clock: s.clock });
    const left = await settle((attempt) => a.listRecords('example.com', { attempt }), { clock: s.clock });
    expect(left.filter((r) => r.name.endsWith('ww.example.com'))).toEqual([]);
  });

  it('AWS: two invocations ensuring one network at once (CreateVpc takes no ClientToken) end with one VPC, used by both', async () => {
    const { s, a, b, ensure } = twoAwsWorkers(5);
    const [na, nb] = await Promise.all([ensure(a), ensure(b)]);
    // A later ensure (the next run of the step) removes what the overlap left, and keeps the one both use.
    const again = await ensure(b);
    expect(new Set([na.id, nb.id, again.id]).size).toBe(1);
    const kinds = s
      .inventory()
      .filter((i) => i.clusterId === 'ww')
      .map((i) => i.kind);
    expect(kinds.filter((k) => k === 'network')).toHaveLength(1);
    // Both workers' security groups and machines land in that VPC.
    const fw = {
      clusterId: 'ww',
      region: 'eu-central-1',
      name: 'ww-fw',
      networkName: 'ww-net',
      rules: [{ protocol: 'tcp' as const, port: 6443, sourceCidrs: ['0.0.0.0/0'] }],
    };
    await settle((attempt) => a.network!.ensureFirewall(fw, { attempt }), { clock: s.clock });
    const node = {
      name: 'ww-1',
      clusterId: 'ww',
      nodepool: 'w',
      region: 'eu-central-1',
      zone: 'eu-central-1a',
      serverType: 't3.small',
      image: 'ami-0965bd5ba4d59211c',
      userData: '#cloud-config\n',
      networkName: 'ww-net',
      firewallNames: ['ww-fw'],
    };
    const created = await settle((attempt) => b.compute!.createNode(node, { attempt }), { clock: s.clock });
    expect(created.name).toBe('ww-1');
  });

  it('AWS: removing a duplicate VPC surfaces an error other than a dependency (here: access denied), not swallowing it', async () => {
    const { s, a, b, ensure } = twoAwsWorkers(6);
    // The overlap makes two VPCs; the denied removal of the younger one must reach the caller.
    s.faults.add({ cloud: 'ec2', operation: 'DeleteVpc', kind: 'auth', times: 1 });
    const outcomes = await Promise.allSettled([ensure(a), ensure(b)]);
    const again = await ensure(b).then(
      () => null,
      (e: unknown) => e,
    );
    const errors = [...outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : [])), ...(again ? [again] : [])];
    expect(errors.map((e) => (e instanceof KubeplaneError ? e.kind : String(e)))).toEqual(['auth']);
    // With the fault gone, the next ensure removes the duplicate.
    await ensure(a);
    expect(s.inventory().filter((i) => i.clusterId === 'ww' && i.kind === 'network')).toHaveLength(1);
  });
});

/** Two AWS workers (two Lambda containers) of one account on a fresh sandbox, and an ensure of one network by either. */
function twoAwsWorkers(seed: number) {
  const s = new Sandbox({ seed, ec2: { describeLagMaxMs: 0 } }).listen();
  sandbox = s;
  const credentials = { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) };
  const worker = () =>
    new AwsProvider({ region: 'eu-central-1', account: 'ww', credentials, clock: s.clock, budgets: new RateBudgets(s.clock), random: s.random });
  const network = { clusterId: 'ww', region: 'eu-central-1', name: 'ww-net', cidr: '10.0.0.0/16', subnets: [{ cidr: '10.0.1.0/24', zone: 'eu-central-1a' }] };
  const ensure = (p: AwsProvider) => settle((attempt) => p.network!.ensureNetwork(network, { attempt }), { clock: s.clock });
  return { s, a: worker(), b: worker(), ensure };
}
