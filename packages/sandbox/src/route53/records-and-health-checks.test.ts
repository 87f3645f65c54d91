// Record sets checked as Route 53 checks them (values of their type, CNAME rules, TTLs, routing policies), weighted and
// alias records, the health-check calls each answered as its own operation, and operations the sandbox does not emulate.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Change,
  ChangeResourceRecordSetsCommand,
  CreateHealthCheckCommand,
  CreateHostedZoneCommand,
  GetHealthCheckCommand,
  GetHealthCheckCountCommand,
  GetHealthCheckStatusCommand,
  ListHealthChecksCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
  UpdateHealthCheckCommand,
} from '@aws-sdk/client-route-53';
import { GetSessionTokenCommand, STSClient } from '@aws-sdk/client-sts';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import { awsTarget } from '../ec2/served.js';
import { resolveSandboxName } from '../dns-resolver.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 1 }).listen();
});
afterEach(() => sandbox.close());

const credentials = { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey };
const r53 = () => new Route53Client({ region: 'us-east-1', credentials, maxAttempts: 1 });
const ZONE = 'Z0SANDBOX00001';
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'ok', message: '' }),
    (e: { name?: string; message?: string }) => ({ code: e.name, message: e.message }),
  );
const change = (...changes: Change[]) => r53().send(new ChangeResourceRecordSetsCommand({ HostedZoneId: ZONE, ChangeBatch: { Changes: changes } }));
const record = (name: string, type: string, value: string, extra: Record<string, unknown> = {}): Change => ({
  Action: 'CREATE',
  ResourceRecordSet: { Name: name, Type: type as 'A', TTL: 60, ResourceRecords: [{ Value: value }], ...extra },
});

describe('Route 53 record sets', () => {
  it('refuses a value its type does not take, in Route 53 words', async () => {
    expect(await failure(change(record('a.example.com', 'A', 'not-an-ip')))).toEqual({
      code: 'InvalidChangeBatch',
      message: "[Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with 'not-an-ip'']",
    });
    expect((await failure(change(record('a.example.com', 'A', '256.1.1.1')))).code).toBe('InvalidChangeBatch');
    expect((await failure(change(record('v6.example.com', 'AAAA', '192.0.2.1')))).message).toContain('AAAARRDATAIllegalIPv6Address');
    expect((await failure(change(record('t.example.com', 'TXT', 'unquoted')))).message).toContain('InvalidCharacterString');
    expect((await failure(change(record('v6.example.com', 'AAAA', '2001:db8::1')))).code).toBe('ok');
    expect((await failure(change(record('t.example.com', 'TXT', '"quoted" "twice"')))).code).toBe('ok');
  });

  it('refuses a CNAME at the apex, a duplicate CREATE, a missing TTL and a SetIdentifier without a routing policy', async () => {
    expect((await failure(change(record('example.com', 'CNAME', 'x.example.net')))).message).toBe(
      '[RRSet of type CNAME with DNS name example.com. is not permitted at apex in zone example.com.]',
    );
    await change(record('www.example.com', 'A', '192.0.2.1'));
    expect((await failure(change(record('www.example.com', 'A', '192.0.2.1')))).message).toBe(
      "[Tried to create resource record set [name='www.example.com.', type='A'] but it already exists]",
    );
    expect(
      await failure(change({ Action: 'CREATE', ResourceRecordSet: { Name: 'n.example.com', Type: 'A', ResourceRecords: [{ Value: '192.0.2.1' }] } })),
    ).toMatchObject({
      code: 'InvalidInput',
    });
    expect((await failure(change(record('s.example.com', 'A', '192.0.2.1', { SetIdentifier: 'one' })))).code).toBe('InvalidInput');
  });

  it('keeps weighted records with their weights and alias records with their targets', async () => {
    await change(record('www.example.com', 'A', '192.0.2.1'));
    await change(
      record('w.example.com', 'A', '192.0.2.2', { SetIdentifier: 'blue', Weight: 10 }),
      record('w.example.com', 'A', '192.0.2.3', { SetIdentifier: 'green', Weight: 0 }),
      {
        Action: 'CREATE',
        ResourceRecordSet: {
          Name: 'alias.example.com',
          Type: 'A',
          AliasTarget: { HostedZoneId: ZONE, DNSName: 'www.example.com', EvaluateTargetHealth: true },
        },
      },
    );
    const sets = (await r53().send(new ListResourceRecordSetsCommand({ HostedZoneId: ZONE }))).ResourceRecordSets ?? [];
    expect(sets.filter((s) => s.Name === 'w.example.com.').map((s) => [s.SetIdentifier, s.Weight])).toEqual([
      ['blue', 10],
      ['green', 0],
    ]);
    expect(sets.find((s) => s.Name === 'alias.example.com.')).toEqual({
      Name: 'alias.example.com.',
      Type: 'A',
      AliasTarget: { HostedZoneId: ZONE, DNSName: 'www.example.com.', EvaluateTargetHealth: true },
    });
    // The sandbox's DNS answers an alias with its target's addresses, as Route 53's name servers do.
    expect(resolveSandboxName(sandbox, 'alias.example.com')).toEqual(['192.0.2.1']);
    const missing = {
      Action: 'CREATE' as const,
      ResourceRecordSet: {
        Name: 'b.example.com',
        Type: 'A' as const,
        AliasTarget: { HostedZoneId: ZONE, DNSName: 'none.example.com', EvaluateTargetHealth: false },
      },
    };
    expect((await failure(change(missing))).code).toBe('InvalidChangeBatch');
  });
});

describe('Route 53 health checks', () => {
  it('answers Get, Update, Status and Count as their own operations', async () => {
    const client = r53();
    const created = await client.send(
      new CreateHealthCheckCommand({
        CallerReference: 'hc',
        HealthCheckConfig: { Type: 'HTTPS', FullyQualifiedDomainName: 'www.example.com', ResourcePath: '/health' },
      }),
    );
    const id = created.HealthCheck?.Id ?? '';
    expect(created.HealthCheck?.HealthCheckConfig).toMatchObject({ Port: 443, RequestInterval: 30, FailureThreshold: 3, EnableSNI: true });
    expect((await client.send(new GetHealthCheckCommand({ HealthCheckId: id }))).HealthCheck?.Id).toBe(id);
    const updated = await client.send(new UpdateHealthCheckCommand({ HealthCheckId: id, HealthCheckVersion: 1, FailureThreshold: 5 }));
    expect(updated.HealthCheck).toMatchObject({ HealthCheckVersion: 2, HealthCheckConfig: { FailureThreshold: 5, ResourcePath: '/health' } });
    expect((await failure(client.send(new UpdateHealthCheckCommand({ HealthCheckId: id, HealthCheckVersion: 1, Disabled: true })))).code).toBe(
      'HealthCheckVersionMismatch',
    );
    const status = await client.send(new GetHealthCheckStatusCommand({ HealthCheckId: id }));
    expect(status.HealthCheckObservations?.length).toBe(8);
    expect(status.HealthCheckObservations?.[0]?.StatusReport?.Status).toBe('Success: HTTP Status Code 200, OK');
    expect((await client.send(new GetHealthCheckCountCommand({}))).HealthCheckCount).toBe(1);
    expect((await client.send(new ListHealthChecksCommand({}))).HealthChecks?.map((h) => h.Id)).toEqual([id]);
    expect((await failure(client.send(new GetHealthCheckCommand({ HealthCheckId: 'nope' })))).code).toBe('NoSuchHealthCheck');
  });

  it('refuses a configuration Route 53 refuses', async () => {
    const create = (HealthCheckConfig: Record<string, unknown>) =>
      failure(r53().send(new CreateHealthCheckCommand({ CallerReference: `x${Math.random()}`, HealthCheckConfig: HealthCheckConfig as never })));
    expect((await create({ Type: 'HTTP', IPAddress: '192.0.2.1', RequestInterval: 20 })).code).toBe('InvalidInput');
    expect((await create({ Type: 'HTTP' })).code).toBe('InvalidInput');
    expect((await create({ Type: 'HTTP_STR_MATCH', IPAddress: '192.0.2.1' })).code).toBe('InvalidInput');
    expect((await create({ Type: 'TCP', IPAddress: 'x.y' })).code).toBe('InvalidInput');
  });
});

describe('AWS operations the sandbox does not emulate', () => {
  it("refuses a Route 53 or STS operation of the model in the sealed sandbox's words", async () => {
    expect(await failure(r53().send(new CreateHostedZoneCommand({ Name: 'new.example.org', CallerReference: 'x' })))).toEqual({
      code: 'InvalidAction',
      message: expect.stringMatching(/^the sandbox does not emulate Route 53 CreateHostedZone \(/),
    });
    const sts = new STSClient({ region: 'us-east-1', credentials, maxAttempts: 1 });
    expect((await failure(sts.send(new GetSessionTokenCommand({})))).message).toMatch(/^the sandbox does not emulate STS GetSessionToken/);
  });

  it('refuses on the served port a request signed for another service, never passing it to EC2', () => {
    const signed = (service: string) => `AWS4-HMAC-SHA256 Credential=AKIA/20260101/eu-central-1/${service}/aws4_request, SignedHeaders=host, Signature=x`;
    const target = awsTarget('/', signed('iam'), ['eu-central-1']);
    expect(target).toMatchObject({ status: 400, body: expect.stringContaining("the sandbox does not emulate the AWS service 'iam'") });
    expect(awsTarget('/', signed('ec2'), ['eu-central-1'])).toEqual({ url: 'https://ec2.eu-central-1.amazonaws.com/' });
  });
});
