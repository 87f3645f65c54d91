// The served sandbox's EC2 and Route 53 driven by the real AWS CLI v2 (Debian's /usr/bin/aws): everyday commands
// answer with what AWS answers, errors included (the CLI exits 254 on a service error and prints its code).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool, runTool, type ToolRun } from './test-support/tools.js';
import { ServedWorld } from './test-support/served-world.js';

/** Every command is a CLI process of its own (1-2 s each, more on a loaded machine): a test gets minutes, not vitest's one. */
const CLI_TEST_MS = 300_000;
let world: ServedWorld;

beforeAll(async () => {
  world = await ServedWorld.start({ manifests: [] });
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

async function aws(...args: string[]): Promise<ToolRun> {
  const bin = await requireTool('aws', 'awscli');
  return runTool(bin, ['--endpoint-url', world.served.aws, '--output', 'json', ...args], world.awsEnv());
}

/** The parsed output of a command that must succeed. */
async function ok<T>(...args: string[]): Promise<T> {
  const run = await aws(...args);
  if (run.code !== 0) throw new Error(`aws ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return (run.stdout.trim() === '' ? {} : JSON.parse(run.stdout)) as T;
}

/** The error code of a command that must fail with a service error, as the CLI prints it. */
async function errorCode(...args: string[]): Promise<string> {
  const run = await aws(...args);
  expect(run.code, `aws ${args.join(' ')} should fail: ${run.stdout}`).toBe(254);
  return /An error occurred \(([^)]+)\)/.exec(run.stderr)?.[1] ?? run.stderr;
}

interface Instance {
  InstanceId: string;
  InstanceType: string;
  State: { Name: string };
  VpcId?: string;
  SubnetId?: string;
  SecurityGroups?: Array<{ GroupName: string }>;
}
interface Reservations {
  Reservations: Array<{ Instances: Instance[] }>;
}
const instancesOf = (r: Reservations) => r.Reservations.flatMap((x) => x.Instances);

describe('aws ec2 against the served sandbox', () => {
  it(
    'describe-regions and describe-availability-zones list the served Region and its zones',
    async () => {
      const regions = await ok<{ Regions: Array<{ RegionName: string; OptInStatus: string }> }>('ec2', 'describe-regions', '--region-names', 'eu-central-1');
      expect(regions.Regions).toEqual([expect.objectContaining({ RegionName: 'eu-central-1', OptInStatus: 'opt-in-not-required' })]);
      const zones = await ok<{ AvailabilityZones: Array<{ ZoneName: string; ZoneId: string; State: string }> }>(
        'ec2',
        'describe-availability-zones',
        '--filters',
        'Name=zone-name,Values=eu-central-1a',
      );
      expect(zones.AvailabilityZones).toEqual([expect.objectContaining({ ZoneName: 'eu-central-1a', ZoneId: 'euc1-az1', State: 'available' })]);
    },
    CLI_TEST_MS,
  );

  it(
    'create-tags, describe-tags (by resource-id, resource-type, key and value) and delete-tags',
    async () => {
      const vpc = (await ok<{ Vpc: { VpcId: string } }>('ec2', 'create-vpc', '--cidr-block', '10.20.0.0/16')).Vpc.VpcId;
      const sg = (await ok<{ GroupId: string }>('ec2', 'create-security-group', '--group-name', 'tagged', '--description', 'tagged', '--vpc-id', vpc)).GroupId;
      await ok('ec2', 'create-tags', '--resources', vpc, sg, '--tags', 'Key=team,Value=blue', 'Key=Name,Value=cli-test');
      type Described = { Tags: Array<{ ResourceId: string; ResourceType: string; Key: string; Value: string }> };
      const byResource = await ok<Described>('ec2', 'describe-tags', '--filters', `Name=resource-id,Values=${vpc}`);
      expect(byResource.Tags.map((t) => `${t.ResourceType} ${t.Key}=${t.Value}`)).toEqual(['vpc Name=cli-test', 'vpc team=blue']);
      const byType = await ok<Described>(
        'ec2',
        'describe-tags',
        '--filters',
        'Name=resource-type,Values=security-group',
        'Name=key,Values=team',
        'Name=value,Values=blue',
      );
      expect(byType.Tags.map((t) => t.ResourceId)).toEqual([sg]);
      await ok('ec2', 'delete-tags', '--resources', vpc, '--tags', 'Key=team');
      const after = await ok<Described>('ec2', 'describe-tags', '--filters', `Name=resource-id,Values=${vpc}`);
      expect(after.Tags.map((t) => t.Key)).toEqual(['Name']);
      const vpcs = await ok<{ Vpcs: Array<{ VpcId: string }> }>('ec2', 'describe-vpcs', '--filters', 'Name=tag:Name,Values=cli-*');
      expect(vpcs.Vpcs.map((v) => v.VpcId)).toEqual([vpc]);
      expect(await errorCode('ec2', 'create-tags', '--resources', 'vpc-0000000000000dead', '--tags', 'Key=a,Value=b')).toBe('InvalidVpcID.NotFound');
    },
    CLI_TEST_MS,
  );

  it(
    "answers unknown ids with the kind's NotFound and malformed ids with Malformed",
    async () => {
      expect(await errorCode('ec2', 'describe-vpcs', '--vpc-ids', 'vpc-0123456789abcdef0')).toBe('InvalidVpcID.NotFound');
      expect(await errorCode('ec2', 'describe-subnets', '--subnet-ids', 'subnet-0123456789abcdef0')).toBe('InvalidSubnetID.NotFound');
      expect(await errorCode('ec2', 'describe-security-groups', '--group-ids', 'sg-0123456789abcdef0')).toBe('InvalidGroup.NotFound');
      expect(await errorCode('ec2', 'describe-instances', '--instance-ids', 'i-0123456789abcdef0')).toBe('InvalidInstanceID.NotFound');
      expect(await errorCode('ec2', 'describe-instances', '--instance-ids', 'i-bogus')).toBe('InvalidInstanceID.Malformed');
      expect(await errorCode('ec2', 'terminate-instances', '--instance-ids', 'i-bogus')).toBe('InvalidInstanceID.Malformed');
      expect(await errorCode('ec2', 'describe-vpcs', '--vpc-ids', 'vpc-bogus')).toBe('InvalidVpcID.Malformed');
      expect(await errorCode('ec2', 'describe-security-groups', '--group-ids', 'sg-bogus')).toBe('InvalidGroupId.Malformed');
    },
    CLI_TEST_MS,
  );

  it(
    'refuses a filter name the action does not have with InvalidParameterValue',
    async () => {
      const run = await aws('ec2', 'describe-instances', '--filters', 'Name=bogus,Values=x');
      expect(run.code).toBe(254);
      expect(run.stderr).toContain("(InvalidParameterValue) when calling the DescribeInstances operation: The filter 'bogus' is invalid");
    },
    CLI_TEST_MS,
  );

  it(
    'run-instances: without an image MissingParameter; without a subnet into the default VPC; then filters, --query and terminate',
    async () => {
      expect(await errorCode('ec2', 'run-instances', '--instance-type', 't3.small')).toBe('MissingParameter');
      const launched = await ok<{ Instances: Instance[] }>(
        'ec2',
        'run-instances',
        '--image-id',
        'ami-0965bd5ba4d59211c',
        '--instance-type',
        't3.medium',
        '--count',
        '2',
        '--placement',
        'AvailabilityZone=eu-central-1b',
        '--tag-specifications',
        'ResourceType=instance,Tags=[{Key=role,Value=cli-run}]',
      );
      const defaultVpc = await ok<{ Vpcs: Array<{ VpcId: string }> }>('ec2', 'describe-vpcs', '--filters', 'Name=is-default,Values=true');
      expect(launched.Instances.map((i) => i.VpcId)).toEqual([defaultVpc.Vpcs[0]?.VpcId, defaultVpc.Vpcs[0]?.VpcId]);
      expect(launched.Instances[0]?.SecurityGroups?.map((g) => g.GroupName)).toEqual(['default']);
      const ids = launched.Instances.map((i) => i.InstanceId);
      const queried = await ok<string[]>(
        'ec2',
        'describe-instances',
        '--filters',
        'Name=tag:role,Values=cli-run',
        'Name=instance-type,Values=t3.medium',
        'Name=availability-zone,Values=eu-central-1b',
        '--query',
        'Reservations[].Instances[].InstanceId',
      );
      expect([...queried].sort()).toEqual([...ids].sort());
      const terminated = await ok<{ TerminatingInstances: Array<{ InstanceId: string; CurrentState: { Name: string } }> }>(
        'ec2',
        'terminate-instances',
        '--instance-ids',
        ...ids,
      );
      expect(terminated.TerminatingInstances.map((t) => t.CurrentState.Name)).toEqual(['shutting-down', 'shutting-down']);
      const running = instancesOf(
        await ok<Reservations>('ec2', 'describe-instances', '--filters', 'Name=tag:role,Values=cli-run', 'Name=instance-state-name,Values=running'),
      );
      expect(running).toEqual([]);
    },
    CLI_TEST_MS,
  );

  it(
    'stop-instances and start-instances move an instance through stopping, stopped, pending and running',
    async () => {
      const id =
        (await ok<{ Instances: Instance[] }>('ec2', 'run-instances', '--image-id', 'ami-0965bd5ba4d59211c', '--instance-type', 't3.small')).Instances[0]
          ?.InstanceId ?? '';
      const reach = async (state: string) => {
        for (let tries = 0; tries < 30; tries++) {
          const states = await ok<string[]>('ec2', 'describe-instances', '--instance-ids', id, '--query', 'Reservations[].Instances[].State.Name');
          if (states[0] === state) return;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        throw new Error(`${id} never reached ${state}`);
      };
      await reach('running');
      const stopping = await ok<{ StoppingInstances: Array<{ CurrentState: { Name: string }; PreviousState: { Name: string } }> }>(
        'ec2',
        'stop-instances',
        '--instance-ids',
        id,
      );
      expect(stopping.StoppingInstances.map((x) => [x.PreviousState.Name, x.CurrentState.Name])).toEqual([['running', 'stopping']]);
      await reach('stopped');
      const starting = await ok<{ StartingInstances: Array<{ CurrentState: { Name: string } }> }>('ec2', 'start-instances', '--instance-ids', id);
      expect(starting.StartingInstances.map((x) => x.CurrentState.Name)).toEqual(['pending']);
      await reach('running');
      await ok('ec2', 'terminate-instances', '--instance-ids', id);
    },
    CLI_TEST_MS,
  );

  it(
    'authorize-security-group-ingress shows in describe-security-groups, and a duplicate rule is InvalidPermission.Duplicate',
    async () => {
      const vpc = (await ok<{ Vpc: { VpcId: string } }>('ec2', 'create-vpc', '--cidr-block', '10.30.0.0/16')).Vpc.VpcId;
      const sg = (await ok<{ GroupId: string }>('ec2', 'create-security-group', '--group-name', 'web', '--description', 'web', '--vpc-id', vpc)).GroupId;
      await ok('ec2', 'authorize-security-group-ingress', '--group-id', sg, '--protocol', 'tcp', '--port', '443', '--cidr', '0.0.0.0/0');
      const described = await ok<{
        SecurityGroups: Array<{ IpPermissions: Array<{ IpProtocol: string; FromPort: number; ToPort: number; IpRanges: Array<{ CidrIp: string }> }> }>;
      }>('ec2', 'describe-security-groups', '--group-ids', sg);
      expect(described.SecurityGroups[0]?.IpPermissions).toEqual([
        expect.objectContaining({ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: '0.0.0.0/0' }] }),
      ]);
      expect(await errorCode('ec2', 'authorize-security-group-ingress', '--group-id', sg, '--protocol', 'tcp', '--port', '443', '--cidr', '0.0.0.0/0')).toBe(
        'InvalidPermission.Duplicate',
      );
    },
    CLI_TEST_MS,
  );

  it(
    'run-instances without a subnet in a Region whose default VPC was deleted is VPCIdNotSpecified',
    async () => {
      const inRegion = (...args: string[]) => [...args, '--region', 'us-west-2'];
      const vpc =
        (await ok<{ Vpcs: Array<{ VpcId: string }> }>(...inRegion('ec2', 'describe-vpcs', '--filters', 'Name=is-default,Values=true'))).Vpcs[0]?.VpcId ?? '';
      expect(await errorCode(...inRegion('ec2', 'delete-vpc', '--vpc-id', vpc))).toBe('DependencyViolation');
      const subnets = await ok<{ Subnets: Array<{ SubnetId: string }> }>(...inRegion('ec2', 'describe-subnets', '--filters', `Name=vpc-id,Values=${vpc}`));
      for (const s of subnets.Subnets) await ok(...inRegion('ec2', 'delete-subnet', '--subnet-id', s.SubnetId));
      const igws = await ok<{ InternetGateways: Array<{ InternetGatewayId: string }> }>(
        ...inRegion('ec2', 'describe-internet-gateways', '--filters', `Name=attachment.vpc-id,Values=${vpc}`),
      );
      for (const g of igws.InternetGateways) {
        await ok(...inRegion('ec2', 'detach-internet-gateway', '--internet-gateway-id', g.InternetGatewayId, '--vpc-id', vpc));
        await ok(...inRegion('ec2', 'delete-internet-gateway', '--internet-gateway-id', g.InternetGatewayId));
      }
      await ok(...inRegion('ec2', 'delete-vpc', '--vpc-id', vpc));
      const run = await aws(...inRegion('ec2', 'run-instances', '--image-id', 'ami-0965bd5ba4d59211c', '--instance-type', 't3.small'));
      expect(run.code).toBe(254);
      expect(run.stderr).toContain('(VPCIdNotSpecified) when calling the RunInstances operation: No default VPC for this user');
    },
    CLI_TEST_MS,
  );
});

describe('aws route53 against the served sandbox', () => {
  it(
    'list-hosted-zones, get-hosted-zone and list-hosted-zones-by-name',
    async () => {
      const listed = await ok<{ HostedZones: Array<{ Id: string; Name: string }>; IsTruncated: boolean }>('route53', 'list-hosted-zones');
      const zone = listed.HostedZones.find((z) => z.Name === 'example.com.');
      expect(zone?.Id).toMatch(/^\/hostedzone\//);
      const got = await ok<{ HostedZone: { Id: string; Name: string }; DelegationSet: { NameServers: string[] } }>(
        'route53',
        'get-hosted-zone',
        '--id',
        zone?.Id ?? '',
      );
      expect(got.HostedZone).toMatchObject({ Id: zone?.Id, Name: 'example.com.' });
      expect(got.DelegationSet.NameServers.length).toBeGreaterThan(0);
      const byName = await ok<{ HostedZones: Array<{ Name: string }> }>('route53', 'list-hosted-zones-by-name', '--dns-name', 'example.com');
      expect(byName.HostedZones[0]?.Name).toBe('example.com.');
      expect(await errorCode('route53', 'get-hosted-zone', '--id', 'Z0NOSUCHZONE')).toBe('NoSuchHostedZone');
    },
    CLI_TEST_MS,
  );

  it(
    "change-resource-record-sets, get-change and list-resource-record-sets in Route 53's order (labels reversed, then type)",
    async () => {
      const zoneId =
        (await ok<{ HostedZones: Array<{ Id: string; Name: string }> }>('route53', 'list-hosted-zones')).HostedZones.find((z) => z.Name === 'example.com.')
          ?.Id ?? '';
      const record = (name: string, type: string, value: string) => ({
        Action: 'CREATE',
        ResourceRecordSet: { Name: name, Type: type, TTL: 60, ResourceRecords: [{ Value: value }] },
      });
      const batch = {
        Changes: [
          record('www.example.com', 'A', '192.0.2.10'),
          record('api.example.com', 'A', '192.0.2.11'),
          record('a.www.example.com', 'A', '192.0.2.12'),
          record('www.example.com', 'TXT', '"v=1"'),
        ],
      };
      const change = await ok<{ ChangeInfo: { Id: string; Status: string } }>(
        'route53',
        'change-resource-record-sets',
        '--hosted-zone-id',
        zoneId,
        '--change-batch',
        JSON.stringify(batch),
      );
      expect(change.ChangeInfo.Status).toBe('PENDING');
      const got = await ok<{ ChangeInfo: { Id: string } }>('route53', 'get-change', '--id', change.ChangeInfo.Id);
      expect(got.ChangeInfo.Id).toBe(change.ChangeInfo.Id);
      const listed = await ok<{ ResourceRecordSets: Array<{ Name: string; Type: string }> }>(
        'route53',
        'list-resource-record-sets',
        '--hosted-zone-id',
        zoneId,
      );
      expect(listed.ResourceRecordSets.map((r) => `${r.Name} ${r.Type}`)).toEqual([
        'example.com. NS',
        'example.com. SOA',
        'api.example.com. A',
        'www.example.com. A',
        'www.example.com. TXT',
        'a.www.example.com. A',
      ]);
      // The CLI's own paging (--max-items over pages of --page-size) walks the same order.
      const paged = await ok<{ ResourceRecordSets: Array<{ Name: string; Type: string }> }>(
        'route53',
        'list-resource-record-sets',
        '--hosted-zone-id',
        zoneId,
        '--page-size',
        '2',
      );
      expect(paged.ResourceRecordSets.map((r) => `${r.Name} ${r.Type}`)).toEqual(listed.ResourceRecordSets.map((r) => `${r.Name} ${r.Type}`));
      const from = await ok<{ ResourceRecordSets: Array<{ Name: string; Type: string }> }>(
        'route53',
        'list-resource-record-sets',
        '--hosted-zone-id',
        zoneId,
        '--start-record-name',
        'www.example.com',
        '--start-record-type',
        'TXT',
        '--max-items',
        '2',
      );
      expect(from.ResourceRecordSets.map((r) => `${r.Name} ${r.Type}`)).toEqual(['www.example.com. TXT', 'a.www.example.com. A']);
    },
    CLI_TEST_MS,
  );
});

describe('aws sts against the served sandbox', () => {
  it(
    'get-caller-identity on the same endpoint (the signature names the service), at the global and a Regional endpoint, and SignatureDoesNotMatch for a wrong secret',
    async () => {
      const identity = await ok<{ Account: string; Arn: string }>('sts', 'get-caller-identity');
      expect(identity).toMatchObject({ Account: '123456789012', Arn: expect.stringMatching(/^arn:aws:iam::123456789012:user\//) });
      expect(await ok<{ Account: string }>('sts', 'get-caller-identity', '--region', 'eu-west-1')).toMatchObject({ Account: '123456789012' });
      const bin = await requireTool('aws', 'awscli');
      const wrong = await runTool(bin, ['--endpoint-url', world.served.aws, 'sts', 'get-caller-identity'], {
        ...world.awsEnv(),
        AWS_SECRET_ACCESS_KEY: 'not-the-secret',
      });
      expect(wrong.code).toBe(254);
      expect(wrong.stderr).toContain('SignatureDoesNotMatch');
    },
    CLI_TEST_MS,
  );
});
