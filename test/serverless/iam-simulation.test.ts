// kubeplane's AWS provider against the IAM policies the CDK deploy gives it. Every EC2 and Route 53 call of a whole
// sandbox lifecycle (the hybrid example with AWS pools in two Regions: apply, a scale up and down, destroy) is turned
// into the requests IAM authorizes (test/helpers/aws-iam-requests.ts) and evaluated with @cloud-copilot/iam-simulate
// against ProviderRole's policies from the synthesised template: a session tagged with the cluster's id may make every
// call; one tagged with another cluster's id may make none that changes something, where IAM can tell the two apart.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsCall } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';
import { iamCallOf, type IamCall } from '../helpers/aws-iam-requests.js';
import { iamDecider } from '../helpers/iam-decisions.js';
import {
  logicalIdOf,
  resolveIntrinsics,
  rolePolicies as policiesOf,
  synthesiseKubeplaneStack,
  type PolicyDocument,
  type SynthesisedStack,
} from '../helpers/kubeplane-template.js';

const ACCOUNT = '123456789012';
const REGION = 'eu-central-1';
const CLUSTER_TAG = 'kubeplane.dev/cluster-id';
const root = join(import.meta.dirname, '..', '..');

// The hybrid example with its AWS workers in us-east-1, its control plane in eu-central-1: ARNs pinned to the stack's
// Region would refuse the workers.
const hybrid = readFileSync(join(root, 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8');
const twoRegions = hybrid.replace(
  'providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1b }',
  'providerSpec: { name: aws-1, region: us-east-1, zone: us-east-1b }',
);
const awsWorkers = (n: number) => twoRegions.replace(/count: 2\n(\s+)serverType: t3.large/, `count: ${n}\n$1serverType: t3.large`);

let stack: SynthesisedStack;
let world: World;
let clusterId: string;
const calls: AwsCall[] = [];
let iamCalls: IamCall[];

beforeAll(async () => {
  stack = synthesiseKubeplaneStack({ account: ACCOUNT, region: REGION, hostedZoneIds: ['Z0SANDBOX00001'], dnsDomains: ['example.com'] });
  world = sandboxWorld(11);
  world.sandbox.onAwsCall((call) => calls.push(call));
  const { kp } = world;
  const untilDone = async (text: string) => {
    await kp.apply(manifestOf(text));
    await kp.run({ maxMessages: 20_000 });
    const status = await kp.status('hybrid');
    expect(status.clusters.hybrid?.state, JSON.stringify(status.clusters.hybrid, null, 1)).toBe('DONE');
    return status;
  };
  clusterId = (await untilDone(twoRegions)).clusters.hybrid?.id ?? '';
  await untilDone(awsWorkers(3));
  await untilDone(awsWorkers(2));
  await kp.destroy('hybrid');
  await kp.run({ maxMessages: 20_000 });
  expect(await kp.findStatus('hybrid')).toBeNull();
  expect(world.sandbox.inventory()).toEqual([]);
  iamCalls = await Promise.all(calls.map((c) => iamCallOf(c, { partition: 'aws', account: ACCOUNT })));
}, 600_000);

afterAll(async () => {
  await world?.sandbox.close();
  stack?.close();
});

const at = { partition: 'aws', account: ACCOUNT, region: REGION };
const logicalId = (prefix: string, type: string) => logicalIdOf(stack.resources, prefix, type);
const rolePolicies = (roleId: string) => policiesOf(stack.resources, roleId, at);

interface Decisions {
  /** The requests not allowed, described. */
  denied: string[];
  /** Each call's outcome: allowed only if every one of its requests is. */
  calls: Array<{ call: IamCall; allowed: boolean }>;
  distinct: number;
}

async function decide(policies: PolicyDocument[], principal: string, principalTags: Record<string, string>): Promise<Decisions> {
  const iam = iamDecider({ account: ACCOUNT, principal, policies, principalTags });
  const denied: string[] = [];
  const out: Decisions['calls'] = [];
  for (const call of iamCalls) {
    let allowed = true;
    for (const r of call.requests) {
      if ((await iam.decide(r)) === 'Allowed') continue;
      allowed = false;
      denied.push(`${r.call}: ${r.action} on ${r.resource} ${JSON.stringify(r.context)}`);
    }
    out.push({ call, allowed });
  }
  return { denied: [...new Set(denied)], calls: out, distinct: iam.distinct };
}

const sessionOf = (roleId: string) => `arn:aws:sts::${ACCOUNT}:assumed-role/${roleId}/kubeplane-step`;

describe('the AWS provider under the policies of the CDK deploy', () => {
  it('made the calls of a lifecycle in two Regions: networks, machines, DNS with health checks, teardown', () => {
    const made = new Set(calls.map((c) => `${c.service}:${c.action}`));
    for (const action of [
      'ec2:CreateVpc',
      'ec2:CreateRoute',
      'ec2:RunInstances',
      'ec2:AuthorizeSecurityGroupIngress',
      'ec2:ImportKeyPair',
      'ec2:TerminateInstances',
      'ec2:DeleteVpc',
      'ec2:DescribeRegions',
      'route53:ChangeResourceRecordSets',
      'route53:CreateHealthCheck',
      'route53:DeleteHealthCheck',
    ])
      expect(made, action).toContain(action);
    const launchedIn = new Set(calls.filter((c) => c.action === 'RunInstances').map((c) => c.region));
    expect([...launchedIn].sort()).toEqual(['eu-central-1', 'us-east-1']);
    // Every change was signed by a session of the provider role tagged with this cluster (the provider assumed it per
    // cluster): what the simulation below evaluates is what the provider presented.
    const changes = calls.filter((c) => !/^(Describe|List|Get)/.test(c.action));
    expect(changes.length).toBeGreaterThan(30);
    expect(
      changes
        .filter((c) => !(c.caller?.arn.includes(':assumed-role/kubeplane-provider/') && c.caller.tags[CLUSTER_TAG] === clusterId))
        .map((c) => `${c.action} by ${c.caller?.arn ?? '?'}`),
    ).toEqual([]);
    // Every resource a call named was there: IAM decides on a missing one's tags too (none), which the policies refuse.
    expect(calls.flatMap((c) => c.resources.filter((r) => r.missing).map((r) => `${c.action} ${r.type} ${r.id}`))).toEqual([]);
  });

  it("lets a ProviderRole session tagged with the cluster's id make every one of those calls", async () => {
    const role = logicalId('ProviderRole', 'AWS::IAM::Role');
    const { denied, distinct } = await decide(rolePolicies(role), sessionOf(role), { [CLUSTER_TAG]: clusterId });
    expect(denied).toEqual([]);
    expect(distinct).toBeGreaterThan(100);
  });

  it("lets a session tagged with another cluster's id change nothing of this cluster that IAM can tell apart; it may read everything", async () => {
    const role = logicalId('ProviderRole', 'AWS::IAM::Role');
    const { calls: decided } = await decide(rolePolicies(role), sessionOf(role), { [CLUSTER_TAG]: 'another-cluster' });
    // Reads have no resource-level permissions in EC2 (nor Route 53's zone and health-check listings): every session
    // sees every cluster's resources.
    expect(decided.filter((d) => !d.call.mutating && !d.allowed).map((d) => d.call.name)).toEqual([]);
    // What IAM cannot tie to a cluster: a record (Route 53 records carry no tags; the names are limited to the DNS
    // domains), a health check (CreateHealthCheck names no resource, DeleteHealthCheck has no condition keys), and a
    // route in the VPC's main route table (EC2 makes it untagged with the VPC). See packages/aws-cdk/src/stack.ts.
    const unscopable = ['ec2:CreateRoute', 'route53:ChangeResourceRecordSets', 'route53:CreateHealthCheck', 'route53:DeleteHealthCheck'];
    const changes = decided.filter((d) => d.call.mutating);
    expect(changes.filter((d) => d.allowed && !unscopable.includes(d.call.action)).map((d) => d.call.name)).toEqual([]);
    expect([...new Set(changes.filter((d) => d.allowed).map((d) => d.call.action))].sort()).toEqual(unscopable);
    // Every other change was refused: creating with this cluster's tag, and changing what carries it.
    const refused = [...new Set(changes.filter((d) => !d.allowed).map((d) => d.call.action))].sort();
    expect(refused).toEqual(expect.arrayContaining(['ec2:CreateVpc', 'ec2:RunInstances', 'ec2:TerminateInstances', 'ec2:DeleteVpc', 'ec2:DeleteKeyPair']));
    expect(refused).toEqual([...new Set(changes.map((d) => d.call.action))].filter((a) => !unscopable.includes(a)).sort());
  });

  it('lets static IAM-user keys under the fallback policy make every one of those calls', async () => {
    const policy = logicalId('ProviderPolicy', 'AWS::IAM::ManagedPolicy');
    const document = resolveIntrinsics(stack.resources[policy]?.Properties.PolicyDocument, at) as PolicyDocument;
    expect((await decide([document], `arn:aws:iam::${ACCOUNT}:user/kubeplane`, {})).denied).toEqual([]);
  });

  it("names in ProviderRole's policies every EC2 and Route 53 action the provider's source sends, called in this lifecycle or not", () => {
    const sent = (file: string, service: string) =>
      [...readFileSync(join(root, 'packages', 'providers', 'src', 'aws', file), 'utf8').matchAll(/new (?:[A-Za-z0-9]+\.)?([A-Za-z0-9]+)Command\(/g)].map(
        (m) => `${service}:${m[1] ?? ''}`,
      );
    const actions = new Set(
      rolePolicies(logicalId('ProviderRole', 'AWS::IAM::Role')).flatMap((d) => d.Statement.flatMap((s) => [s.Action].flat() as string[])),
    );
    // Every source file of the provider sends EC2 calls but Route 53's and the role assumption's (STS, the runtime's own).
    const ec2Files = readdirSync(join(root, 'packages', 'providers', 'src', 'aws')).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'route53-dns.ts' && f !== 'assume-role.ts',
    );
    const source = [...ec2Files.flatMap((file) => sent(file, 'ec2')), ...sent('route53-dns.ts', 'route53')];
    expect(source.length).toBeGreaterThan(20);
    expect(source.filter((a) => !actions.has(a))).toEqual([]);
  });
});
