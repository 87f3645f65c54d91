// The AWS CLI v2 (Debian's /usr/bin/aws) against the served EC2, Route 53 and STS: the describe calls a user runs with
// their documented filters, dry runs, the AMI's fields, tags, record sets good and bad, health checks, the caller's
// identity, and commands the sandbox does not emulate, which it must refuse in its own words.
import { SANDBOX_SSH_PUBLIC_KEY } from '@kubeplane/sandbox';
import { type CliOp, check, json, type SweepVars } from './ops.js';

/** The sealed sandbox's refusal of what it does not emulate (aws-not-emulated.ts), as the CLI prints it. */
const NOT_EMULATED = /the sandbox does not emulate/;
const ZONE = 'Z0SANDBOX00001';
const CANONICAL = '099720109477';

/** The CLI's JSON output, read field by field by the checks. */
// biome-ignore lint/suspicious/noExplicitAny: the checks read the CLI's JSON as it comes, field by field.
type Json = Record<string, any>;

/** A change batch as the table names it: each change's action, type, name and values or alias target. */
function changeSummary(text: string): string {
  const batch = JSON.parse(text) as { Comment?: string; Changes: Array<{ Action: string; ResourceRecordSet: Json }> };
  const comment = batch.Comment ? ` (${batch.Comment})` : '';
  return `${batch.Changes.map(({ Action, ResourceRecordSet: r }) => {
    const values = r['ResourceRecords'] ? ` ${(r['ResourceRecords'] as Json[]).map((x) => x['Value']).join(',')}` : '';
    const alias = r['AliasTarget'] ? ` alias of ${r['AliasTarget'].DNSName}` : '';
    const set = r['SetIdentifier'] ? ` [${r['SetIdentifier']}${r['Weight'] !== undefined ? ` weight ${r['Weight']}` : ''}]` : '';
    return `${Action} ${r['Type']} ${r['Name']}${values}${alias}${set}`;
  }).join('; ')}${comment}`;
}

/**
 * An operation's name in the table: the command and its arguments, the values earlier operations leave shown as
 * `<name>`, a change batch summarized.
 */
function label(command: string, args: CliOp['args']): string {
  const placeholders = new Proxy({}, { get: (_, key) => `<${String(key)}>` }) as SweepVars;
  const list = typeof args === 'function' ? args(placeholders) : args;
  const shown = list.slice(2).map((arg) => (arg.startsWith('{"Changes"') ? changeSummary(arg) : arg.length > 60 ? `${arg.slice(0, 57)}...` : arg));
  return [command, ...shown].join(' ');
}

const right = (api: string, operation: string, expect: string, args: CliOp['args'], checkRun?: (out: Json, vars: SweepVars) => void): CliOp => ({
  api,
  operation: label(operation, args),
  expect,
  outcome: 'right',
  args,
  ...(checkRun ? { check: (run, vars) => checkRun(run.stdout.trim() === '' ? {} : json<Json>(run), vars) } : {}),
});
const refused = (api: string, operation: string, expect: string, args: CliOp['args'], refusal: RegExp): CliOp => ({
  api,
  operation: label(operation, args),
  expect,
  outcome: 'refused',
  args,
  refusal,
});
const ec2 = (operation: string, expect: string, args: CliOp['args'], checkRun?: (out: Json, vars: SweepVars) => void) =>
  right('EC2', `ec2 ${operation}`, expect, typeof args === 'function' ? (v) => ['ec2', operation, ...args(v)] : ['ec2', operation, ...args], checkRun);
const ec2Refused = (operation: string, expect: string, args: CliOp['args'], refusal: RegExp) =>
  refused('EC2', `ec2 ${operation}`, expect, typeof args === 'function' ? (v) => ['ec2', operation, ...args(v)] : ['ec2', operation, ...args], refusal);
const r53 = (operation: string, expect: string, args: CliOp['args'], checkRun?: (out: Json, vars: SweepVars) => void) =>
  right(
    'Route 53',
    `route53 ${operation}`,
    expect,
    typeof args === 'function' ? (v) => ['route53', operation, ...args(v)] : ['route53', operation, ...args],
    checkRun,
  );
const r53Refused = (operation: string, expect: string, args: CliOp['args'], refusal: RegExp) =>
  refused(
    'Route 53',
    `route53 ${operation}`,
    expect,
    typeof args === 'function' ? (v) => ['route53', operation, ...args(v)] : ['route53', operation, ...args],
    refusal,
  );

const instances = (out: Json): Json[] => (out['Reservations'] as Json[]).flatMap((r) => r['Instances'] as Json[]);
const batch = (...changes: unknown[]) => ['--hosted-zone-id', ZONE, '--change-batch', JSON.stringify({ Changes: changes })];
const batchWithComment = (comment: string, ...changes: unknown[]) => [
  '--hosted-zone-id',
  ZONE,
  '--change-batch',
  JSON.stringify({ Changes: changes, Comment: comment }),
];
const a = (name: string, value: string, extra: Record<string, unknown> = {}) => ({
  Action: 'CREATE',
  ResourceRecordSet: { Name: name, Type: 'A', TTL: 60, ResourceRecords: [{ Value: value }], ...extra },
});
const tagSpec = (type: string) => ['--tag-specifications', `ResourceType=${type},Tags=[{Key=sweep,Value=aws-cli}]`];

export const AWS_CLI_OPS: CliOp[] = [
  // The catalog: Regions, zones, instance types and Canonical's images.
  ec2('describe-regions', "the account's Regions: eu-central-1, no opt-in Region", [], (out) => {
    const names = (out['Regions'] as Json[]).map((r) => r['RegionName']);
    check(names.includes('eu-central-1') && !names.includes('af-south-1'), String(names));
  }),
  ec2(
    'describe-regions',
    'every Region not opted in, by the opt-in-status filter',
    ['--all-regions', '--filters', 'Name=opt-in-status,Values=not-opted-in'],
    (out) => {
      const regions = out['Regions'] as Json[];
      check(regions.length > 0 && regions.every((r) => r['OptInStatus'] === 'not-opted-in'), JSON.stringify(regions));
    },
  ),
  ec2(
    'describe-availability-zones',
    'the three zones of eu-central-1 by group-name and zone-type',
    ['--filters', 'Name=group-name,Values=eu-central-1', 'Name=zone-type,Values=availability-zone'],
    (out) => {
      const zones = (out['AvailabilityZones'] as Json[]).map((z) => z['ZoneName']);
      check(JSON.stringify(zones) === JSON.stringify(['eu-central-1a', 'eu-central-1b', 'eu-central-1c']), String(zones));
    },
  ),
  ec2('describe-instance-types', 't3.micro: 2 vCPUs, 1 GiB, burstable', ['--instance-types', 't3.micro'], (out) => {
    const t = (out['InstanceTypes'] as Json[])[0] ?? {};
    check(t['VCpuInfo']?.DefaultVCpus === 2 && t['MemoryInfo']?.SizeInMiB === 1024 && t['BurstablePerformanceSupported'] === true, JSON.stringify(t));
  }),
  ec2(
    'describe-instance-types',
    'only arm64 types by processor-info.supported-architecture',
    ['--filters', 'Name=processor-info.supported-architecture,Values=arm64'],
    (out) => {
      const types = out['InstanceTypes'] as Json[];
      check(types.length > 0 && types.every((t) => t['ProcessorInfo'].SupportedArchitectures.includes('arm64')), JSON.stringify(types.slice(0, 2)));
    },
  ),
  ec2Refused(
    'describe-instance-types',
    "current-generation, which the sandbox's catalog does not know, refused in its words",
    ['--filters', 'Name=current-generation,Values=true'],
    /UnsupportedOperation.*the sandbox does not emulate the filter 'current-generation'/,
  ),
  ec2(
    'describe-instance-type-offerings',
    't3.micro in each zone, by location type availability-zone',
    ['--location-type', 'availability-zone', '--filters', 'Name=instance-type,Values=t3.micro'],
    (out) => {
      const zones = (out['InstanceTypeOfferings'] as Json[]).map((o) => o['Location']).sort();
      check(zones.length === 3 && zones[0] === 'eu-central-1a', String(zones));
    },
  ),
  ec2(
    'describe-images',
    "Canonical's noble amd64 image by owner and a name wildcard, with every documented field",
    ['--owners', CANONICAL, '--filters', 'Name=name,Values=ubuntu/images/*noble*amd64*'],
    (out, vars) => {
      const images = out['Images'] as Json[];
      check(images.length === 1, `${images.length} images`);
      const i = images[0] as Json;
      const root = (i['BlockDeviceMappings'] as Json[]).find((m) => m['DeviceName'] === i['RootDeviceName'])?.['Ebs'] ?? {};
      check(/^ami-[0-9a-f]{17}$/.test(i['ImageId']), String(i['ImageId']));
      check(/^\d{4}-\d\d-\d\dT/.test(i['CreationDate']) && i['DeprecationTime'], 'CreationDate/DeprecationTime');
      check(/^snap-[0-9a-f]{17}$/.test(root['SnapshotId']) && root['VolumeSize'] === 8 && root['VolumeType'] === 'gp3', JSON.stringify(root));
      check(root['DeleteOnTermination'] === true && root['Encrypted'] === false, JSON.stringify(root));
      check(i['RootDeviceType'] === 'ebs' && i['VirtualizationType'] === 'hvm' && i['Hypervisor'] === 'xen' && i['EnaSupport'] === true, 'device fields');
      check(i['SriovNetSupport'] === 'simple' && i['PlatformDetails'] === 'Linux/UNIX' && i['UsageOperation'] === 'RunInstances', 'platform fields');
      check(i['OwnerId'] === CANONICAL && typeof i['ImageLocation'] === 'string' && i['BootMode'] === 'uefi-preferred', 'owner, location, boot mode');
      vars['ami'] = i['ImageId'];
    },
  ),
  ec2(
    'describe-images',
    'the same image by its id',
    (v) => ['--image-ids', v['ami'] ?? ''],
    (out, vars) => {
      check((out['Images'] as Json[])[0]?.['ImageId'] === vars['ami'], JSON.stringify(out));
    },
  ),
  ec2(
    'describe-images',
    'only arm64 images by architecture and owner-id',
    ['--filters', 'Name=architecture,Values=arm64', `Name=owner-id,Values=${CANONICAL}`],
    (out) => {
      const images = out['Images'] as Json[];
      check(images.length > 0 && images.every((i) => i['Architecture'] === 'arm64'), JSON.stringify(images.map((i) => i['Name'])));
    },
  ),
  ec2(
    'describe-images',
    'no image by a block-device-mapping.volume-type no image has',
    ['--owners', CANONICAL, '--filters', 'Name=block-device-mapping.volume-type,Values=io2'],
    (out) => {
      check((out['Images'] as Json[]).length === 0, JSON.stringify(out));
    },
  ),
  ec2Refused('describe-images', "Amazon's images, which the catalog does not hold: refused in the sandbox's words", ['--owners', 'amazon'], NOT_EMULATED),
  ec2Refused(
    'describe-images',
    "an unknown filter, in EC2's words",
    ['--filters', 'Name=bogus,Values=x'],
    /InvalidParameterValue.*The filter 'bogus' is invalid/,
  ),
  // The default VPC and its parts, by their filters.
  ec2('describe-vpcs', 'the default VPC by is-default, with its CIDR association and DHCP options', ['--filters', 'Name=is-default,Values=true'], (out) => {
    const vpcs = out['Vpcs'] as Json[];
    const v = vpcs[0] ?? {};
    check(vpcs.length === 1 && v['CidrBlock'] === '172.31.0.0/16', JSON.stringify(vpcs));
    check(v['CidrBlockAssociationSet']?.[0]?.CidrBlockState?.State === 'associated' && /^dopt-/.test(v['DhcpOptionsId']), JSON.stringify(v));
  }),
  ec2(
    'describe-subnets',
    'the default subnet of eu-central-1b, a /20 with 4091 free addresses',
    ['--filters', 'Name=default-for-az,Values=true', 'Name=availability-zone,Values=eu-central-1b'],
    (out) => {
      const subnets = out['Subnets'] as Json[];
      check(
        subnets.length === 1 && subnets[0]?.['AvailableIpAddressCount'] === 4091 && /^arn:aws:ec2:eu-central-1:/.test(subnets[0]?.['SubnetArn']),
        JSON.stringify(subnets),
      );
    },
  ),
  ec2(
    'describe-route-tables',
    "the default VPC's main table, routed to its internet gateway",
    ['--filters', 'Name=association.main,Values=true', 'Name=route.gateway-id,Values=igw-*'],
    (out) => {
      const tables = out['RouteTables'] as Json[];
      check(tables.length === 1 && tables[0]?.['Routes'].some((r: Json) => /^igw-/.test(r['GatewayId'])), JSON.stringify(tables));
    },
  ),
  ec2('describe-internet-gateways', 'the attached gateway by attachment.state', ['--filters', 'Name=attachment.state,Values=available'], (out) => {
    check((out['InternetGateways'] as Json[]).length === 1, JSON.stringify(out));
  }),
  // A VPC of one's own; dry runs change nothing.
  ec2Refused(
    'create-vpc',
    'DryRunOperation, and no VPC',
    ['--dry-run', '--cidr-block', '10.40.0.0/16', ...tagSpec('vpc')],
    /DryRunOperation.*Request would have succeeded, but DryRun flag is set/,
  ),
  ec2('describe-vpcs', 'no VPC tagged by the dry run', ['--filters', 'Name=tag:sweep,Values=aws-cli'], (out) => {
    check((out['Vpcs'] as Json[]).length === 0, JSON.stringify(out));
  }),
  ec2('create-vpc', 'a VPC with the tags asked for', ['--cidr-block', '10.40.0.0/16', ...tagSpec('vpc')], (out, vars) => {
    vars['vpc'] = out['Vpc'].VpcId;
    check(/^vpc-[0-9a-f]{17}$/.test(vars['vpc'] ?? ''), JSON.stringify(out));
  }),
  ec2Refused('create-vpc', 'a dry run with a bad CIDR gets the real error', ['--dry-run', '--cidr-block', '10.40.0.0/8'], /InvalidVpc\.Range/),
  ec2(
    'create-subnet',
    'a /24 with 251 free addresses',
    (v) => ['--vpc-id', v['vpc'] ?? '', '--cidr-block', '10.40.1.0/24', '--availability-zone', 'eu-central-1a'],
    (out, vars) => {
      vars['subnet'] = out['Subnet'].SubnetId;
      check(out['Subnet'].AvailableIpAddressCount === 251, JSON.stringify(out));
    },
  ),
  ec2Refused(
    'create-security-group',
    'DryRunOperation',
    (v) => ['--dry-run', '--group-name', 'sweep', '--description', 'sweep', '--vpc-id', v['vpc'] ?? ''],
    /DryRunOperation/,
  ),
  ec2(
    'create-security-group',
    'a group in the VPC',
    (v) => ['--group-name', 'sweep', '--description', 'sweep', '--vpc-id', v['vpc'] ?? ''],
    (out, vars) => {
      vars['sg'] = out['GroupId'];
    },
  ),
  ec2('authorize-security-group-ingress', 'SSH from anywhere', (v) => [
    '--group-id',
    v['sg'] ?? '',
    '--protocol',
    'tcp',
    '--port',
    '22',
    '--cidr',
    '0.0.0.0/0',
  ]),
  ec2(
    'describe-security-groups',
    'the group by ip-permission.from-port and vpc-id',
    (v) => ['--filters', 'Name=ip-permission.from-port,Values=22', `Name=vpc-id,Values=${v['vpc'] ?? ''}`],
    (out, vars) => {
      const groups = out['SecurityGroups'] as Json[];
      check(groups.length === 1 && groups[0]?.['GroupId'] === vars['sg'], JSON.stringify(groups));
    },
  ),
  ec2(
    'describe-security-groups',
    'no group of the VPC allows port 80',
    (v) => ['--filters', 'Name=ip-permission.to-port,Values=80', `Name=vpc-id,Values=${v['vpc'] ?? ''}`],
    (out) => {
      check((out['SecurityGroups'] as Json[]).length === 0, JSON.stringify(out));
    },
  ),
  ec2(
    'import-key-pair',
    'the key, with its fingerprint',
    ['--key-name', 'sweep-key', '--public-key-material', Buffer.from(SANDBOX_SSH_PUBLIC_KEY).toString('base64')],
    (out) => {
      check(out['KeyName'] === 'sweep-key' && /^key-/.test(out['KeyPairId']), JSON.stringify(out));
    },
  ),
  ec2('describe-key-pairs', 'the key by a key-name wildcard', ['--filters', 'Name=key-name,Values=sweep-*'], (out) => {
    check((out['KeyPairs'] as Json[]).map((k) => k['KeyName']).join() === 'sweep-key', JSON.stringify(out));
  }),
  // Instances: a dry run launches nothing; a real launch is found by its filters.
  ec2Refused(
    'run-instances',
    'DryRunOperation, and no instance',
    (v) => ['--dry-run', '--image-id', v['ami'] ?? '', '--instance-type', 't3.micro', '--subnet-id', v['subnet'] ?? ''],
    /DryRunOperation.*Request would have succeeded, but DryRun flag is set/,
  ),
  ec2('describe-instances', 'no instance after the dry run', [], (out) => {
    check(instances(out).length === 0, JSON.stringify(out));
  }),
  ec2Refused(
    'run-instances',
    "a dry run with a malformed AMI id gets EC2's error",
    ['--dry-run', '--image-id', 'ami-123', '--instance-type', 't3.micro'],
    /InvalidAMIID\.Malformed/,
  ),
  ec2(
    'run-instances',
    'one t3.micro in the subnet, with the key and tags asked for',
    (v) => [
      '--image-id',
      v['ami'] ?? '',
      '--instance-type',
      't3.micro',
      '--subnet-id',
      v['subnet'] ?? '',
      '--security-group-ids',
      v['sg'] ?? '',
      '--key-name',
      'sweep-key',
      ...tagSpec('instance'),
    ],
    (out, vars) => {
      const i = (out['Instances'] as Json[])[0] ?? {};
      vars['instance'] = i['InstanceId'];
      check(i['SubnetId'] === vars['subnet'] && i['KeyName'] === 'sweep-key', JSON.stringify(i));
    },
  ),
  ec2(
    'describe-instances',
    'the instance by tag and instance-type',
    ['--filters', 'Name=tag:sweep,Values=aws-cli', 'Name=instance-type,Values=t3.micro'],
    (out, vars) => {
      check(
        instances(out)
          .map((i) => i['InstanceId'])
          .join() === vars['instance'],
        JSON.stringify(instances(out).map((i) => i['InstanceId'])),
      );
    },
  ),
  ec2(
    'describe-instances',
    'the instance by a t3.* wildcard, its root device and key name',
    ['--filters', 'Name=instance-type,Values=t3.*', 'Name=block-device-mapping.device-name,Values=/dev/sda1', 'Name=key-name,Values=sweep-key'],
    (out) => {
      check(instances(out).length === 1, JSON.stringify(out));
    },
  ),
  ec2('describe-instances', 'nothing for an instance type no instance has', ['--filters', 'Name=instance-type,Values=m5.large'], (out) => {
    check(instances(out).length === 0, JSON.stringify(out));
  }),
  ec2('describe-instances', 'nothing for a platform (every sandbox image is Linux)', ['--filters', 'Name=platform,Values=windows'], (out) => {
    check(instances(out).length === 0, JSON.stringify(out));
  }),
  ec2Refused(
    'describe-instances',
    "an unknown filter, in EC2's words",
    ['--filters', 'Name=public-ip,Values=1.2.3.4'],
    /InvalidParameterValue.*The filter 'public-ip' is invalid/,
  ),
  ec2(
    'describe-volumes',
    "the instance's root volume, gp3 from the AMI's snapshot",
    (v) => ['--filters', `Name=attachment.instance-id,Values=${v['instance'] ?? ''}`],
    (out) => {
      const volumes = out['Volumes'] as Json[];
      check(volumes.length === 1 && volumes[0]?.['VolumeType'] === 'gp3' && /^snap-/.test(volumes[0]?.['SnapshotId']), JSON.stringify(volumes));
    },
  ),
  ec2('create-tags', 'a tag on the instance', (v) => ['--resources', v['instance'] ?? '', '--tags', 'Key=team,Value=blue']),
  ec2(
    'describe-tags',
    'the tag by resource-id and key',
    (v) => ['--filters', `Name=resource-id,Values=${v['instance'] ?? ''}`, 'Name=key,Values=team'],
    (out) => {
      const tags = out['Tags'] as Json[];
      check(tags.length === 1 && tags[0]?.['Value'] === 'blue' && tags[0]?.['ResourceType'] === 'instance', JSON.stringify(tags));
    },
  ),
  ec2('delete-tags', 'the tag gone', (v) => ['--resources', v['instance'] ?? '', '--tags', 'Key=team']),
  ec2('describe-tags', 'no team tag left', ['--filters', 'Name=key,Values=team'], (out) => {
    check((out['Tags'] as Json[]).length === 0, JSON.stringify(out));
  }),
  ec2Refused('terminate-instances', 'DryRunOperation, and the instance lives', (v) => ['--dry-run', '--instance-ids', v['instance'] ?? ''], /DryRunOperation/),
  ec2(
    'describe-instances',
    'the instance not shutting down after the dry run',
    (v) => ['--instance-ids', v['instance'] ?? ''],
    (out) => {
      const state = instances(out)[0]?.['State'].Name;
      check(state === 'pending' || state === 'running', String(state));
    },
  ),
  ec2Refused('allocate-address', 'DryRunOperation', ['--dry-run', '--domain', 'vpc'], /DryRunOperation/),
  ec2('allocate-address', 'an Elastic IP', ['--domain', 'vpc'], (out, vars) => {
    vars['eip'] = out['AllocationId'];
  }),
  ec2(
    'describe-addresses',
    'the address by network-border-group and domain',
    ['--filters', 'Name=network-border-group,Values=eu-central-1', 'Name=domain,Values=vpc'],
    (out, vars) => {
      check((out['Addresses'] as Json[]).map((x) => x['AllocationId']).join() === vars['eip'], JSON.stringify(out));
    },
  ),
  ec2('release-address', 'released', (v) => ['--allocation-id', v['eip'] ?? '']),
  ec2(
    'terminate-instances',
    'shutting-down',
    (v) => ['--instance-ids', v['instance'] ?? ''],
    (out) => {
      check(out['TerminatingInstances'][0].CurrentState.Name === 'shutting-down', JSON.stringify(out));
    },
  ),
  ec2Refused('describe-snapshots', "not emulated: refused in the sandbox's words", ['--owner-ids', 'self'], NOT_EMULATED),
  ec2Refused('create-nat-gateway', "not emulated: refused in the sandbox's words", (v) => ['--subnet-id', v['subnet'] ?? ''], NOT_EMULATED),
  ec2Refused('describe-launch-templates', "not emulated: refused in the sandbox's words", [], NOT_EMULATED),
  // Route 53: record sets as Route 53 checks them, weighted and alias records, health checks.
  r53('list-hosted-zones', 'example.com.', [], (out) => {
    check(
      (out['HostedZones'] as Json[]).some((z) => z['Name'] === 'example.com.'),
      JSON.stringify(out),
    );
  }),
  r53('change-resource-record-sets', 'an A record: PENDING', batch(a('www.example.com', '192.0.2.10')), (out) => {
    check(out['ChangeInfo'].Status === 'PENDING', JSON.stringify(out));
  }),
  r53Refused(
    'change-resource-record-sets',
    "the same CREATE again: InvalidChangeBatch, in Route 53's words",
    batchWithComment('again', a('www.example.com', '192.0.2.10')),
    /InvalidChangeBatch.*Tried to create resource record set \[name='www\.example\.com\.', type='A'\] but it already exists/,
  ),
  r53Refused(
    'change-resource-record-sets',
    'an A record whose value is no address',
    batch(a('bad.example.com', 'not-an-ip')),
    /InvalidChangeBatch.*ARRDATAIllegalIPv4Address/,
  ),
  r53Refused(
    'change-resource-record-sets',
    'an AAAA record with an IPv4 value',
    batch({ Action: 'CREATE', ResourceRecordSet: { Name: 'v6.example.com', Type: 'AAAA', TTL: 60, ResourceRecords: [{ Value: '192.0.2.1' }] } }),
    /InvalidChangeBatch.*AAAARRDATAIllegalIPv6Address/,
  ),
  r53Refused(
    'change-resource-record-sets',
    'a CNAME at the apex',
    batch({ Action: 'CREATE', ResourceRecordSet: { Name: 'example.com', Type: 'CNAME', TTL: 60, ResourceRecords: [{ Value: 'other.example.net' }] } }),
    /InvalidChangeBatch.*not permitted at apex/,
  ),
  r53Refused(
    'change-resource-record-sets',
    'a TXT value without quotes',
    batch({ Action: 'CREATE', ResourceRecordSet: { Name: 'txt.example.com', Type: 'TXT', TTL: 60, ResourceRecords: [{ Value: 'hello' }] } }),
    /InvalidChangeBatch.*InvalidCharacterString/,
  ),
  r53Refused(
    'change-resource-record-sets',
    'a SetIdentifier without a routing policy',
    batch(a('set.example.com', '192.0.2.1', { SetIdentifier: 'one' })),
    /InvalidInput/,
  ),
  r53(
    'change-resource-record-sets',
    'two weighted A records',
    batch(a('w.example.com', '192.0.2.21', { SetIdentifier: 'blue', Weight: 70 }), a('w.example.com', '192.0.2.22', { SetIdentifier: 'green', Weight: 30 })),
  ),
  r53(
    'change-resource-record-sets',
    'an alias to the www record',
    batch({
      Action: 'CREATE',
      ResourceRecordSet: { Name: 'alias.example.com', Type: 'A', AliasTarget: { HostedZoneId: ZONE, DNSName: 'www.example.com', EvaluateTargetHealth: false } },
    }),
  ),
  r53Refused(
    'change-resource-record-sets',
    'an alias to a record that does not exist',
    batch({
      Action: 'CREATE',
      ResourceRecordSet: {
        Name: 'alias2.example.com',
        Type: 'A',
        AliasTarget: { HostedZoneId: ZONE, DNSName: 'nothing.example.com', EvaluateTargetHealth: false },
      },
    }),
    /InvalidChangeBatch/,
  ),
  r53('list-resource-record-sets', 'the weighted records with their weights, the alias with its target', ['--hosted-zone-id', ZONE], (out) => {
    const sets = out['ResourceRecordSets'] as Json[];
    const weights = sets.filter((s) => s['Name'] === 'w.example.com.').map((s) => `${s['SetIdentifier']}=${s['Weight']}`);
    check(weights.join() === 'blue=70,green=30', String(weights));
    const alias = sets.find((s) => s['Name'] === 'alias.example.com.');
    check(alias?.['AliasTarget']?.DNSName === 'www.example.com.' && alias?.['TTL'] === undefined, JSON.stringify(alias));
  }),
  r53(
    'create-health-check',
    'an HTTP check with its defaults',
    ['--caller-reference', 'sweep-hc', '--health-check-config', 'Type=HTTP,IPAddress=192.0.2.10,Port=80,ResourcePath=/healthz'],
    (out, vars) => {
      const h = out['HealthCheck'];
      vars['hc'] = h.Id;
      check(h.HealthCheckConfig.RequestInterval === 30 && h.HealthCheckConfig.FailureThreshold === 3 && h.HealthCheckVersion === 1, JSON.stringify(h));
    },
  ),
  r53(
    'get-health-check',
    'that check, not a list',
    (v) => ['--health-check-id', v['hc'] ?? ''],
    (out, vars) => {
      check(out['HealthCheck']?.Id === vars['hc'] && out['HealthCheck'].HealthCheckConfig.ResourcePath === '/healthz', JSON.stringify(out));
    },
  ),
  r53(
    'update-health-check',
    'a new threshold, version 2',
    (v) => ['--health-check-id', v['hc'] ?? '', '--health-check-version', '1', '--failure-threshold', '5'],
    (out) => {
      check(out['HealthCheck'].HealthCheckConfig.FailureThreshold === 5 && out['HealthCheck'].HealthCheckVersion === 2, JSON.stringify(out));
    },
  ),
  r53Refused(
    'update-health-check',
    'an outdated version: HealthCheckVersionMismatch',
    (v) => ['--health-check-id', v['hc'] ?? '', '--health-check-version', '1', '--failure-threshold', '4'],
    /HealthCheckVersionMismatch/,
  ),
  r53(
    'get-health-check-status',
    "the checkers' observations",
    (v) => ['--health-check-id', v['hc'] ?? ''],
    (out) => {
      const seen = out['HealthCheckObservations'] as Json[];
      check(seen.length >= 3 && seen.every((o) => /^Success/.test(o['StatusReport'].Status)), JSON.stringify(seen));
    },
  ),
  r53('get-health-check-count', 'one', [], (out) => {
    check(out['HealthCheckCount'] === 1, JSON.stringify(out));
  }),
  r53('list-health-checks', 'the check', [], (out, vars) => {
    check((out['HealthChecks'] as Json[]).map((h) => h['Id']).join() === vars['hc'], JSON.stringify(out));
  }),
  r53('delete-health-check', 'deleted', (v) => ['--health-check-id', v['hc'] ?? '']),
  r53Refused(
    'get-health-check',
    'NoSuchHealthCheck once deleted',
    (v) => ['--health-check-id', v['hc'] ?? '', '--query', 'HealthCheck.Id'],
    /NoSuchHealthCheck/,
  ),
  r53Refused('create-hosted-zone', "not emulated: refused in the sandbox's words", ['--name', 'new.example.org', '--caller-reference', 'sweep'], NOT_EMULATED),
  r53Refused('list-traffic-policies', "not emulated: refused in the sandbox's words", [], NOT_EMULATED),
  // STS, and services the port does not serve.
  right('STS', 'sts get-caller-identity', "the sandbox account's user", ['sts', 'get-caller-identity'], (out) => {
    check(out['Account'] === '123456789012' && /:user\//.test(out['Arn']), JSON.stringify(out));
  }),
  right(
    'STS',
    'sts assume-role',
    "the provider role's session",
    ['sts', 'assume-role', '--role-arn', 'arn:aws:iam::123456789012:role/kubeplane-provider', '--role-session-name', 'sweep'],
    (out) => {
      check(
        /^ASIA/.test(out['Credentials'].AccessKeyId) && /assumed-role\/kubeplane-provider\/sweep$/.test(out['AssumedRoleUser'].Arn),
        JSON.stringify(out['AssumedRoleUser']),
      );
    },
  ),
  refused('STS', 'sts get-session-token', "not emulated: refused in the sandbox's words", ['sts', 'get-session-token'], NOT_EMULATED),
  refused('IAM', 'iam list-users', "another service: refused in the sandbox's words", ['iam', 'list-users'], NOT_EMULATED),
  refused('S3', 's3api list-buckets', "another service: refused in the sandbox's words", ['s3api', 'list-buckets'], NOT_EMULATED),
];
