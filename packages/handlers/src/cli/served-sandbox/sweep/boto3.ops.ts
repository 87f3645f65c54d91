// boto3 (Debian's python3-boto3 1.26) against the served EC2, Route 53 and STS: clients and resources as a user's script
// builds them, with the sandbox's static keys, Region eu-central-1 and one attempt per call (no retries hide an error).
import { SANDBOX_SSH_PUBLIC_KEY } from '@kubeplane/sandbox';
import type { PythonOp } from './ops.js';

export const BOTO3_PRELUDE = `
import base64, json, os
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
_kw = dict(
    endpoint_url=os.environ['SWEEP_AWS_ENDPOINT'],
    region_name='eu-central-1',
    aws_access_key_id=os.environ['AWS_ACCESS_KEY_ID'],
    aws_secret_access_key=os.environ['AWS_SECRET_ACCESS_KEY'],
    config=Config(retries={'max_attempts': 1}),
)
ec2 = boto3.client('ec2', **_kw)
ec2r = boto3.resource('ec2', **_kw)
r53 = boto3.client('route53', **_kw)
sts = boto3.client('sts', **_kw)
iam = boto3.client('iam', **_kw)
ZONE = 'Z0SANDBOX00001'
CANONICAL = '099720109477'
v = {}
def error_code(call, **kwargs):
    try:
        call(**kwargs)
    except ClientError as e:
        return e.response['Error']['Code']
    return 'ok'
def instances(out):
    return [i for r in out['Reservations'] for i in r['Instances']]
def a_record(name, value, **extra):
    record = {'Name': name, 'Type': 'A', 'TTL': 60, 'ResourceRecords': [{'Value': value}]}
    record.update(extra)
    return {'Action': 'CREATE', 'ResourceRecordSet': record}
def change(*changes):
    return r53.change_resource_record_sets(HostedZoneId=ZONE, ChangeBatch={'Changes': list(changes)})
tag_spec = lambda kind: [{'ResourceType': kind, 'Tags': [{'Key': 'sweep', 'Value': 'boto3'}]}]
`;

const NOT_EMULATED = /the sandbox does not emulate/;
const op = (api: string, operation: string, expect: string, code: string): PythonOp => ({ api, operation, expect, outcome: 'right', code });
const no = (api: string, operation: string, expect: string, refusal: RegExp, code: string): PythonOp => ({
  api,
  operation,
  expect,
  outcome: 'refused',
  refusal,
  code,
});

export const BOTO3_OPS: PythonOp[] = [
  // The catalog.
  op(
    'EC2',
    'describe_regions',
    "the account's Regions",
    `
names = [r['RegionName'] for r in ec2.describe_regions()['Regions']]
check('eu-central-1' in names and 'af-south-1' not in names, str(names))
`,
  ),
  op(
    'EC2',
    'describe_regions(AllRegions, Filters=region-name)',
    'one opt-in Region by a wildcard',
    `
r = ec2.describe_regions(AllRegions=True, Filters=[{'Name': 'region-name', 'Values': ['af-south-*']}])['Regions']
check([x['RegionName'] for x in r] == ['af-south-1'] and r[0]['OptInStatus'] == 'not-opted-in', str(r))
`,
  ),
  op(
    'EC2',
    'describe_availability_zones(Filters=zone-id)',
    'euc1-az2 by its id',
    `
z = ec2.describe_availability_zones(Filters=[{'Name': 'zone-id', 'Values': ['euc1-az2']}])['AvailabilityZones']
check(len(z) == 1 and z[0]['ZoneId'] == 'euc1-az2', str(z))
`,
  ),
  op(
    'EC2',
    'describe_availability_zones(Filters=opt-in-status)',
    'every zone, opt-in-not-required',
    `
z = ec2.describe_availability_zones(Filters=[{'Name': 'opt-in-status', 'Values': ['opt-in-not-required']}])['AvailabilityZones']
check(len(z) == 3, str(z))
`,
  ),
  op(
    'EC2',
    'describe_instance_types(Filters=vcpu-info.default-vcpus)',
    'only 2-vCPU types',
    `
t = ec2.describe_instance_types(Filters=[{'Name': 'vcpu-info.default-vcpus', 'Values': ['2']}])['InstanceTypes']
check(len(t) > 0 and all(x['VCpuInfo']['DefaultVCpus'] == 2 for x in t), str([x['InstanceType'] for x in t][:5]))
`,
  ),
  op(
    'EC2',
    'describe_instance_types(Filters=bare-metal)',
    'only .metal sizes',
    `
t = ec2.describe_instance_types(Filters=[{'Name': 'bare-metal', 'Values': ['true']}])['InstanceTypes']
check(all('.metal' in x['InstanceType'] and x['BareMetal'] for x in t), str([x['InstanceType'] for x in t][:5]))
`,
  ),
  op(
    'EC2',
    'get_paginator(describe_instance_types)',
    'every type once, page by page',
    `
names = [x['InstanceType'] for page in ec2.get_paginator('describe_instance_types').paginate(PaginationConfig={'PageSize': 20}) for x in page['InstanceTypes']]
check(len(names) == len(set(names)) and 't3.micro' in names, str(len(names)))
`,
  ),
  no(
    'EC2',
    'describe_instance_types(Filters=hypervisor)',
    "a documented filter the catalog cannot answer, refused in the sandbox's words",
    /UnsupportedOperation.*the sandbox does not emulate the filter 'hypervisor'/,
    `
ec2.describe_instance_types(Filters=[{'Name': 'hypervisor', 'Values': ['nitro']}])
`,
  ),
  op(
    'EC2',
    'describe_instance_type_offerings(LocationType=availability-zone-id)',
    'offerings by zone id',
    `
o = ec2.describe_instance_type_offerings(LocationType='availability-zone-id', Filters=[{'Name': 'instance-type', 'Values': ['t3.micro']}])['InstanceTypeOfferings']
check(sorted(x['Location'] for x in o) == ['euc1-az1', 'euc1-az2', 'euc1-az3'], str(o))
`,
  ),
  op(
    'EC2',
    'describe_images(Owners, Filters=name)',
    "Canonical's jammy arm64 image with its fields",
    `
i = ec2.describe_images(Owners=[CANONICAL], Filters=[{'Name': 'name', 'Values': ['ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-arm64-server-*']}])['Images']
check(len(i) == 1, str(i))
i = i[0]
root = [m for m in i['BlockDeviceMappings'] if m['DeviceName'] == i['RootDeviceName']][0]['Ebs']
check(root['VolumeType'] == 'gp2' and root['VolumeSize'] == 8 and root['SnapshotId'].startswith('snap-'), str(root))
check(i['BootMode'] == 'uefi' and i['Architecture'] == 'arm64' and i['CreationDate'] < i['DeprecationTime'], str(i))
v['arm_ami'] = i['ImageId']
`,
  ),
  op(
    'EC2',
    'describe_images(Filters=creation-date wildcard)',
    'the images built on their serial date',
    `
i = ec2.describe_images(Owners=[CANONICAL], Filters=[{'Name': 'creation-date', 'Values': ['2025-12-12T*']}])['Images']
check(len(i) == 4, str([x['Name'] for x in i]))
`,
  ),
  op(
    'EC2',
    'describe_images(Filters=ena-support, root-device-type, virtualization-type)',
    'every Canonical image',
    `
f = [{'Name': 'ena-support', 'Values': ['true']}, {'Name': 'root-device-type', 'Values': ['ebs']}, {'Name': 'virtualization-type', 'Values': ['hvm']}]
check(len(ec2.describe_images(Owners=[CANONICAL], Filters=f)['Images']) == 4, 'not all four')
`,
  ),
  op(
    'EC2',
    'describe_images(Filters=is-public false)',
    'none: the account owns no image',
    `
check(ec2.describe_images(Filters=[{'Name': 'is-public', 'Values': ['false']}])['Images'] == [], 'images')
`,
  ),
  op(
    'EC2',
    'describe_images(Owners=[self])',
    'none',
    `
check(ec2.describe_images(Owners=['self'])['Images'] == [], 'images')
`,
  ),
  op(
    'EC2',
    'Image(id) resource',
    'the image resource loads its creation date and block devices',
    `
img = ec2r.Image(v['arm_ami'])
check(img.creation_date and img.root_device_name == '/dev/sda1' and len(img.block_device_mappings) == 3, str(img.block_device_mappings))
`,
  ),
  no(
    'EC2',
    'describe_images(Filters=owner)',
    "a filter name EC2 does not know, in EC2's words",
    /InvalidParameterValue.*The filter 'owner' is invalid/,
    `
ec2.describe_images(Filters=[{'Name': 'owner', 'Values': [CANONICAL]}])
`,
  ),
  op(
    'EC2',
    'describe_images(ImageIds, DryRun)',
    'DryRunOperation',
    `
check(error_code(ec2.describe_images, ImageIds=[v['arm_ami']], DryRun=True) == 'DryRunOperation', 'not a dry run')
`,
  ),
  no(
    'EC2',
    'describe_volumes(MaxResults=3)',
    'InvalidParameterValue: below the documented minimum of 5',
    /InvalidParameterValue.*MaxResults/,
    `
ec2.describe_volumes(MaxResults=3)
`,
  ),
  // The default VPC.
  op(
    'EC2',
    'describe_vpcs(Filters=cidr-block-association.state, dhcp-options-id)',
    'the default VPC',
    `
vpcs = ec2.describe_vpcs(Filters=[{'Name': 'cidr-block-association.state', 'Values': ['associated']}, {'Name': 'dhcp-options-id', 'Values': ['dopt-*']}])['Vpcs']
check(len(vpcs) == 1 and vpcs[0]['IsDefault'], str(vpcs))
v['default_vpc'] = vpcs[0]['VpcId']
`,
  ),
  op(
    'EC2',
    'describe_subnets(Filters=vpc-id, map-public-ip-on-launch)',
    'the three default subnets',
    `
s = ec2.describe_subnets(Filters=[{'Name': 'vpc-id', 'Values': [v['default_vpc']]}, {'Name': 'map-public-ip-on-launch', 'Values': ['true']}])['Subnets']
check(len(s) == 3 and all(x['SubnetArn'].endswith(x['SubnetId']) for x in s), str(s))
`,
  ),
  op(
    'EC2',
    'describe_subnets(Filters=cidr-block)',
    'the subnet of 172.31.16.0/20',
    `
s = ec2.describe_subnets(Filters=[{'Name': 'cidr-block', 'Values': ['172.31.16.0/20']}])['Subnets']
check(len(s) == 1 and s[0]['AvailabilityZone'] == 'eu-central-1b', str(s))
`,
  ),
  op(
    'EC2',
    'describe_subnets(Filters=ipv6-native true)',
    'none',
    `
check(ec2.describe_subnets(Filters=[{'Name': 'ipv6-native', 'Values': ['true']}])['Subnets'] == [], 'subnets')
`,
  ),
  op(
    'EC2',
    'describe_security_groups(Filters=egress.ip-permission.cidr)',
    "the default group's egress to everywhere",
    `
g = ec2.describe_security_groups(Filters=[{'Name': 'egress.ip-permission.cidr', 'Values': ['0.0.0.0/0']}, {'Name': 'vpc-id', 'Values': [v['default_vpc']]}])['SecurityGroups']
check([x['GroupName'] for x in g] == ['default'], str(g))
`,
  ),
  op(
    'EC2',
    'describe_route_tables(Filters=route.destination-cidr-block, route.origin)',
    'the default route',
    `
t = ec2.describe_route_tables(Filters=[{'Name': 'route.destination-cidr-block', 'Values': ['0.0.0.0/0']}, {'Name': 'route.origin', 'Values': ['CreateRoute']}])['RouteTables']
check(len(t) == 1 and t[0]['VpcId'] == v['default_vpc'] and t[0]['Associations'][0]['Main'], str(t))
`,
  ),
  op(
    'EC2',
    'describe_internet_gateways(Filters=attachment.vpc-id)',
    "the default VPC's gateway",
    `
g = ec2.describe_internet_gateways(Filters=[{'Name': 'attachment.vpc-id', 'Values': [v['default_vpc']]}])['InternetGateways']
check(len(g) == 1, str(g))
`,
  ),
  // A network of one's own, dry runs first.
  op(
    'EC2',
    'create_vpc(DryRun)',
    'DryRunOperation, and no VPC made',
    `
check(error_code(ec2.create_vpc, CidrBlock='10.50.0.0/16', DryRun=True) == 'DryRunOperation', 'not a dry run')
check(len(ec2.describe_vpcs()['Vpcs']) == 1, 'a VPC was made')
`,
  ),
  op(
    'EC2',
    'create_vpc',
    'a tagged VPC',
    `
v['vpc'] = ec2.create_vpc(CidrBlock='10.50.0.0/16', TagSpecifications=tag_spec('vpc'))['Vpc']['VpcId']
check(v['vpc'].startswith('vpc-'), v['vpc'])
`,
  ),
  op(
    'EC2',
    'describe_vpcs(Filters=tag-key)',
    'the tagged VPC',
    `
check([x['VpcId'] for x in ec2.describe_vpcs(Filters=[{'Name': 'tag-key', 'Values': ['sweep']}])['Vpcs']] == [v['vpc']], 'not found')
`,
  ),
  op(
    'EC2',
    'create_subnet(DryRun) outside the VPC',
    'a dry run that would fail answers the real error',
    `
code = error_code(ec2.create_subnet, VpcId='vpc-00000000000000fff', CidrBlock='10.50.1.0/24', DryRun=True)
check(code == 'InvalidVpcID.NotFound', code)
`,
  ),
  op(
    'EC2',
    'create_subnet',
    'a /24',
    `
v['subnet'] = ec2.create_subnet(VpcId=v['vpc'], CidrBlock='10.50.1.0/24', AvailabilityZone='eu-central-1c')['Subnet']['SubnetId']
`,
  ),
  op(
    'EC2',
    'create_internet_gateway + attach_internet_gateway',
    'attached to the VPC',
    `
v['igw'] = ec2.create_internet_gateway()['InternetGateway']['InternetGatewayId']
check(error_code(ec2.attach_internet_gateway, InternetGatewayId=v['igw'], VpcId=v['vpc'], DryRun=True) == 'DryRunOperation', 'dry run')
ec2.attach_internet_gateway(InternetGatewayId=v['igw'], VpcId=v['vpc'])
g = ec2.describe_internet_gateways(InternetGatewayIds=[v['igw']])['InternetGateways'][0]
check(g['Attachments'][0]['VpcId'] == v['vpc'], str(g))
`,
  ),
  op(
    'EC2',
    'create_route',
    "a default route to the gateway in the VPC's main table",
    `
rt = ec2.describe_route_tables(Filters=[{'Name': 'vpc-id', 'Values': [v['vpc']]}, {'Name': 'association.main', 'Values': ['true']}])['RouteTables'][0]
ec2.create_route(RouteTableId=rt['RouteTableId'], DestinationCidrBlock='0.0.0.0/0', GatewayId=v['igw'])
t = ec2.describe_route_tables(Filters=[{'Name': 'route.gateway-id', 'Values': [v['igw']]}])['RouteTables']
check([x['RouteTableId'] for x in t] == [rt['RouteTableId']], str(t))
`,
  ),
  op(
    'EC2',
    'create_security_group + authorize_security_group_ingress',
    'HTTPS open',
    `
v['sg'] = ec2.create_security_group(GroupName='web', Description='web', VpcId=v['vpc'])['GroupId']
ec2.authorize_security_group_ingress(GroupId=v['sg'], IpPermissions=[{'IpProtocol': 'tcp', 'FromPort': 443, 'ToPort': 443, 'IpRanges': [{'CidrIp': '0.0.0.0/0'}]}])
`,
  ),
  op(
    'EC2',
    'authorize_security_group_ingress(DryRun) of a rule that exists',
    'InvalidPermission.Duplicate, not DryRunOperation',
    `
code = error_code(ec2.authorize_security_group_ingress, GroupId=v['sg'], DryRun=True, IpPermissions=[{'IpProtocol': 'tcp', 'FromPort': 443, 'ToPort': 443, 'IpRanges': [{'CidrIp': '0.0.0.0/0'}]}])
check(code == 'InvalidPermission.Duplicate', code)
`,
  ),
  op(
    'EC2',
    'describe_security_groups(Filters=ip-permission.protocol, ip-permission.cidr)',
    'the web group',
    `
g = ec2.describe_security_groups(Filters=[{'Name': 'ip-permission.protocol', 'Values': ['tcp']}, {'Name': 'ip-permission.cidr', 'Values': ['0.0.0.0/0']}, {'Name': 'group-name', 'Values': ['w?b']}])['SecurityGroups']
check([x['GroupId'] for x in g] == [v['sg']], str(g))
`,
  ),
  op(
    'EC2',
    'import_key_pair',
    'the key',
    `
ec2.import_key_pair(KeyName='boto3-key', PublicKeyMaterial=${JSON.stringify(SANDBOX_SSH_PUBLIC_KEY)}.encode())
check([k['KeyName'] for k in ec2.describe_key_pairs(Filters=[{'Name': 'fingerprint', 'Values': ['*']}])['KeyPairs']] == ['boto3-key'], 'key')
`,
  ),
  op(
    'EC2',
    'describe_key_pairs(IncludePublicKey)',
    'the key with its type, time and public key',
    `
k = ec2.describe_key_pairs(KeyNames=['boto3-key'], IncludePublicKey=True)['KeyPairs'][0]
check(k['KeyType'] == 'ed25519' and k['PublicKey'].startswith('ssh-ed25519 ') and k['CreateTime'], str(k))
`,
  ),
  // Instances.
  op(
    'EC2',
    'run_instances(DryRun)',
    'DryRunOperation, and no instance launched',
    `
check(error_code(ec2.run_instances, ImageId=v['arm_ami'], InstanceType='t4g.small', MinCount=1, MaxCount=1, SubnetId=v['subnet'], DryRun=True) == 'DryRunOperation', 'not a dry run')
check(instances(ec2.describe_instances()) == [], 'an instance was launched')
`,
  ),
  op(
    'EC2',
    'run_instances(DryRun) of an x86 type on an arm64 image',
    'the architecture mismatch, not DryRunOperation',
    `
code = error_code(ec2.run_instances, ImageId=v['arm_ami'], InstanceType='t3.micro', MinCount=1, MaxCount=1, DryRun=True)
check(code == 'InvalidParameterValue', code)
`,
  ),
  op(
    'EC2',
    'run_instances',
    'two t4g.small in one reservation',
    `
out = ec2.run_instances(ImageId=v['arm_ami'], InstanceType='t4g.small', MinCount=2, MaxCount=2, SubnetId=v['subnet'], SecurityGroupIds=[v['sg']], KeyName='boto3-key', TagSpecifications=tag_spec('instance'))
v['instances'] = [i['InstanceId'] for i in out['Instances']]
check(len(v['instances']) == 2, str(out))
`,
  ),
  op(
    'EC2',
    'get_waiter(instance_running)',
    'both running',
    `
ec2.get_waiter('instance_running').wait(InstanceIds=v['instances'], WaiterConfig={'Delay': 1, 'MaxAttempts': 25})
`,
  ),
  op(
    'EC2',
    'describe_instances(Filters=instance-state-name, tag:sweep)',
    'both',
    `
got = sorted(i['InstanceId'] for i in instances(ec2.describe_instances(Filters=[{'Name': 'instance-state-name', 'Values': ['running']}, {'Name': 'tag:sweep', 'Values': ['boto3']}])))
check(got == sorted(v['instances']), str(got))
`,
  ),
  op(
    'EC2',
    'describe_instances(Filters=reservation-id, launch-index, architecture)',
    'both, of one reservation',
    `
out = ec2.describe_instances(InstanceIds=v['instances'])
rid = out['Reservations'][0]['ReservationId']
got = instances(ec2.describe_instances(Filters=[{'Name': 'reservation-id', 'Values': [rid]}, {'Name': 'architecture', 'Values': ['arm64']}]))
check(len(got) == 2, str(len(got)))
`,
  ),
  op(
    'EC2',
    'describe_instances(Filters=metadata-options.http-tokens, monitoring-state, tenancy)',
    'both, with their defaults',
    `
f = [{'Name': 'metadata-options.http-tokens', 'Values': ['optional']}, {'Name': 'monitoring-state', 'Values': ['disabled']}, {'Name': 'tenancy', 'Values': ['default']}, {'Name': 'vpc-id', 'Values': [v['vpc']]}]
check(len(instances(ec2.describe_instances(Filters=f))) == 2, 'not both')
`,
  ),
  op(
    'EC2',
    'describe_instances(Filters=private-dns-name wildcard, subnet-id)',
    'both',
    `
f = [{'Name': 'private-dns-name', 'Values': ['ip-10-50-1-*.eu-central-1.compute.internal']}, {'Name': 'subnet-id', 'Values': [v['subnet']]}]
check(len(instances(ec2.describe_instances(Filters=f))) == 2, 'not both')
`,
  ),
  op(
    'EC2',
    'describe_instances(Filters=host-id, placement-group-name)',
    'none: no Dedicated Host, no placement group',
    `
check(instances(ec2.describe_instances(Filters=[{'Name': 'host-id', 'Values': ['*']}])) == [], 'host')
check(instances(ec2.describe_instances(Filters=[{'Name': 'placement-group-name', 'Values': ['*']}])) == [], 'placement group')
`,
  ),
  no(
    'EC2',
    'describe_instances(Filters=network-interface.subnet-id)',
    "network interfaces are not modelled: refused in the sandbox's words",
    NOT_EMULATED,
    `
ec2.describe_instances(Filters=[{'Name': 'network-interface.subnet-id', 'Values': [v['subnet']]}])
`,
  ),
  op(
    'EC2',
    'instances.filter resource collection',
    'both by the resource API',
    `
got = sorted(i.id for i in ec2r.instances.filter(Filters=[{'Name': 'key-name', 'Values': ['boto3-key']}]))
check(got == sorted(v['instances']), str(got))
`,
  ),
  op(
    'EC2',
    'describe_volumes(Filters=attachment.instance-id, snapshot-id, encrypted)',
    "two gp2 roots from the image's snapshot",
    `
img = ec2.describe_images(ImageIds=[v['arm_ami']])['Images'][0]
snap = img['BlockDeviceMappings'][0]['Ebs']['SnapshotId']
vols = ec2.describe_volumes(Filters=[{'Name': 'attachment.instance-id', 'Values': v['instances']}, {'Name': 'snapshot-id', 'Values': [snap]}, {'Name': 'encrypted', 'Values': ['false']}])['Volumes']
check(len(vols) == 2 and all(x['VolumeType'] == 'gp2' for x in vols), str(vols))
`,
  ),
  op(
    'EC2',
    'create_tags(DryRun) then create_tags',
    'the dry run tags nothing, the call tags both',
    `
check(error_code(ec2.create_tags, Resources=v['instances'], Tags=[{'Key': 'role', 'Value': 'web'}], DryRun=True) == 'DryRunOperation', 'dry run')
check(ec2.describe_tags(Filters=[{'Name': 'key', 'Values': ['role']}])['Tags'] == [], 'tagged by the dry run')
ec2.create_tags(Resources=v['instances'], Tags=[{'Key': 'role', 'Value': 'web'}])
check(len(ec2.describe_tags(Filters=[{'Name': 'key', 'Values': ['role']}, {'Name': 'resource-type', 'Values': ['instance']}])['Tags']) == 2, 'tags')
`,
  ),
  op(
    'EC2',
    'describe_tags(Filters=tag:role)',
    'every tag of the resources tagged role=web',
    `
t = ec2.describe_tags(Filters=[{'Name': 'tag:role', 'Values': ['web']}])['Tags']
check(sorted({x['Key'] for x in t}) == ['role', 'sweep'] and len(t) == 4, str(t))
`,
  ),
  op(
    'EC2',
    'stop_instances(DryRun)',
    'DryRunOperation, both still running',
    `
check(error_code(ec2.stop_instances, InstanceIds=v['instances'], DryRun=True) == 'DryRunOperation', 'dry run')
states = {i['State']['Name'] for i in instances(ec2.describe_instances(InstanceIds=v['instances']))}
check(states == {'running'}, str(states))
`,
  ),
  op(
    'EC2',
    'allocate_address + associate_address',
    'the address on the first instance',
    `
v['eip'] = ec2.allocate_address(Domain='vpc')['AllocationId']
ec2.associate_address(AllocationId=v['eip'], InstanceId=v['instances'][0])
a = ec2.describe_addresses(Filters=[{'Name': 'instance-id', 'Values': [v['instances'][0]]}])['Addresses']
check(len(a) == 1 and a[0]['PrivateIpAddress'].startswith('10.50.1.'), str(a))
`,
  ),
  op(
    'EC2',
    'describe_addresses(Filters=private-ip-address)',
    'the address by the private address it maps to',
    `
i = instances(ec2.describe_instances(InstanceIds=[v['instances'][0]]))[0]
a = ec2.describe_addresses(Filters=[{'Name': 'private-ip-address', 'Values': [i['PrivateIpAddress']]}])['Addresses']
check([x['AllocationId'] for x in a] == [v['eip']], str(a))
`,
  ),
  op(
    'EC2',
    'release_address(DryRun) while associated',
    'InvalidIPAddress.InUse, not DryRunOperation',
    `
code = error_code(ec2.release_address, AllocationId=v['eip'], DryRun=True)
check(code == 'InvalidIPAddress.InUse', code)
`,
  ),
  op(
    'EC2',
    'terminate_instances',
    'both shutting down, then terminated',
    `
ec2.terminate_instances(InstanceIds=v['instances'])
ec2.get_waiter('instance_terminated').wait(InstanceIds=v['instances'], WaiterConfig={'Delay': 1, 'MaxAttempts': 40})
i = instances(ec2.describe_instances(InstanceIds=v['instances']))
check({x['StateReason']['Code'] for x in i} == {'Client.UserInitiatedShutdown'}, str([x.get('StateReason') for x in i]))
`,
  ),
  no(
    'EC2',
    'describe_nat_gateways',
    "not emulated: refused in the sandbox's words",
    NOT_EMULATED,
    `
ec2.describe_nat_gateways()
`,
  ),
  no(
    'EC2',
    'create_launch_template',
    "not emulated: refused in the sandbox's words",
    NOT_EMULATED,
    `
ec2.create_launch_template(LaunchTemplateName='sweep-template', LaunchTemplateData={'InstanceType': 't3.micro'})
`,
  ),
  no(
    'EC2',
    'describe_spot_price_history',
    "not emulated: refused in the sandbox's words",
    NOT_EMULATED,
    `
ec2.describe_spot_price_history(InstanceTypes=['t3.micro'])
`,
  ),
  // Route 53.
  op(
    'Route 53',
    'list_hosted_zones_by_name',
    'example.com.',
    `
z = r53.list_hosted_zones_by_name(DNSName='example.com')['HostedZones']
check(z[0]['Name'] == 'example.com.', str(z))
`,
  ),
  op(
    'Route 53',
    'change_resource_record_sets (A, AAAA, TXT, MX)',
    'one batch of good records',
    `
change(a_record('api.example.com', '192.0.2.30'),
       {'Action': 'CREATE', 'ResourceRecordSet': {'Name': 'api.example.com', 'Type': 'AAAA', 'TTL': 300, 'ResourceRecords': [{'Value': '2001:db8::30'}]}},
       {'Action': 'CREATE', 'ResourceRecordSet': {'Name': 'example.com', 'Type': 'TXT', 'TTL': 300, 'ResourceRecords': [{'Value': '"v=spf1 -all"'}]}},
       {'Action': 'CREATE', 'ResourceRecordSet': {'Name': 'example.com', 'Type': 'MX', 'TTL': 300, 'ResourceRecords': [{'Value': '10 mail.example.com'}]}})
`,
  ),
  op(
    'Route 53',
    'get_waiter(resource_record_sets_changed)',
    'the change INSYNC',
    `
cid = change(a_record('wait.example.com', '192.0.2.31'))['ChangeInfo']['Id']
r53.get_waiter('resource_record_sets_changed').wait(Id=cid, WaiterConfig={'Delay': 1, 'MaxAttempts': 30})
`,
  ),
  no(
    'Route 53',
    'change_resource_record_sets (A record of a name)',
    'InvalidChangeBatch: not an IPv4 address',
    /InvalidChangeBatch.*ARRDATAIllegalIPv4Address/,
    `
change(a_record('name.example.com', 'www.example.com'))
`,
  ),
  no(
    'Route 53',
    'change_resource_record_sets (AAAA of garbage)',
    'InvalidChangeBatch: not an IPv6 address',
    /InvalidChangeBatch.*AAAARRDATAIllegalIPv6Address/,
    `
change({'Action': 'CREATE', 'ResourceRecordSet': {'Name': 'v6.example.com', 'Type': 'AAAA', 'TTL': 60, 'ResourceRecords': [{'Value': '2001:db8::1::2'}]}})
`,
  ),
  no(
    'Route 53',
    'change_resource_record_sets (CREATE twice)',
    'InvalidChangeBatch: it already exists',
    /InvalidChangeBatch.*but it already exists/,
    `
change(a_record('api.example.com', '192.0.2.30'))
`,
  ),
  no(
    'Route 53',
    'change_resource_record_sets (a batch with one bad change)',
    'InvalidChangeBatch, and nothing of the batch made',
    /InvalidChangeBatch/,
    `
try:
    change(a_record('first.example.com', '192.0.2.40'), a_record('second.example.com', '999.0.2.40'))
finally:
    names = [r['Name'] for r in r53.list_resource_record_sets(HostedZoneId=ZONE)['ResourceRecordSets']]
    check('first.example.com.' not in names, 'part of the batch was made')
`,
  ),
  no(
    'Route 53',
    'change_resource_record_sets (CNAME beside an A)',
    'InvalidChangeBatch: a CNAME conflicts',
    /InvalidChangeBatch.*CNAME/,
    `
change({'Action': 'CREATE', 'ResourceRecordSet': {'Name': 'api.example.com', 'Type': 'CNAME', 'TTL': 60, 'ResourceRecords': [{'Value': 'x.example.net'}]}})
`,
  ),
  no(
    'Route 53',
    'change_resource_record_sets (no TTL)',
    'InvalidInput',
    /InvalidInput/,
    `
change({'Action': 'CREATE', 'ResourceRecordSet': {'Name': 'nottl.example.com', 'Type': 'A', 'ResourceRecords': [{'Value': '192.0.2.1'}]}})
`,
  ),
  no(
    'Route 53',
    'change_resource_record_sets (DELETE with other values)',
    'InvalidChangeBatch: the values do not match',
    /InvalidChangeBatch.*do not match/,
    `
r53.change_resource_record_sets(HostedZoneId=ZONE, ChangeBatch={'Changes': [{'Action': 'DELETE', 'ResourceRecordSet': {'Name': 'api.example.com', 'Type': 'A', 'TTL': 60, 'ResourceRecords': [{'Value': '192.0.2.99'}]}}]})
`,
  ),
  op(
    'Route 53',
    'create_health_check (TCP) + failover records',
    'a primary with its check and a secondary',
    `
hc = r53.create_health_check(CallerReference='boto3-hc', HealthCheckConfig={'Type': 'TCP', 'IPAddress': '192.0.2.30', 'Port': 443, 'RequestInterval': 10, 'FailureThreshold': 2})['HealthCheck']
v['hc'] = hc['Id']
check(hc['HealthCheckConfig']['RequestInterval'] == 10, str(hc))
change(a_record('fo.example.com', '192.0.2.30', SetIdentifier='primary', Failover='PRIMARY', HealthCheckId=v['hc']),
       a_record('fo.example.com', '192.0.2.31', SetIdentifier='secondary', Failover='SECONDARY'))
`,
  ),
  op(
    'Route 53',
    'create_health_check (same reference, same config)',
    'the same check again',
    `
check(r53.create_health_check(CallerReference='boto3-hc', HealthCheckConfig={'Type': 'TCP', 'IPAddress': '192.0.2.30', 'Port': 443, 'RequestInterval': 10, 'FailureThreshold': 2})['HealthCheck']['Id'] == v['hc'], 'another check')
`,
  ),
  no(
    'Route 53',
    'create_health_check (same reference, other config)',
    'HealthCheckAlreadyExists',
    /HealthCheckAlreadyExists/,
    `
r53.create_health_check(CallerReference='boto3-hc', HealthCheckConfig={'Type': 'TCP', 'IPAddress': '192.0.2.99', 'Port': 443})
`,
  ),
  no(
    'Route 53',
    'create_health_check (RequestInterval 20)',
    'InvalidInput',
    /InvalidInput/,
    `
r53.create_health_check(CallerReference='boto3-hc-2', HealthCheckConfig={'Type': 'HTTP', 'IPAddress': '192.0.2.30', 'RequestInterval': 20})
`,
  ),
  op(
    'Route 53',
    'get_health_check',
    'the TCP check',
    `
h = r53.get_health_check(HealthCheckId=v['hc'])['HealthCheck']
check(h['HealthCheckConfig']['Type'] == 'TCP' and h['HealthCheckConfig']['Port'] == 443, str(h))
`,
  ),
  op(
    'Route 53',
    'get_health_check_status',
    'healthy from every checker',
    `
o = r53.get_health_check_status(HealthCheckId=v['hc'])['HealthCheckObservations']
check(len(o) >= 3 and all(x['StatusReport']['Status'].startswith('Success') for x in o), str(o))
`,
  ),
  op(
    'Route 53',
    'update_health_check (Inverted)',
    'inverted, version 2',
    `
h = r53.update_health_check(HealthCheckId=v['hc'], Inverted=True)['HealthCheck']
check(h['HealthCheckConfig']['Inverted'] and h['HealthCheckVersion'] == 2, str(h))
`,
  ),
  op(
    'Route 53',
    'get_paginator(list_health_checks)',
    'the check',
    `
ids = [h['Id'] for p in r53.get_paginator('list_health_checks').paginate() for h in p['HealthChecks']]
check(ids == [v['hc']], str(ids))
`,
  ),
  no(
    'Route 53',
    'delete_health_check while a record names it',
    'HealthCheckInUse',
    /HealthCheckInUse/,
    `
r53.delete_health_check(HealthCheckId=v['hc'])
`,
  ),
  op(
    'Route 53',
    'list_resource_record_sets (StartRecordName, StartRecordType)',
    'the failover pair from where it asked',
    `
sets = r53.list_resource_record_sets(HostedZoneId=ZONE, StartRecordName='fo.example.com', StartRecordType='A', MaxItems='2')['ResourceRecordSets']
check([(s['Name'], s['Failover']) for s in sets] == [('fo.example.com.', 'PRIMARY'), ('fo.example.com.', 'SECONDARY')], str(sets))
`,
  ),
  no(
    'Route 53',
    'get_health_check (unknown id)',
    'NoSuchHealthCheck',
    /NoSuchHealthCheck/,
    `
r53.get_health_check(HealthCheckId='00000000-0000-4000-8000-000000000000')
`,
  ),
  no(
    'Route 53',
    'get_hosted_zone_limit',
    "not emulated: refused in the sandbox's words",
    NOT_EMULATED,
    `
r53.get_hosted_zone_limit(Type='MAX_RRSETS_BY_ZONE', HostedZoneId=ZONE)
`,
  ),
  no(
    'Route 53',
    'list_tags_for_resource',
    "not emulated: refused in the sandbox's words",
    NOT_EMULATED,
    `
r53.list_tags_for_resource(ResourceType='hostedzone', ResourceId=ZONE)
`,
  ),
  // STS and another service.
  op(
    'STS',
    'get_caller_identity',
    'the account',
    `
check(sts.get_caller_identity()['Account'] == '123456789012', 'account')
`,
  ),
  op(
    'STS',
    'assume_role + a client with its credentials',
    'the session calls EC2',
    `
c = sts.assume_role(RoleArn='arn:aws:iam::123456789012:role/kubeplane-provider', RoleSessionName='boto3')['Credentials']
s = boto3.client('ec2', endpoint_url=_kw['endpoint_url'], region_name='eu-central-1', aws_access_key_id=c['AccessKeyId'], aws_secret_access_key=c['SecretAccessKey'], aws_session_token=c['SessionToken'], config=_kw['config'])
check(len(s.describe_availability_zones()['AvailabilityZones']) == 3, 'zones')
`,
  ),
  no(
    'STS',
    'get_access_key_info',
    "not emulated: refused in the sandbox's words",
    NOT_EMULATED,
    `
sts.get_access_key_info(AccessKeyId='AKIASANDBOX000000001')
`,
  ),
  no(
    'IAM',
    'list_roles',
    "another service: refused in the sandbox's words",
    NOT_EMULATED,
    `
iam.list_roles()
`,
  ),
];
