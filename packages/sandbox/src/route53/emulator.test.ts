import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ChangeResourceRecordSetsCommand,
  CreateHealthCheckCommand,
  DeleteHealthCheckCommand,
  GetChangeCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
  type Change,
} from '@aws-sdk/client-route-53';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import type { AwsCall } from '../aws-calls.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 1 }).listen();
});
afterEach(() => sandbox.close());

const r53 = () =>
  new Route53Client({
    region: 'us-east-1',
    credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
    maxAttempts: 1,
  });
const ZONE = 'Z0SANDBOX00001';
const a = (name: string, value: string, action: Change['Action'] = 'CREATE'): Change => ({
  Action: action,
  ResourceRecordSet: { Name: name, Type: 'A', TTL: 60, ResourceRecords: [{ Value: value }] },
});
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { name?: string }) => e.name,
  );

describe('Route 53 emulator (wire format)', () => {
  it('reports a change PENDING and INSYNC after 60 s of virtual time', async () => {
    const client = r53();
    const out = await client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: ZONE, ChangeBatch: { Changes: [a('x.example.com', '192.0.2.1')] } }));
    expect(out.ChangeInfo?.Status).toBe('PENDING');
    sandbox.clock.advance(60_000);
    expect((await client.send(new GetChangeCommand({ Id: out.ChangeInfo?.Id ?? '' }))).ChangeInfo?.Status).toBe('INSYNC');
  });

  it('applies a batch atomically: one bad change rejects all', async () => {
    const client = r53();
    await client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: ZONE, ChangeBatch: { Changes: [a('x.example.com', '192.0.2.1')] } }));
    const code = await codeOf(
      client.send(
        new ChangeResourceRecordSetsCommand({
          HostedZoneId: ZONE,
          ChangeBatch: { Changes: [a('y.example.com', '192.0.2.2'), a('x.example.com', '192.0.2.3')] },
        }),
      ),
    );
    expect(code).toBe('InvalidChangeBatch');
    expect(sandbox.route53.zones.get(ZONE)?.records.some((r) => r.name === 'y.example.com.')).toBe(false);
  });

  it('refuses a DELETE whose values differ from the current ones', async () => {
    const client = r53();
    await client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: ZONE, ChangeBatch: { Changes: [a('x.example.com', '192.0.2.1')] } }));
    expect(
      await codeOf(
        client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: ZONE, ChangeBatch: { Changes: [a('x.example.com', '192.0.2.9', 'DELETE')] } })),
      ),
    ).toBe('InvalidChangeBatch');
  });

  it('pages record sets with NextRecordName', async () => {
    const client = r53();
    for (let batch = 0; batch < 4; batch++) {
      const changes = Array.from({ length: 100 }, (_, i) => a(`h${batch}-${i}.example.com`, '192.0.2.1'));
      await client.send(new ChangeResourceRecordSetsCommand({ HostedZoneId: ZONE, ChangeBatch: { Changes: changes } }));
    }
    const first = await client.send(new ListResourceRecordSetsCommand({ HostedZoneId: ZONE }));
    expect(first.IsTruncated).toBe(true);
    expect(first.ResourceRecordSets).toHaveLength(300);
    const second = await client.send(
      new ListResourceRecordSetsCommand({ HostedZoneId: ZONE, StartRecordName: first.NextRecordName, StartRecordType: first.NextRecordType }),
    );
    expect(second.IsTruncated).toBe(false);
    expect((first.ResourceRecordSets?.length ?? 0) + (second.ResourceRecordSets?.length ?? 0)).toBe(402);
  });

  it('keeps a health check referenced by a record from being deleted', async () => {
    const client = r53();
    const hc = await client.send(
      new CreateHealthCheckCommand({ CallerReference: 'c1/hc', HealthCheckConfig: { Type: 'TCP', IPAddress: '192.0.2.1', Port: 65534 } }),
    );
    const again = await client.send(
      new CreateHealthCheckCommand({ CallerReference: 'c1/hc', HealthCheckConfig: { Type: 'TCP', IPAddress: '192.0.2.1', Port: 65534 } }),
    );
    expect(again.HealthCheck?.Id).toBe(hc.HealthCheck?.Id);
    await client.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: ZONE,
        ChangeBatch: {
          Changes: [
            {
              Action: 'CREATE',
              ResourceRecordSet: {
                Name: 'lb.example.com',
                Type: 'A',
                TTL: 30,
                SetIdentifier: 'p',
                Failover: 'PRIMARY',
                HealthCheckId: hc.HealthCheck?.Id ?? '',
                ResourceRecords: [{ Value: '192.0.2.1' }],
              },
            },
          ],
        },
      }),
    );
    expect(await codeOf(client.send(new DeleteHealthCheckCommand({ HealthCheckId: hc.HealthCheck?.Id ?? '' })))).toBe('HealthCheckInUse');
  });
});

describe('Route 53 emulator: the audit of calls (sandbox.onAwsCall)', () => {
  it('names the zone of a change batch with each change, the change of GetChange and the health check of DeleteHealthCheck', async () => {
    const client = r53();
    const calls: AwsCall[] = [];
    sandbox.onAwsCall((c) => calls.push(c));
    const out = await client.send(
      new ChangeResourceRecordSetsCommand({ HostedZoneId: ZONE, ChangeBatch: { Changes: [a('X.example.com.', '192.0.2.1', 'UPSERT')] } }),
    );
    await client.send(new GetChangeCommand({ Id: out.ChangeInfo?.Id ?? '' }));
    const check = await client.send(
      new CreateHealthCheckCommand({ CallerReference: 'c1/x', HealthCheckConfig: { Type: 'TCP', IPAddress: '192.0.2.1', Port: 65534 } }),
    );
    await client.send(new DeleteHealthCheckCommand({ HealthCheckId: check.HealthCheck?.Id ?? '' }));

    expect(calls.map((c) => [c.action, c.region, c.resources.map((r) => `${r.type}/${r.id}`)])).toEqual([
      ['ChangeResourceRecordSets', 'us-east-1', [`hostedzone/${ZONE}`]],
      ['GetChange', 'us-east-1', [`change/${(out.ChangeInfo?.Id ?? '').replace('/change/', '')}`]],
      ['CreateHealthCheck', 'us-east-1', []],
      ['DeleteHealthCheck', 'us-east-1', [`healthcheck/${check.HealthCheck?.Id ?? ''}`]],
    ]);
    expect(calls[0]?.changes).toEqual([{ action: 'UPSERT', name: 'X.example.com.', type: 'A' }]);
  });
});
