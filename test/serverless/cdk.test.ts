// The CDK deploy example synthesises offline (esbuild bundles, no AWS account) and its template keeps the
// rules: every work queue has a DLQ, each visibility timeout is at least 6x its function's timeout, the API is
// IAM-authorised, and no IAM statement allows every action or any action on every resource without cause.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { bundleHandlers, type FunctionName } from '../../examples/aws/bundle.js';
import type { AccessGrant } from '../../packages/handlers/src/aws/access.js';
import { KubeplaneStack } from '../../examples/aws/stack.js';

type Resource = { Type: string; Properties: Record<string, unknown> };
let out: string;
let resources: Record<string, Resource>;
let sizes: Record<FunctionName, { dir: string; bytes: number }>;
const access: AccessGrant[] = [{ principal: 'arn:aws:iam::123456789012:role/team-a-*', projects: ['team-a-*'], role: 'operator' }];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'kubeplane-cdk-'));
  const bundles = await bundleHandlers(join(out, 'bundles'));
  sizes = bundles;
  const app = new App({ outdir: join(out, 'cdk.out') });
  const stack = new KubeplaneStack(app, 'Kubeplane', { bundles, access, hostedZoneIds: ['Z0123456789ABCDEFGHIJ'] });
  resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  process.stdout.write(`lambda bundles (minified, AWS SDK from the runtime): ${Object.entries(bundles).map(([k, v]) => `${k} ${(v.bytes / 1024 / 1024).toFixed(2)} MB`).join(', ')}\n`);
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
    const deadLetterEnv = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith('DeadLetterFunction'))?.[1].Properties.Environment as { Variables: Record<string, unknown> };
    expect(ref(deadLetterEnv.Variables.KUBEPLANE_KEPT_QUEUE_URL)).toMatch(/^StepsKept/);
  });

  it('sets each consumed queue\'s visibility timeout to at least 6x its function\'s timeout, with partial batch responses', () => {
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
    const grantsOf = Object.fromEntries(ofType('AWS::Lambda::Function').map(([id, f]) => [id.replace(/[0-9A-F]{8}$/, ''), (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables.KUBEPLANE_ACCESS]));
    expect(grantsOf).toEqual({ StepFunction: undefined, DeadLetterFunction: undefined, ApiFunction: JSON.stringify(access), WatchdogFunction: undefined });
  });

  it('refuses to synthesise a grant the API would refuse, naming it', () => {
    const bad = [...access, { principal: 'arn:aws:iam::123456789012:role/ops', projects: ['*'], role: 'owner' }] as AccessGrant[];
    expect(() => new KubeplaneStack(new App(), 'Kubeplane', { bundles: sizes, access: bad, hostedZoneIds: [] })).toThrow('KubeplaneStackProps.access: grant 1, role: "owner" is not one of reader, operator');
  });

  it('allows no action on every resource unless the action has no resource-level permissions, and never every action', () => {
    const statements = [...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::ManagedPolicy')].flatMap(([, p]) => asArray((p.Properties.PolicyDocument as { Statement: unknown }).Statement) as Array<{ Action: string | string[]; Resource: unknown; Condition?: unknown }>);
    expect(statements.length).toBeGreaterThan(5);
    const everyAction = statements.filter((s) => asArray(s.Action).some((a) => a === '*' || a.endsWith(':*')));
    expect(everyAction).toEqual([]);
    const unscoped = statements.filter((s) => asArray(s.Resource).includes('*')).flatMap((s) => asArray(s.Action));
    // Describe/List calls and Route 53 health checks cannot be scoped to resources in IAM.
    expect(unscoped.every((a) => /^(ec2:Describe|secretsmanager:ListSecrets$|route53:(ListHostedZonesByName|ListHealthChecks|CreateHealthCheck|DeleteHealthCheck)$)/.test(a)), unscoped.join(', ')).toBe(true);
  });

  it('lets the AWS provider change only EC2 resources carrying the cluster tag, and Route 53 only in the named zones', () => {
    const [[, policy] = ['', undefined]] = ofType('AWS::IAM::ManagedPolicy');
    const statements = asArray((policy?.Properties.PolicyDocument as { Statement: unknown }).Statement) as Array<{ Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> }>;
    const mutating = statements.filter((s) => asArray(s.Action).some((a) => /^ec2:(Terminate|Delete|Revoke|Authorize|Release|Associate|Disassociate|Attach|Detach)/.test(a)));
    expect(mutating.length).toBeGreaterThan(0);
    expect(mutating.every((s) => JSON.stringify(s.Condition ?? {}).includes('ResourceTag/kubeplane.dev/cluster-id'))).toBe(true);
    const route53 = statements.find((s) => asArray(s.Action).includes('route53:ChangeResourceRecordSets'));
    expect(route53?.Resource).toEqual('arn:aws:route53:::hostedzone/Z0123456789ABCDEFGHIJ');
  });

  it('runs the watchdog every 5 minutes, with a role that reads and writes the table and sends step messages only', () => {
    const rules = ofType('AWS::Events::Rule');
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(5 minutes)']);
    const target = asArray(rules[0]?.[1].Properties.Targets as unknown[])[0] as { Arn: unknown };
    const [watchdogId, watchdog] = ofType('AWS::Lambda::Function').find(([id]) => id === ref(target.Arn)) ?? [];
    expect(watchdogId).toMatch(/^WatchdogFunction/);
    // EventBridge may invoke it (and nothing else is granted to the rule).
    expect(ofType('AWS::Lambda::Permission').some(([, p]) => ref(p.Properties.FunctionName) === watchdogId && p.Properties.Principal === 'events.amazonaws.com')).toBe(true);
    const role = ref(watchdog?.Properties.Role);
    const actions = ofType('AWS::IAM::Policy')
      .filter(([, p]) => asArray(p.Properties.Roles as unknown[]).some((r) => ref(r) === role))
      .flatMap(([, p]) => asArray((p.Properties.PolicyDocument as { Statement: unknown }).Statement) as Array<{ Action: string | string[] }>)
      .flatMap((st) => asArray(st.Action));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.every((a) => /^(dynamodb:|sqs:(SendMessage|GetQueueAttributes|GetQueueUrl)$)/.test(a)), actions.join(', ')).toBe(true);
  });

  /** Each function's role's statements, by the function's logical id prefix (StepFunction, ApiFunction, ...). */
  const statementsOf = (fnPrefix: string) => {
    const [, fn] = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(fnPrefix)) ?? [];
    const role = ref(fn?.Properties.Role);
    return ofType('AWS::IAM::Policy')
      .filter(([, p]) => asArray(p.Properties.Roles as unknown[]).some((r) => ref(r) === role))
      .flatMap(([, p]) => asArray((p.Properties.PolicyDocument as { Statement: unknown }).Statement) as Array<{ Action: string | string[]; Resource: unknown }>);
  };

  it('gives cluster secrets (CA keys, SSH keys, kubeconfigs) to the step function alone', () => {
    const secretActions = (prefix: string) => statementsOf(prefix).flatMap((st) => asArray(st.Action)).filter((a) => a.startsWith('secretsmanager:'));
    expect(secretActions('StepFunction')).toEqual(expect.arrayContaining(['secretsmanager:GetSecretValue', 'secretsmanager:CreateSecret', 'secretsmanager:DeleteSecret', 'secretsmanager:RestoreSecret']));
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

  it('keeps logs a month, reserves each function\'s concurrency, protects the table from deletion and encrypts the queues', () => {
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
      expect((m.Properties.ScalingConfig as { MaximumConcurrency: number }).MaximumConcurrency).toBeLessThanOrEqual(Number(fn?.Properties.ReservedConcurrentExecutions));
    }
    expect(ofType('AWS::DynamoDB::Table').map(([, t]) => t.Properties.DeletionProtectionEnabled)).toEqual([true]);
    expect(ofType('AWS::SQS::Queue').map(([, q]) => q.Properties.SqsManagedSseEnabled)).toEqual([true, true, true]);
  });

  it('bundles each handler into one file under Lambda\'s 50 MB zip limit', () => {
    for (const s of Object.values(sizes)) expect(s.bytes).toBeLessThan(50 * 1024 * 1024);
  });
});
