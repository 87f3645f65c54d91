// The EC2 and Route 53 emulators' responses checked by the AWS SDK's own deserializers: a scripted session through
// every operation they serve (successes and errors) where each raw XML body is kept beside what the SDK parsed from it.
// Every text element of a success must reach the SDK's output (an element it does not know is silently dropped, which
// is how a wrong shape hides); every error must parse to its code and carry one AWS documents.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ec2sdk from '@aws-sdk/client-ec2';
import * as r53sdk from '@aws-sdk/client-route-53';
import { Sandbox, SANDBOX_CREDENTIALS } from './sandbox.js';
import { SANDBOX_SSH_PUBLIC_KEY } from './accounts.js';
import { EC2_DOCUMENTED_ERRORS, ROUTE53_DOCUMENTED_ERRORS } from './aws-documented-errors.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

interface Exchange {
  service: 'ec2' | 'route53';
  operation: string;
  status: number;
  body: string;
  output?: unknown;
  error?: { name: string; message: string; status?: number };
}
const exchanges: Exchange[] = [];
let sandbox: Sandbox;

/** Keeps the raw body of each response (the deserializer then reads a copy of it). */
function recordBodies(
  stack: { add: (m: never, o: { step: 'deserialize'; priority: 'low'; name: string }) => void },
  pending: { status: number; body: string }[],
): void {
  const middleware =
    (next: (a: unknown) => Promise<{ response: { statusCode: number; body: AsyncIterable<Uint8Array> | Readable } }>) => async (args: unknown) => {
      const result = await next(args);
      const chunks: Buffer[] = [];
      for await (const c of result.response.body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
      const body = Buffer.concat(chunks);
      result.response.body = Readable.from([body]);
      pending.push({ status: result.response.statusCode, body: body.toString('utf8') });
      return result;
    };
  stack.add(middleware as never, { step: 'deserialize', priority: 'low', name: 'recordBodies' });
}

const credentials = { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey };

async function session(): Promise<void> {
  const ec2Bodies: { status: number; body: string }[] = [];
  const r53Bodies: { status: number; body: string }[] = [];
  const ec2 = new ec2sdk.EC2Client({ region: 'eu-central-1', credentials, maxAttempts: 1 });
  const r53 = new r53sdk.Route53Client({ region: 'us-east-1', credentials, maxAttempts: 1 });
  recordBodies(ec2.middlewareStack as never, ec2Bodies);
  recordBodies(r53.middlewareStack as never, r53Bodies);
  const send = async <O>(service: 'ec2' | 'route53', command: { constructor: { name: string } }): Promise<O | undefined> => {
    const operation = command.constructor.name.replace(/Command$/, '');
    const bodies = service === 'ec2' ? ec2Bodies : r53Bodies;
    const client = (service === 'ec2' ? ec2 : r53) as unknown as { send: (c: unknown) => Promise<O> };
    try {
      const output = await client.send(command);
      const raw = bodies.pop();
      exchanges.push({ service, operation, status: raw?.status ?? 0, body: raw?.body ?? '', output });
      return output;
    } catch (e) {
      const err = e as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
      const raw = bodies.pop();
      exchanges.push({
        service,
        operation,
        status: raw?.status ?? 0,
        body: raw?.body ?? '',
        error: { name: err.name, message: err.message, ...(err.$metadata?.httpStatusCode ? { status: err.$metadata.httpStatusCode } : {}) },
      });
      return undefined;
    }
  };
  const e = <O>(c: { constructor: { name: string } }) => send<O>('ec2', c);
  const r = <O>(c: { constructor: { name: string } }) => send<O>('route53', c);

  await e(new ec2sdk.DescribeRegionsCommand({ AllRegions: true }));
  await e(new ec2sdk.DescribeAvailabilityZonesCommand({}));
  await e(new ec2sdk.DescribeInstanceTypesCommand({}));
  await e(new ec2sdk.DescribeInstanceTypeOfferingsCommand({ LocationType: 'availability-zone' }));
  await e(new ec2sdk.DescribeImagesCommand({}));
  const vpc =
    (
      await e<ec2sdk.CreateVpcResult>(
        new ec2sdk.CreateVpcCommand({ CidrBlock: '10.9.0.0/16', TagSpecifications: [{ ResourceType: 'vpc', Tags: [{ Key: 'Name', Value: 'c' }] }] }),
      )
    )?.Vpc?.VpcId ?? '';
  await e(new ec2sdk.DescribeVpcsCommand({}));
  const subnet =
    (await e<ec2sdk.CreateSubnetResult>(new ec2sdk.CreateSubnetCommand({ VpcId: vpc, CidrBlock: '10.9.1.0/24', AvailabilityZone: 'eu-central-1a' })))?.Subnet
      ?.SubnetId ?? '';
  await e(new ec2sdk.DescribeSubnetsCommand({}));
  const igw = (await e<ec2sdk.CreateInternetGatewayResult>(new ec2sdk.CreateInternetGatewayCommand({})))?.InternetGateway?.InternetGatewayId ?? '';
  await e(new ec2sdk.AttachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpc }));
  await e(new ec2sdk.DescribeInternetGatewaysCommand({}));
  const rtb =
    (await e<ec2sdk.DescribeRouteTablesResult>(new ec2sdk.DescribeRouteTablesCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc] }] })))?.RouteTables?.[0]
      ?.RouteTableId ?? '';
  await e(new ec2sdk.CreateRouteCommand({ RouteTableId: rtb, DestinationCidrBlock: '0.0.0.0/0', GatewayId: igw }));
  await e(new ec2sdk.DescribeRouteTablesCommand({}));
  const sg =
    (await e<ec2sdk.CreateSecurityGroupResult>(new ec2sdk.CreateSecurityGroupCommand({ VpcId: vpc, GroupName: 'web', Description: 'web' })))?.GroupId ?? '';
  const rule = { GroupId: sg, IpPermissions: [{ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: '0.0.0.0/0', Description: 'https' }] }] };
  await e(new ec2sdk.AuthorizeSecurityGroupIngressCommand(rule));
  await e(new ec2sdk.AuthorizeSecurityGroupIngressCommand(rule));
  await e(new ec2sdk.DescribeSecurityGroupsCommand({}));
  await e(new ec2sdk.RevokeSecurityGroupIngressCommand(rule));
  await e(new ec2sdk.ImportKeyPairCommand({ KeyName: 'k', PublicKeyMaterial: Buffer.from(SANDBOX_SSH_PUBLIC_KEY) }));
  await e(new ec2sdk.DescribeKeyPairsCommand({}));
  const launched = await e<ec2sdk.Reservation>(
    new ec2sdk.RunInstancesCommand({
      MinCount: 1,
      MaxCount: 1,
      ImageId: 'ami-0965bd5ba4d59211c',
      InstanceType: 't3.small',
      SubnetId: subnet,
      SecurityGroupIds: [sg],
      KeyName: 'k',
      ClientToken: 'c1',
      TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: 'n' }] }],
    }),
  );
  const instance = launched?.Instances?.[0]?.InstanceId ?? '';
  await e(new ec2sdk.RunInstancesCommand({ MinCount: 2, MaxCount: 2, ImageId: 'ami-0965bd5ba4d59211c', InstanceType: 't3.small' }));
  await e(new ec2sdk.DescribeInstancesCommand({}));
  await e(new ec2sdk.CreateTagsCommand({ Resources: [vpc, instance], Tags: [{ Key: 'team', Value: 'x' }] }));
  await e(new ec2sdk.DescribeTagsCommand({}));
  await e(new ec2sdk.DeleteTagsCommand({ Resources: [vpc], Tags: [{ Key: 'team' }] }));
  const eip = (await e<ec2sdk.AllocateAddressResult>(new ec2sdk.AllocateAddressCommand({ Domain: 'vpc' })))?.AllocationId ?? '';
  sandbox.clock.advance(60_000);
  const association =
    (await e<ec2sdk.AssociateAddressResult>(new ec2sdk.AssociateAddressCommand({ AllocationId: eip, InstanceId: instance })))?.AssociationId ?? '';
  await e(new ec2sdk.DescribeAddressesCommand({}));
  await e(new ec2sdk.DescribeInstancesCommand({ InstanceIds: [instance] }));
  await e(new ec2sdk.DisassociateAddressCommand({ AssociationId: association }));
  await e(new ec2sdk.ReleaseAddressCommand({ AllocationId: eip }));
  await e(new ec2sdk.StopInstancesCommand({ InstanceIds: [instance] }));
  sandbox.clock.advance(60_000);
  await e(new ec2sdk.StartInstancesCommand({ InstanceIds: [instance] }));
  await e(new ec2sdk.TerminateInstancesCommand({ InstanceIds: [instance] }));
  await e(new ec2sdk.DescribeVpcsCommand({ VpcIds: ['vpc-0123456789abcdef0'] }));
  await e(new ec2sdk.DescribeInstancesCommand({ InstanceIds: ['i-bogus'] }));
  await e(new ec2sdk.DescribeInstancesCommand({ Filters: [{ Name: 'bogus', Values: ['x'] }] }));
  await e(new ec2sdk.RunInstancesCommand({ MinCount: 1, MaxCount: 1, InstanceType: 't3.small' }));
  await e(new ec2sdk.DeleteVpcCommand({ VpcId: vpc }));
  await e(new ec2sdk.DeleteKeyPairCommand({ KeyName: 'k' }));
  sandbox.clock.advance(60_000);
  await e(new ec2sdk.DeleteSecurityGroupCommand({ GroupId: sg }));
  await e(new ec2sdk.DetachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpc }));
  await e(new ec2sdk.DeleteInternetGatewayCommand({ InternetGatewayId: igw }));
  await e(new ec2sdk.DeleteSubnetCommand({ SubnetId: subnet }));
  await e(new ec2sdk.DeleteVpcCommand({ VpcId: vpc }));

  const zones = await r<r53sdk.ListHostedZonesResponse>(new r53sdk.ListHostedZonesCommand({}));
  const zone = zones?.HostedZones?.[0]?.Id ?? '';
  await r(new r53sdk.GetHostedZoneCommand({ Id: zone }));
  await r(new r53sdk.ListHostedZonesByNameCommand({ DNSName: 'example.com' }));
  await r(new r53sdk.GetHostedZoneCountCommand({}));
  const changes = (action: r53sdk.ChangeAction) => ({
    HostedZoneId: zone,
    ChangeBatch: {
      Changes: [{ Action: action, ResourceRecordSet: { Name: '*.example.com', Type: r53sdk.RRType.A, TTL: 60, ResourceRecords: [{ Value: '192.0.2.1' }] } }],
    },
  });
  const change = (await r<r53sdk.ChangeResourceRecordSetsResponse>(new r53sdk.ChangeResourceRecordSetsCommand(changes('CREATE'))))?.ChangeInfo?.Id ?? '';
  await r(new r53sdk.ChangeResourceRecordSetsCommand(changes('CREATE')));
  await r(new r53sdk.GetChangeCommand({ Id: change }));
  await r(new r53sdk.ListResourceRecordSetsCommand({ HostedZoneId: zone, MaxItems: 1 }));
  const check =
    (
      await r<r53sdk.CreateHealthCheckResponse>(
        new r53sdk.CreateHealthCheckCommand({ CallerReference: 'c/1', HealthCheckConfig: { Type: 'TCP', IPAddress: '192.0.2.1', Port: 443 } }),
      )
    )?.HealthCheck?.Id ?? '';
  await r(new r53sdk.ListHealthChecksCommand({}));
  await r(new r53sdk.DeleteHealthCheckCommand({ HealthCheckId: check }));
  await r(new r53sdk.GetHostedZoneCommand({ Id: 'Z0NOSUCHZONE' }));
  await r(new r53sdk.GetChangeCommand({ Id: 'C0NOSUCHCHANGE' }));
  await r(new r53sdk.ListResourceRecordSetsCommand({ HostedZoneId: zone, StartRecordType: r53sdk.RRType.A }));
}

beforeAll(async () => {
  sandbox = new Sandbox({ seed: 7, ec2: { describeLagMaxMs: 0 } }).listen();
  await session();
});
afterAll(() => sandbox.close());

/**
 * Elements with text and no child elements, but for the request id the SDK keeps in $metadata and EC2's
 * `<return>true</return>`, which EC2 sends for actions whose output the SDK models as empty (the API reference's sample
 * responses show it, e.g. https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_AttachInternetGateway.html).
 */
function rawLeaves(xml: string): string[] {
  return [...xml.replace(/^<\?xml[^>]*\?>/, '').matchAll(/<([A-Za-z][\w.]*)>([^<]+)<\/\1>/g)]
    .filter((m) => !/^(request[iI][dD]|return)$/.test(m[1] ?? ''))
    .map((m) => `${m[1]}=${m[2]}`);
}

/**
 * The values the SDK parsed from the body (strings, numbers, booleans, dates): not $metadata, not EC2's Return (see
 * rawLeaves), not the members Route 53 binds to headers (CreateHealthCheck's Location).
 */
function parsedLeaves(value: unknown, service: Exchange['service'], top = true): number {
  if (value instanceof Date || typeof value === 'number' || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return value === '' ? 0 : 1;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + parsedLeaves(v, service, false), 0);
  const skipped = ['$metadata', ...(service === 'ec2' ? ['Return'] : top ? ['Location'] : [])];
  if (value && typeof value === 'object')
    return Object.entries(value)
      .filter(([k]) => !skipped.includes(k))
      .reduce((n, [, v]) => n + parsedLeaves(v, service, false), 0);
  return 0;
}

describe('AWS conformance of the EC2 and Route 53 emulators', () => {
  it('covers successes and errors of both services', () => {
    expect(exchanges.filter((x) => x.output).length).toBeGreaterThan(50);
    expect(new Set(exchanges.filter((x) => x.error).map((x) => x.error?.name)).size).toBeGreaterThanOrEqual(9);
  });

  it("every text element of every success reaches the SDK's parsed output", () => {
    const lost = exchanges
      .filter((x) => x.output)
      .map((x) => ({ operation: x.operation, raw: rawLeaves(x.body), parsed: parsedLeaves(x.output, x.service) }))
      .filter((x) => x.raw.length !== x.parsed);
    expect(lost, JSON.stringify(lost, null, 1)).toEqual([]);
  });

  it("every error parses to its code and HTTP status, in the service's envelope, with a code AWS documents", () => {
    for (const x of exchanges.filter((y) => y.error)) {
      const code = /<Code>([^<]+)<\/Code>/.exec(x.body)?.[1];
      expect(x.error?.name, x.body).toBe(code);
      expect(x.error?.status).toBe(x.status);
      expect(x.status).toBeGreaterThanOrEqual(400);
      if (x.service === 'ec2') {
        expect(x.body).toMatch(/^<\?xml[^>]*\?>\n<Response><Errors><Error><Code>/);
        expect(EC2_DOCUMENTED_ERRORS[code ?? ''], `${code} is not a documented EC2 error`).toBeDefined();
      } else {
        expect(x.body).toMatch(/<ErrorResponse xmlns="https:\/\/route53\.amazonaws\.com\/doc\/2013-04-01\/"><Error><Type>Sender<\/Type><Code>/);
        expect(ROUTE53_DOCUMENTED_ERRORS[code ?? ''], `${code} is not a documented Route 53 error`).toBeDefined();
      }
    }
  });

  it("every error code the emulators' source can emit is one AWS documents", () => {
    const codesIn = (dir: string) =>
      readdirSync(join(import.meta.dirname, dir))
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .flatMap((f) => {
          const text = readFileSync(join(import.meta.dirname, dir, f), 'utf8');
          return [
            ...text.matchAll(/new (?:Ec2|Route53|Emulator)Error\(\d+, '([^']+)'/g),
            ...text.matchAll(/(?:malformed|notFound): '([^']+)'/g),
            ...text.matchAll(/#must\([^;]*?'([A-Za-z]+\.[A-Za-z]+)'/g),
          ].map((m) => m[1] ?? '');
        });
    const ec2 = new Set(codesIn('ec2'));
    const route53 = new Set(codesIn('route53'));
    expect(ec2.size).toBeGreaterThan(30);
    expect([...ec2].filter((c) => !EC2_DOCUMENTED_ERRORS[c])).toEqual([]);
    expect([...route53].filter((c) => !ROUTE53_DOCUMENTED_ERRORS[c])).toEqual([]);
  });
});
