import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ChangeResourceRecordSetsCommand,
  CreateHostedZoneCommand,
  GetHostedZoneCommand,
  ListHostedZonesByNameCommand,
  ListHostedZonesCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
  type Change,
} from '@aws-sdk/client-route-53';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';

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
const failure = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'ok', status: 200 }),
    (e: { name?: string; $metadata?: { httpStatusCode?: number } }) => ({ code: e.name, status: e.$metadata?.httpStatusCode }),
  );
const zoneId = async (name: string) =>
  ((await r53().send(new ListHostedZonesByNameCommand({ DNSName: name, MaxItems: 1 }))).HostedZones?.[0]?.Id ?? '').replace('/hostedzone/', '');
const create = (name: string, type = 'A', value = '192.0.2.1'): Change => ({
  Action: 'CREATE',
  ResourceRecordSet: { Name: name, Type: type as 'A', TTL: 60, ResourceRecords: [{ Value: value }] },
});

describe('Route 53 emulator: hosted zones', () => {
  it('lists hosted zones in pages with Marker and NextMarker', async () => {
    sandbox.route53.addZone('b.example.org');
    sandbox.route53.addZone('a.example.net');
    const first = await r53().send(new ListHostedZonesCommand({ MaxItems: 2 }));
    expect(first.IsTruncated).toBe(true);
    const rest = await r53().send(new ListHostedZonesCommand({ Marker: first.NextMarker ?? '' }));
    const names = [...(first.HostedZones ?? []), ...(rest.HostedZones ?? [])].map((z) => z.Name);
    expect(names).toHaveLength(new Set(names).size);
    expect(names).toEqual(expect.arrayContaining(['b.example.org.', 'a.example.net.']));
    expect(rest.IsTruncated).toBe(false);
  });

  it('gets one hosted zone with its delegation set, and answers an unknown id with NoSuchHostedZone (404)', async () => {
    const id = await zoneId('example.com');
    const got = await r53().send(new GetHostedZoneCommand({ Id: id }));
    expect(got.HostedZone).toMatchObject({ Id: `/hostedzone/${id}`, Name: 'example.com.', Config: { PrivateZone: false } });
    expect(got.DelegationSet?.NameServers?.length).toBeGreaterThan(0);
    expect(await failure(r53().send(new GetHostedZoneCommand({ Id: 'Z0NOSUCHZONE' })))).toEqual({ code: 'NoSuchHostedZone', status: 404 });
  });

  it('lists zones by name with the labels reversed: example.org sorts after www.example.com', async () => {
    sandbox.route53.addZone('www.example.com');
    sandbox.route53.addZone('example.org');
    sandbox.route53.addZone('a.example.com');
    const names = ((await r53().send(new ListHostedZonesByNameCommand({}))).HostedZones ?? []).map((z) => z.Name);
    const ours = names.filter((n) => ['example.com.', 'a.example.com.', 'www.example.com.', 'example.org.'].includes(n ?? ''));
    expect(ours).toEqual(['example.com.', 'a.example.com.', 'www.example.com.', 'example.org.']);
  });
});

describe('Route 53 emulator: record set order', () => {
  it('sorts record sets by name with the labels reversed, then by type, and starts a page at a name in that order', async () => {
    const id = await zoneId('example.com');
    await r53().send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: id,
        ChangeBatch: { Changes: [create('b.example.com'), create('a.b.example.com'), create('z.example.com'), create('b.example.com', 'TXT', '"x"')] },
      }),
    );
    const listed = (await r53().send(new ListResourceRecordSetsCommand({ HostedZoneId: id }))).ResourceRecordSets ?? [];
    expect(listed.map((r) => `${r.Name} ${r.Type}`)).toEqual([
      'example.com. NS',
      'example.com. SOA',
      'b.example.com. A',
      'b.example.com. TXT',
      'a.b.example.com. A',
      'z.example.com. A',
    ]);
    const page = await r53().send(
      new ListResourceRecordSetsCommand({ HostedZoneId: id, StartRecordName: 'b.example.com', StartRecordType: 'TXT', MaxItems: 2 }),
    );
    expect(page.ResourceRecordSets?.map((r) => `${r.Name} ${r.Type}`)).toEqual(['b.example.com. TXT', 'a.b.example.com. A']);
    expect([page.NextRecordName, page.NextRecordType]).toEqual(['z.example.com.', 'A']);
  });

  it('returns a wildcard name with the asterisk escaped as \\052', async () => {
    const id = await zoneId('example.com');
    await r53().send(new ChangeResourceRecordSetsCommand({ HostedZoneId: id, ChangeBatch: { Changes: [create('*.example.com')] } }));
    const listed =
      (await r53().send(new ListResourceRecordSetsCommand({ HostedZoneId: id, StartRecordName: '*.example.com', MaxItems: 1 }))).ResourceRecordSets ?? [];
    expect(listed.map((r) => r.Name)).toEqual(['\\052.example.com.']);
  });

  it('refuses a start type without a start name with InvalidInput', async () => {
    const id = await zoneId('example.com');
    expect((await failure(r53().send(new ListResourceRecordSetsCommand({ HostedZoneId: id, StartRecordType: 'A' })))).code).toBe('InvalidInput');
  });
});

describe('Route 53 emulator: server errors', () => {
  it('answers a server-side failure with ServiceUnavailable and HTTP 503, as its common errors say', async () => {
    sandbox.injectFault({ cloud: 'route53', operation: 'ListHostedZones', kind: 'server-error', times: 1 });
    expect(await failure(r53().send(new ListHostedZonesCommand({})))).toEqual({ code: 'ServiceUnavailable', status: 503 });
  });

  it('answers an operation it does not serve (CreateHostedZone) with InvalidAction and HTTP 400', async () => {
    expect(await failure(r53().send(new CreateHostedZoneCommand({ Name: 'new.example', CallerReference: 'x' })))).toEqual({
      code: 'InvalidAction',
      status: 400,
    });
  });
});
