// The CDK deploy example synthesises offline (esbuild bundles, no AWS account) and its template keeps the
// rules: every work queue has a DLQ, each visibility timeout is at least 6x its function's timeout, the API is
// IAM-authorised, no IAM statement allows every action or any action on every resource without cause, and the AWS
// provider's role is assumed per cluster and touches only that cluster's resources (iam-simulation.test.ts runs a
// lifecycle's calls against it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { FunctionName } from '@kubeplane/aws-cdk';
import { bundleHandlers } from '../../packages/aws-cdk/scripts/bundle.js';
import type { AccessGrant } from '@kubeplane/aws-cdk';
import { KubeplaneStack } from '@kubeplane/aws-cdk';

type Resource = { Type: string; Properties: Record<string, unknown> };
let out: string;
let resources: Record<string, Resource>;
let sizes: Record<FunctionName, { bytes: number }>;
let bundlesDir: Record<FunctionName, { dir: string }>;
const access: AccessGrant[] = [{ principal: 'arn:aws:iam::123456789012:role/team-a-*', projects: ['team-a-*'], role: 'operator' }];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'kubeplane-cdk-'));
  const bundles = await bundleHandlers(join(out, 'bundles'));
  sizes = bundles;
  bundlesDir = bundles;
  const app = new App({ outdir: join(out, 'cdk.out') });
  const stack = new KubeplaneStack(app, 'Kubeplane', { bundles, access, hostedZoneIds: ['Z0123456789ABCDEFGHIJ'], dnsDomains: ['example.com'] });
  resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  process.stdout.write(
    `lambda bundles (minified, AWS SDK from the runtime): ${Object.entries(bundles)
      .map(([k, v]) => `${k} ${(v.bytes / 1024 / 1024).toFixed(2)} MB`)
      .join(', ')}\n`,
  );
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const ref = (v: unknown): string => {
  const o = v as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  return o.Ref ?? o['Fn::GetAtt']?.[0] ?? '';
};
const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

describe('the CDK deploy example', () => {
  it('gives every queue that is not itself a dead-letter queue of the last resort a DLQ', () => {
    const queues = ofType('AWS::SQS::Queue');
    expect(queues.length).toBe(3);
    const withDlq = queues.filter(([, q]) => (q.Properties.RedrivePolicy as { deadLetterTargetArn?: unknown } | undefined)?.deadLetterTargetArn);
    const targets = new Set(withDlq.map(([, q]) => ref((q.Properties.RedrivePolicy as { deadLetterTargetArn: unknown }).deadLetterTargetArn)));
    const without = queues.filter(([id]) => !withDlq.some(([w]) => w === id)).map(([id]) => id);
    expect(without).toHaveLength(1);
    expect(targets.has(without[0] ?? '')).toBe(true);
    // The kept queue is read by no function: nothing consumes it, so nothing can be lost from it.
    expect(ofType('AWS::Lambda::EventSourceMapping').some(([, m]) => ref(m.Properties.EventSourceArn) === without[0])).toBe(false);
  });

  it('lets only the queue that feeds it use each dead-letter queue, and keeps dead letters for redrive', () => {
    const byId = Object.fromEntries(ofType('AWS::SQS::Queue').map(([id, q]) => [id.replace(/[0-9A-F]{8}$/, ''), q.Properties]));
    const allowed = (id: string) => JSON.stringify(byId[id]?.RedriveAllowPolicy);
    expect(allowed('StepsDeadLetter')).toMatch(/"redrivePermission":"byQueue","sourceQueueArns":\[.*-steps"\]/);
    expect(allowed('StepsKept')).toMatch(/"redrivePermission":"byQueue","sourceQueueArns":\[.*-steps-dead-letter"\]/);
    expect(byId['Steps']?.RedriveAllowPolicy).toBeUndefined();
    const deadLetterEnv = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith('DeadLetterFunction'))?.[1].Properties.Environment as {
      Variables: Record<string, unknown>;
    };
    expect(ref(deadLetterEnv.Variables.KUBEPLANE_KEPT_QUEUE_URL)).toMatch(/^StepsKept/);
  });

  it("sets each consumed queue's visibility timeout to at least 6x its function's timeout, with partial batch responses", () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(2);
    for (const [, m] of mappings) {
      const queue = resources[ref(m.Properties.EventSourceArn)];
      const fn = resources[ref(m.Properties.FunctionName)];
      expect(Number(queue?.Properties.VisibilityTimeout)).toBeGreaterThanOrEqual(6 * Number(fn?.Properties.Timeout));
      expect(m.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    }
  });

  it('runs every function on nodejs22.x and serves the API only to IAM-signed callers', () => {
    const fns = ofType('AWS::Lambda::Function');
    expect(fns).toHaveLength(4);
    expect(fns.every(([, f]) => f.Properties.Runtime === 'nodejs22.x')).toBe(true);
    expect(ofType('AWS::Lambda::Url').map(([, u]) => u.Properties.AuthType)).toEqual(['AWS_IAM']);
  });

  it('hands the access grants to the API function alone', () => {
    const grantsOf = Object.fromEntries(
      ofType('AWS::Lambda::Function').map(([id, f]) => [
        id.replace(/[0-9A-F]{8}$/, ''),
        (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables.KUBEPLANE_ACCESS,
      ]),
    );
    expect(grantsOf).toEqual({ StepFunction: undefined, DeadLetterFunction: undefined, ApiFunction: JSON.stringify(access), WatchdogFunction: undefined });
  });

  it('refuses to synthesise a grant the API would refuse, naming it', () => {
    const bad = [...access, { principal: 'arn:aws:iam::123456789012:role/ops', projects: ['*'], role: 'owner' }] as AccessGrant[];
    expect(() => new KubeplaneStack(new App(), 'Kubeplane', { bundles: bundlesDir, access: bad, hostedZoneIds: [], dnsDomains: [] })).toThrow(
      'KubeplaneStackProps.access: grant 1, role: "owner" is not one of reader, operator',
    );
  });

  it('allows no action on every resource unless the action has no resource-level permissions, and never every action', () => {
    const statements = [...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::ManagedPolicy')].flatMap(
      ([, p]) =>
        asArray((p.Properties.PolicyDocument as { Statement: unknown }).Statement) as Array<{
          Action: string | string[];
          Resource: unknown;
          Condition?: unknown;
        }>,
    );
    expect(statements.length).toBeGreaterThan(5);
    const everyAction = statements.filter((s) => asArray(s.Action).some((a) => a === '*' || a.endsWith(':*')));
    expect(everyAction).toEqual([]);
    const unscoped = statements.filter((s) => asArray(s.Resource).includes('*')).flatMap((s) => asArray(s.Action));
    // EC2's Describe calls, zone look-ups and health-check listing and creation cannot be scoped to resources in IAM.
    expect(
      unscoped.every((a) => /^(ec2:Describe|route53:(ListHostedZonesByName|ListHealthChecks|CreateHealthCheck)$)/.test(a)),
      unscoped.join(', '),
    ).toBe(true);
  });

  type Statement = { Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>>; Principal?: unknown };
  const documentOf = (prefix: string, type = 'AWS::IAM::ManagedPolicy') => {
    const [, found] = ofType(type).find(([id]) => id.startsWith(prefix)) ?? [];
    return asArray((found?.Properties.PolicyDocument as { Statement: unknown } | undefined)?.Statement) as Statement[];
  };
  /** The values cluster tags are compared with (a Null test compares with none). */
  const clusterValues = (statements: Statement[]) =>
    statements.flatMap((st) =>
      Object.entries(st.Condition ?? {})
        .filter(([op]) => op !== 'Null')
        .flatMap(([, keys]) =>
          Object.entries(keys)
            .filter(([k]) => k.endsWith('Tag/kubeplane.dev/cluster-id'))
            .map(([, v]) => v),
        ),
    );

  it('lets the AWS provider change only EC2 resources carrying the cluster tag, and Route 53 records only in the named zones, under the named domains', () => {
    for (const prefix of ['ProviderRolePolicy', 'ProviderPolicy']) {
      const statements = documentOf(prefix);
      const mutating = statements.filter((s) =>
        asArray(s.Action).some((a) => /^ec2:(Terminate|Delete|Revoke|Authorize|Release|Associate|Disassociate|Attach|Detach)/.test(a)),
      );
      expect(mutating.length, prefix).toBeGreaterThan(0);
      expect(
        mutating.every((s) => JSON.stringify(s.Condition ?? {}).includes('ResourceTag/kubeplane.dev/cluster-id')),
        prefix,
      ).toBe(true);
      const route53 = statements.find((s) => asArray(s.Action).includes('route53:ChangeResourceRecordSets'));
      // The partition comes from the stack (aws-cn, aws-us-gov), not a literal arn:aws:.
      expect(route53?.Resource, prefix).toEqual({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':route53:::hostedzone/Z0123456789ABCDEFGHIJ']] });
      expect(route53?.Condition?.['ForAllValues:StringLike'], prefix).toEqual({
        'route53:ChangeResourceRecordSetsNormalizedRecordNames': ['example.com', '*.example.com'],
      });
      expect(route53?.Condition?.['ForAllValues:StringEquals'], prefix).toEqual({
        'route53:ChangeResourceRecordSetsRecordTypes': ['A', 'AAAA', 'CNAME'],
        'route53:ChangeResourceRecordSetsActions': ['UPSERT', 'DELETE'],
      });
      // EC2 ARNs in every Region (pools may be anywhere), and images of Amazon and Canonical only.
      expect(JSON.stringify(statements)).not.toContain(':ec2:eu-central-1:');
      const image = statements.find((s) => JSON.stringify(s.Resource).includes('::image/'));
      expect(image?.Condition, prefix).toEqual({ StringEquals: { 'ec2:Owner': ['amazon', '099720109477'] } });
    }
  });

  it("scopes ProviderRole to the session's cluster: every cluster condition compares with the session tag, none accepts any cluster", () => {
    const values = clusterValues(documentOf('ProviderRolePolicy'));
    expect(values.length).toBeGreaterThan(3);
    expect(new Set(values)).toEqual(new Set(['${aws:PrincipalTag/kubeplane.dev/cluster-id}']));
    // Untagged is allowed once: a route in the VPC's main route table, which EC2 makes untagged (see stack.ts).
    const untagged = documentOf('ProviderRolePolicy').filter((st) => st.Condition?.['Null']?.['aws:ResourceTag/kubeplane.dev/cluster-id'] === 'true');
    expect(untagged.map((st) => [asArray(st.Action), st.Resource])).toEqual([
      [['ec2:CreateRoute'], { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ec2:*:', { Ref: 'AWS::AccountId' }, ':route-table/*']] }],
    ]);
    // The fallback for static keys has no session tag to compare with: any cluster's tag.
    expect(new Set(clusterValues(documentOf('ProviderPolicy')))).toEqual(new Set(['*']));
  });

  it('lets the step function alone assume ProviderRole, with sts:TagSession, and only with the cluster-id session tag', () => {
    const [roleId, role] = ofType('AWS::IAM::Role').find(([id]) => id.startsWith('ProviderRole')) ?? [];
    const trust = asArray((role?.Properties.AssumeRolePolicyDocument as { Statement: unknown }).Statement) as Statement[];
    const [, stepFn] = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith('StepFunction')) ?? [];
    const stepRole = ref(stepFn?.Properties.Role);
    expect(trust.flatMap((s) => asArray(s.Action)).sort()).toEqual(['sts:AssumeRole', 'sts:TagSession']);
    for (const s of trust) {
      expect(ref((s.Principal as { AWS: unknown }).AWS)).toBe(stepRole);
      expect(s.Condition?.['ForAllValues:StringEquals']).toEqual({ 'aws:TagKeys': ['kubeplane.dev/cluster-id'] });
    }
    // Tagging needs the cluster tag; an untagged session (project-wide reads) may be had, and can change nothing.
    expect(trust.map((s) => [s.Action, s.Condition?.['Null']])).toEqual([
      ['sts:AssumeRole', undefined],
      ['sts:TagSession', { 'aws:RequestTag/kubeplane.dev/cluster-id': 'false' }],
    ]);
    const assumers = ['StepFunction', 'ApiFunction', 'DeadLetterFunction', 'WatchdogFunction'].filter((f) =>
      statementsOf(f).some((st) => asArray(st.Action).includes('sts:AssumeRole') && ref(st.Resource) === roleId),
    );
    expect(assumers).toEqual(['StepFunction']);
    expect(
      ofType('AWS::IAM::ManagedPolicy')
        .filter(([, p]) => asArray(p.Properties.Roles as unknown[]).some((r) => ref(r) === roleId))
        .map(([id]) => id.replace(/[0-9A-F]{8}$/, '')),
    ).toEqual(['ProviderRolePolicy', 'SpotServiceLinkedRolePolicy']);
  });

  it("lets ProviderRole have EC2 create the Spot service-linked role (a spot pool's first launch), and no other role", () => {
    const [, spot] = ofType('AWS::IAM::ManagedPolicy').find(([id]) => id.startsWith('SpotServiceLinkedRolePolicy')) ?? [];
    const statements = asArray((spot?.Properties.PolicyDocument as { Statement: unknown }).Statement) as Statement[];
    expect(statements.map((s) => [s.Action, JSON.stringify(s.Resource), s.Condition])).toEqual([
      [
        'iam:CreateServiceLinkedRole',
        expect.stringContaining(':role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot'),
        { StringEquals: { 'iam:AWSServiceName': 'spot.amazonaws.com' } },
      ],
    ]);
  });

  it('narrows the provider to the Regions and image owners named, and asks for the external id on AssumeRole only', () => {
    const app = new App({ outdir: join(out, 'cdk.out.options') });
    const stack = new KubeplaneStack(app, 'Narrow', {
      bundles: bundlesDir,
      access,
      hostedZoneIds: [],
      dnsDomains: [],
      regions: ['eu-central-1', 'us-east-1'],
      imageOwners: ['111122223333'],
      providerRoleExternalId: 'kubeplane-ext',
    });
    const narrow = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
    const [, role] = Object.entries(narrow).find(([id, r]) => id.startsWith('ProviderRole') && r.Type === 'AWS::IAM::Role') ?? [];
    const trust = asArray((role?.Properties.AssumeRolePolicyDocument as { Statement: unknown }).Statement) as Statement[];
    expect(trust.map((s) => [s.Action, s.Condition?.['StringEquals']])).toEqual([
      ['sts:AssumeRole', { 'sts:ExternalId': 'kubeplane-ext' }],
      ['sts:TagSession', undefined],
    ]);
    for (const [id, p] of Object.entries(narrow).filter(([i, r]) => i.startsWith('Provider') && r.Type === 'AWS::IAM::ManagedPolicy')) {
      const statements = asArray((p.Properties.PolicyDocument as { Statement: unknown }).Statement) as Statement[];
      const ec2 = statements.filter((s) => asArray(s.Action).some((a) => a.startsWith('ec2:')));
      expect(
        ec2.every((s) => JSON.stringify(s.Condition?.['StringEquals']?.['aws:RequestedRegion']) === '["eu-central-1","us-east-1"]'),
        id,
      ).toBe(true);
      expect(statements.find((s) => JSON.stringify(s.Resource).includes('::image/'))?.Condition?.['StringEquals']?.['ec2:Owner'], id).toEqual(['111122223333']);
      // No zones, no domains: no record changes at all.
      expect(
        statements.some((s) => asArray(s.Action).includes('route53:ChangeResourceRecordSets')),
        id,
      ).toBe(false);
    }
  });

  it("keeps each managed policy within IAM's 6,144 characters (whitespace not counted)", () => {
    // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html; CDK does not check it. The partition
    // is counted as written in the template, a little longer than the longest partition name.
    for (const [id, p] of ofType('AWS::IAM::ManagedPolicy'))
      expect(JSON.stringify(p.Properties.PolicyDocument).replace(/\s/g, '').length, id).toBeLessThan(6144);
  });

  it('runs the watchdog every 5 minutes, with a role that reads and writes the table, sends step messages and writes its own logs only', () => {
    const rules = ofType('AWS::Events::Rule');
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(5 minutes)']);
    const target = asArray(rules[0]?.[1].Properties.Targets as unknown[])[0] as { Arn: unknown };
    const [watchdogId, watchdog] = ofType('AWS::Lambda::Function').find(([id]) => id === ref(target.Arn)) ?? [];
    expect(watchdogId).toMatch(/^WatchdogFunction/);
    // EventBridge may invoke it (and nothing else is granted to the rule).
    expect(
      ofType('AWS::Lambda::Permission').some(([, p]) => ref(p.Properties.FunctionName) === watchdogId && p.Properties.Principal === 'events.amazonaws.com'),
    ).toBe(true);
    const role = ref(watchdog?.Properties.Role);
    const actions = ofType('AWS::IAM::Policy')
      .filter(([, p]) => asArray(p.Properties.Roles as unknown[]).some((r) => ref(r) === role))
      .flatMap(([, p]) => asArray((p.Properties.PolicyDocument as { Statement: unknown }).Statement) as Array<{ Action: string | string[] }>)
      .flatMap((st) => asArray(st.Action));
    expect(actions.length).toBeGreaterThan(0);
    expect(
      actions.every((a) => /^(dynamodb:|sqs:SendMessage$|logs:(CreateLogStream|PutLogEvents)$)/.test(a)),
      actions.join(', '),
    ).toBe(true);
    // No AWS-managed policy (AWSLambdaBasicExecutionRole would write to every log group): runtime-roles.e2e.test.ts holds
    // each role's statements against what its function calls.
    expect(resources[role]?.Properties.ManagedPolicyArns).toBeUndefined();
  });

  /** Each function's role's statements, by the function's logical id prefix (StepFunction, ApiFunction, ...). */
  const statementsOf = (fnPrefix: string) => {
    const [, fn] = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(fnPrefix)) ?? [];
    const role = ref(fn?.Properties.Role);
    return ofType('AWS::IAM::Policy')
      .filter(([, p]) => asArray(p.Properties.Roles as unknown[]).some((r) => ref(r) === role))
      .flatMap(
        ([, p]) => asArray((p.Properties.PolicyDocument as { Statement: unknown }).Statement) as Array<{ Action: string | string[]; Resource: unknown }>,
      );
  };

  it('gives cluster secrets (CA keys, SSH keys, kubeconfigs) to the step function alone', () => {
    const secretActions = (prefix: string) =>
      statementsOf(prefix)
        .flatMap((st) => asArray(st.Action))
        .filter((a) => a.startsWith('secretsmanager:'));
    expect(secretActions('StepFunction')).toEqual(
      expect.arrayContaining(['secretsmanager:GetSecretValue', 'secretsmanager:CreateSecret', 'secretsmanager:DeleteSecret', 'secretsmanager:RestoreSecret']),
    );
    for (const fn of ['ApiFunction', 'DeadLetterFunction', 'WatchdogFunction']) expect(secretActions(fn), fn).toEqual([]);
  });

  it('lets a role send only to the queue its function feeds: the step queue from the step, API and watchdog functions, the kept queue from the dead-letter function', () => {
    const queueOf = (id: string) => ofType('AWS::SQS::Queue').find(([q]) => q === id)?.[0] ?? id;
    const sendsTo = (prefix: string) =>
      statementsOf(prefix)
        .filter((st) => asArray(st.Action).some((a) => a === 'sqs:SendMessage'))
        .flatMap((st) => asArray(st.Resource).map((r) => queueOf(ref(r)).replace(/[0-9A-F]{8}$/, '')));
    expect(Object.fromEntries(['StepFunction', 'ApiFunction', 'WatchdogFunction', 'DeadLetterFunction'].map((f) => [f, sendsTo(f)]))).toEqual({
      StepFunction: ['Steps'],
      ApiFunction: ['Steps'],
      WatchdogFunction: ['Steps'],
      DeadLetterFunction: ['StepsKept'],
    });
  });

  it("keeps logs a month, reserves each function's concurrency, protects the table from deletion and encrypts the queues", () => {
    const fns = ofType('AWS::Lambda::Function');
    for (const [id, f] of fns) {
      expect(Number(f.Properties.ReservedConcurrentExecutions), id).toBeGreaterThan(0);
      const group = resources[ref((f.Properties.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup)];
      expect(group?.Type, id).toBe('AWS::Logs::LogGroup');
      expect(group?.Properties.RetentionInDays, id).toBe(30);
    }
    // SQS may hand a function at most what it may run.
    for (const [, m] of ofType('AWS::Lambda::EventSourceMapping')) {
      const fn = resources[ref(m.Properties.FunctionName)];
      expect((m.Properties.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency).toBeLessThanOrEqual(
        Number(fn?.Properties.ReservedConcurrentExecutions),
      );
    }
    expect(ofType('AWS::DynamoDB::Table').map(([, t]) => t.Properties.DeletionProtectionEnabled)).toEqual([true]);
    expect(ofType('AWS::SQS::Queue').map(([, q]) => q.Properties.SqsManagedSseEnabled)).toEqual([true, true, true]);
  });

  it("bundles each handler into one file under Lambda's 50 MB zip limit", () => {
    for (const s of Object.values(sizes)) expect(s.bytes).toBeLessThan(50 * 1024 * 1024);
  });
});
