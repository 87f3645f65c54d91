// kubeplane's AWS provider against the IAM policies the CDK deploy gives it. Every EC2 and Route 53 call of a whole
// sandbox lifecycle (the hybrid example with AWS pools in two Regions: apply, a scale up and down, destroy) is turned
// into the requests IAM authorizes (test/helpers/aws-iam-requests.ts) and evaluated with @cloud-copilot/iam-simulate
// against ProviderRole's policies from the synthesised template: a session tagged with the cluster's id may make every
// call; one tagged with another cluster's id may make none that changes something, where IAM can tell the two apart.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { AwsCall } from '@kubeplane/providers';
import { KubeplaneStack } from '../../examples/aws/stack.js';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';
import { iamCallOf, type IamCall, type IamRequest } from '../helpers/aws-iam-requests.js';

const ACCOUNT = '123456789012';
const REGION = 'eu-central-1';
const CLUSTER_TAG = 'kubeplane.dev/cluster-id';
const root = join(import.meta.dirname, '..', '..');

// The hybrid example with its AWS workers in us-east-1, its control plane in eu-central-1: ARNs pinned to the stack's
// Region would refuse the workers.
const hybrid = readFileSync(join(root, 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8');
const twoRegions = hybrid.replace('providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1b }', 'providerSpec: { name: aws-1, region: us-east-1, zone: us-east-1b }');
const awsWorkers = (n: number) => twoRegions.replace(/count: 2\n(\s+)serverType: t3.large/, `count: ${n}\n$1serverType: t3.large`);

type Statement = Record<string, unknown>;
interface PolicyDocument { Version: string; Statement: Statement[] }
type Resource = { Type: string; Properties: Record<string, unknown> };

let dir: string;
let resources: Record<string, Resource>;
let world: World;
let clusterId: string;
const calls: AwsCall[] = [];
let iamCalls: IamCall[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubeplane-iam-'));
  // The policies do not depend on the code: an empty handler stands in for each bundle (no esbuild run).
  const bundle = { dir: join(dir, 'handler') };
  mkdirSync(bundle.dir);
  writeFileSync(join(bundle.dir, 'index.js'), 'export const handler = async () => {};\n');
  const app = new App({ outdir: join(dir, 'cdk.out') });
  const stack = new KubeplaneStack(app, 'Kubeplane', {
    bundles: { step: bundle, deadLetter: bundle, api: bundle, watchdog: bundle },
    access: [],
    hostedZoneIds: ['Z0SANDBOX00001'],
    dnsDomains: ['example.com'],
    // An explicit account and Region resolve the stack's tokens but the partition, which stays AWS::Partition.
    env: { account: ACCOUNT, region: REGION },
  });
  resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;

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
  rmSync(dir, { recursive: true, force: true });
});

/** A template value with its intrinsic functions resolved as CloudFormation would in partition `aws`. */
function resolved(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolved);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if ('Ref' in o) {
    const known: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION };
    const ref = known[String(o.Ref)];
    if (ref === undefined) throw new Error(`cannot resolve Ref ${String(o.Ref)}`);
    return ref;
  }
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map(resolved).join(sep);
  }
  const fn = Object.keys(o).find((k) => k.startsWith('Fn::'));
  if (fn) throw new Error(`cannot resolve ${fn}`);
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolved(v)]));
}

const logicalId = (prefix: string, type: string) => {
  const found = Object.entries(resources).filter(([id, r]) => id.startsWith(prefix) && r.Type === type).map(([id]) => id);
  expect(found, `${type} ${prefix}`).toHaveLength(1);
  return found[0] ?? '';
};

/** The documents of the managed and inline policies attached to a role of the template. */
function rolePolicies(roleId: string): PolicyDocument[] {
  const attached = (r: Resource) => ((r.Properties.Roles as Array<{ Ref?: string }> | undefined) ?? []).some((x) => x.Ref === roleId);
  return Object.values(resources)
    .filter((r) => (r.Type === 'AWS::IAM::ManagedPolicy' || r.Type === 'AWS::IAM::Policy') && attached(r))
    .map((r) => resolved(r.Properties.PolicyDocument) as PolicyDocument);
}

type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

interface Decisions {
  /** The requests not allowed, described. */
  denied: string[];
  /** Each call's outcome: allowed only if every one of its requests is. */
  calls: Array<{ call: IamCall; allowed: boolean }>;
  distinct: number;
}

/** Each distinct request once (a lifecycle repeats the same Describe hundreds of times). */
async function decide(policies: PolicyDocument[], principal: string, principalTags: Record<string, string>): Promise<Decisions> {
  const cache = new Map<string, Promise<Decision>>();
  const decision = (r: IamRequest): Promise<Decision> => {
    const contextVariables = { ...r.context, ...Object.fromEntries(Object.entries(principalTags).map(([k, v]) => [`aws:PrincipalTag/${k}`, v])) };
    const key = JSON.stringify([r.action, r.resource, contextVariables]);
    let found = cache.get(key);
    if (!found) {
      found = runSimulation(
        {
          request: { principal, action: r.action, resource: { resource: r.resource, accountId: ACCOUNT }, contextVariables },
          identityPolicies: policies.map((policy, i) => ({ name: `policy-${i}`, policy })),
          serviceControlPolicies: [],
          resourceControlPolicies: [],
        },
        {},
      ).then((result) => {
        if (result.resultType === 'error') throw new Error(`${r.action} on ${r.resource}: ${JSON.stringify(result.errors)}`);
        return result.overallResult as Decision;
      });
      cache.set(key, found);
    }
    return found;
  };
  const denied: string[] = [];
  const out: Decisions['calls'] = [];
  for (const call of iamCalls) {
    let allowed = true;
    for (const r of call.requests) {
      if ((await decision(r)) === 'Allowed') continue;
      allowed = false;
      denied.push(`${r.call}: ${r.action} on ${r.resource} ${JSON.stringify(r.context)}`);
    }
    out.push({ call, allowed });
  }
  return { denied: [...new Set(denied)], calls: out, distinct: cache.size };
}

const sessionOf = (roleId: string) => `arn:aws:sts::${ACCOUNT}:assumed-role/${roleId}/kubeplane-step`;

describe('the AWS provider under the policies of the CDK deploy', () => {
  it('made the calls of a lifecycle in two Regions: networks, machines, DNS with health checks, teardown', () => {
    const made = new Set(calls.map((c) => `${c.service}:${c.action}`));
    for (const action of ['ec2:CreateVpc', 'ec2:CreateRoute', 'ec2:RunInstances', 'ec2:AuthorizeSecurityGroupIngress', 'ec2:ImportKeyPair', 'ec2:TerminateInstances', 'ec2:DeleteVpc', 'ec2:DescribeRegions', 'route53:ChangeResourceRecordSets', 'route53:CreateHealthCheck', 'route53:DeleteHealthCheck']) expect(made, action).toContain(action);
    const launchedIn = new Set(calls.filter((c) => c.action === 'RunInstances').map((c) => c.region));
    expect([...launchedIn].sort()).toEqual(['eu-central-1', 'us-east-1']);
    // Every change was signed by a session of the provider role tagged with this cluster (the provider assumed it per
    // cluster): what the simulation below evaluates is what the provider presented.
    const changes = calls.filter((c) => !/^(Describe|List|Get)/.test(c.action));
    expect(changes.length).toBeGreaterThan(30);
    expect(changes.filter((c) => !(c.caller?.arn.includes(':assumed-role/kubeplane-provider/') && c.caller.tags[CLUSTER_TAG] === clusterId)).map((c) => `${c.action} by ${c.caller?.arn ?? '?'}`)).toEqual([]);
    // Every resource a call named was there: IAM decides on a missing one's tags too (none), which the policies refuse.
    expect(calls.flatMap((c) => c.resources.filter((r) => r.missing).map((r) => `${c.action} ${r.type} ${r.id}`))).toEqual([]);
  });

  it('lets a ProviderRole session tagged with the cluster\'s id make every one of those calls', async () => {
    const role = logicalId('ProviderRole', 'AWS::IAM::Role');
    const { denied, distinct } = await decide(rolePolicies(role), sessionOf(role), { [CLUSTER_TAG]: clusterId });
    expect(denied).toEqual([]);
    expect(distinct).toBeGreaterThan(100);
  });

  it('lets a session tagged with another cluster\'s id change nothing of this cluster that IAM can tell apart; it may read everything', async () => {
    const role = logicalId('ProviderRole', 'AWS::IAM::Role');
    const { calls: decided } = await decide(rolePolicies(role), sessionOf(role), { [CLUSTER_TAG]: 'another-cluster' });
    // Reads have no resource-level permissions in EC2 (nor Route 53's zone and health-check listings): every session
    // sees every cluster's resources.
    expect(decided.filter((d) => !d.call.mutating && !d.allowed).map((d) => d.call.name)).toEqual([]);
    // What IAM cannot tie to a cluster: a record (Route 53 records carry no tags; the names are limited to the DNS
    // domains), a health check (CreateHealthCheck names no resource, DeleteHealthCheck has no condition keys), and a
    // route in the VPC's main route table (EC2 makes it untagged with the VPC). See examples/aws/stack.ts.
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
    const document = resolved(resources[policy]?.Properties.PolicyDocument) as PolicyDocument;
    expect((await decide([document], `arn:aws:iam::${ACCOUNT}:user/kubeplane`, {})).denied).toEqual([]);
  });

  it('names in ProviderRole\'s policies every EC2 and Route 53 action the provider\'s source sends, called in this lifecycle or not', () => {
    const sent = (file: string, service: string) => [...readFileSync(join(root, 'packages', 'providers', 'src', 'aws', file), 'utf8').matchAll(/new ([A-Za-z0-9]+)Command\(/g)].map((m) => `${service}:${m[1] ?? ''}`);
    const actions = new Set(rolePolicies(logicalId('ProviderRole', 'AWS::IAM::Role')).flatMap((d) => d.Statement.flatMap((s) => [s.Action].flat() as string[])));
    const source = [...sent('provider.ts', 'ec2'), ...sent('route53-dns.ts', 'route53')];
    expect(source.length).toBeGreaterThan(20);
    expect(source.filter((a) => !actions.has(a))).toEqual([]);
  });
});
