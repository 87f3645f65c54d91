// VPCs and subnets (CreateVpc, DescribeVpcs, DeleteVpc, CreateSubnet, DescribeSubnets, DeleteSubnet), and the default
// VPC every Region of an account starts with.
import { createHash } from 'node:crypto';
import { EmulatorError } from '../emulator/index.js';
import { el, items, t, tagsFor } from '../xml.js';
import { done, type Ec2Routes, result } from './dialect.js';
import { selectDescribed, tagAttr } from './filters.js';
import { OWNER, type Igw, type RouteTable, type SecurityGroup, type Subnet, type Vpc } from './resources.js';
import { tagsXml } from './tags.js';
import type { Ec2World } from './world.js';

/**
 * The default VPC every Region of an account starts with (https://docs.aws.amazon.com/vpc/latest/userguide/default-vpc.html):
 * 172.31.0.0/16, a /20 default subnet per zone that maps public IPs, an attached internet gateway routed from the
 * main route table, and the default security group. Its ids come from the Region's name, not the id counter, so a
 * seeded world's other ids stay as they were.
 */
export function makeDefaultVpc(w: Ec2World): void {
  const region = w.region;
  const id = (prefix: string, n = 0) => `${prefix}-${createHash('sha256').update(`default-vpc/${region}/${prefix}/${n}`).digest('hex').slice(0, 17)}`;
  const vpc: Vpc = { id: id('vpc'), cidr: '172.31.0.0/16', tags: {}, mainRouteTable: id('rtb'), isDefault: true };
  const igw: Igw = { id: id('igw'), tags: {}, vpcId: vpc.id, isDefault: true };
  w.vpcs.set(vpc.id, vpc);
  w.igws.set(igw.id, igw);
  w.routeTables.set(vpc.mainRouteTable, {
    id: vpc.mainRouteTable,
    vpcId: vpc.id,
    main: true,
    routes: [{ cidr: '0.0.0.0/0', gatewayId: igw.id }],
    tags: {},
  });
  const sg: SecurityGroup = { id: id('sg'), name: 'default', description: 'default VPC security group', vpcId: vpc.id, tags: {}, ingress: [] };
  w.securityGroups.set(sg.id, sg);
  w.zones.forEach((zone, k) => {
    const subnet: Subnet = { id: id('subnet', k), vpcId: vpc.id, cidr: `172.31.${k * 16}.0/20`, zone, tags: {}, nextHost: 0, defaultForAz: true };
    w.subnets.set(subnet.id, subnet);
  });
}

/**
 * Where RunInstances without a SubnetId puts the instance: the default subnet of its zone. "If you don't specify a
 * subnet ID, we choose a default subnet from your default VPC for you. If you don't have a default VPC, you must
 * specify a subnet ID" (API_RunInstances.html, SubnetId): EC2 then answers VPCIdNotSpecified, "No default VPC for this
 * user" (as users meet it, https://github.com/aws/karpenter-provider-aws/issues/7834); a default VPC without a
 * default subnet in the zone is InvalidInput, "No default subnet for availability zone" (the words juju's EC2 provider matches on,
 * https://github.com/juju/juju, provider/ec2).
 */
export function defaultSubnet(w: Ec2World, zone: string): Subnet {
  const vpc = w.vpcs.find((v) => v.isDefault === true);
  if (!vpc) throw new EmulatorError(400, 'VPCIdNotSpecified', 'No default VPC for this user');
  const subnet = w.subnets.find((x) => x.vpcId === vpc.id && x.defaultForAz === true && x.zone === zone);
  if (!subnet) throw new EmulatorError(400, 'InvalidInput', `No default subnet for availability zone: '${zone}'.`);
  return subnet;
}

/** A VPC's one IPv4 CIDR association (`vpc-cidr-assoc-` and its id's digits) and its DHCP options set (the Region's default). */
function cidrAssociationId(v: Vpc): string {
  return `vpc-cidr-assoc-${v.id.slice(4)}`;
}

/** The DHCP options set every VPC of the Region gets (a Region's default `dopt-`, made with its default VPC). */
function dhcpOptionsId(w: Ec2World): string {
  return `dopt-${createHash('sha256').update(`default-dhcp-options/${w.region}`).digest('hex').slice(0, 17)}`;
}

function vpcXml(w: Ec2World, v: Vpc): string {
  return (
    t('vpcId', v.id) +
    t('ownerId', OWNER) +
    t('state', 'available') +
    t('cidrBlock', v.cidr) +
    items(
      'cidrBlockAssociationSet',
      [v],
      (x) => t('cidrBlock', x.cidr) + t('associationId', cidrAssociationId(x)) + el('cidrBlockState', t('state', 'associated')),
    ) +
    t('dhcpOptionsId', dhcpOptionsId(w)) +
    t('instanceTenancy', 'default') +
    t('isDefault', v.isDefault === true) +
    tagsXml(v.tags)
  );
}

function vpcAttr(w: Ec2World, v: Vpc, name: string): string[] {
  switch (name) {
    case 'vpc-id':
      return [v.id];
    case 'cidr':
    case 'cidr-block-association.cidr-block':
      return [v.cidr];
    case 'cidr-block-association.association-id':
      return [cidrAssociationId(v)];
    case 'cidr-block-association.state':
      return ['associated'];
    case 'dhcp-options-id':
      return [dhcpOptionsId(w)];
    case 'is-default':
      return [String(v.isDefault === true)];
    case 'state':
      return ['available'];
    case 'owner-id':
      return [OWNER];
    default:
      return tagAttr(v.tags, name);
  }
}

/**
 * The addresses of a subnet no one uses yet: its size less the five AWS reserves in every subnet
 * (https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html) and one per live instance in it.
 */
function availableAddresses(w: Ec2World, s: Subnet): number {
  const prefix = Number(s.cidr.split('/')[1] ?? '24');
  return 2 ** (32 - prefix) - 5 - w.liveInstances().filter((i) => i.subnetId === s.id).length;
}

function subnetArn(w: Ec2World, s: Subnet): string {
  return `arn:aws:ec2:${w.region}:${OWNER}:subnet/${s.id}`;
}

function subnetXml(w: Ec2World, s: Subnet): string {
  return (
    t('subnetId', s.id) +
    t('subnetArn', subnetArn(w, s)) +
    t('state', 'available') +
    t('ownerId', OWNER) +
    t('vpcId', s.vpcId) +
    t('cidrBlock', s.cidr) +
    t('availableIpAddressCount', availableAddresses(w, s)) +
    t('availabilityZone', s.zone) +
    t('availabilityZoneId', w.zoneId(s.zone)) +
    t('defaultForAz', s.defaultForAz === true) +
    // Every subnet of the sandbox maps a public address on launch, as the default VPC's do (instances.ts gives one).
    t('mapPublicIpOnLaunch', true) +
    t('mapCustomerOwnedIpOnLaunch', false) +
    t('assignIpv6AddressOnCreation', false) +
    t('enableDns64', false) +
    t('ipv6Native', false) +
    el('privateDnsNameOptionsOnLaunch', t('hostnameType', 'ip-name'), t('enableResourceNameDnsARecord', false), t('enableResourceNameDnsAAAARecord', false)) +
    tagsXml(s.tags)
  );
}

function subnetAttr(w: Ec2World, s: Subnet, name: string): string[] {
  switch (name) {
    case 'subnet-id':
      return [s.id];
    case 'subnet-arn':
      return [subnetArn(w, s)];
    case 'vpc-id':
      return [s.vpcId];
    case 'cidr':
    case 'cidr-block':
    case 'cidrBlock':
      return [s.cidr];
    case 'availability-zone':
    case 'availabilityZone':
      return [s.zone];
    case 'availability-zone-id':
    case 'availabilityZoneId':
      return [w.zoneId(s.zone)];
    case 'available-ip-address-count':
      return [String(availableAddresses(w, s))];
    case 'default-for-az':
    case 'defaultForAz':
      return [String(s.defaultForAz === true)];
    case 'map-public-ip-on-launch':
      return ['true'];
    case 'map-customer-owned-ip-on-launch':
    case 'enable-dns64':
    case 'ipv6-native':
    case 'private-dns-name-options-on-launch.enable-resource-name-dns-a-record':
    case 'private-dns-name-options-on-launch.enable-resource-name-dns-aaaa-record':
      return ['false'];
    case 'private-dns-name-options-on-launch.hostname-type':
      return ['ip-name'];
    case 'state':
      return ['available'];
    case 'owner-id':
      return [OWNER];
    default:
      return tagAttr(s.tags, name);
  }
}

export function vpcRoutes(w: Ec2World): Ec2Routes {
  return [
    [
      'CreateVpc',
      ({ body: p }) => {
        const cidr = p.get('CidrBlock') ?? '';
        if (!/^\d+\.\d+\.\d+\.\d+\/(1[6-9]|2[0-8])$/.test(cidr)) throw new EmulatorError(400, 'InvalidVpc.Range', `The CIDR '${cidr}' is invalid.`);
        const id = w.id('vpc');
        const rt: RouteTable = { id: w.id('rtb'), vpcId: id, main: true, routes: [], tags: {} };
        w.routeTables.set(rt.id, rt);
        const sg: SecurityGroup = { id: w.id('sg'), name: 'default', description: 'default VPC security group', vpcId: id, tags: {}, ingress: [] };
        w.securityGroups.set(sg.id, sg);
        const vpc: Vpc = { id, cidr, tags: tagsFor(p, 'vpc'), mainRouteTable: rt.id };
        w.vpcs.set(id, vpc);
        return result(el('vpc', vpcXml(w, vpc)));
      },
    ],
    [
      'DescribeVpcs',
      ({ body: p }) =>
        result(
          items(
            'vpcSet',
            selectDescribed(
              [...w.vpcs.values()],
              p,
              'DescribeVpcs',
              'VpcId',
              (v) => v.id,
              (v, n) => vpcAttr(w, v, n),
              'vpc',
            ),
            (v) => vpcXml(w, v),
          ),
        ),
    ],
    [
      'DeleteVpc',
      ({ body: p }) => {
        const vpc = w.mustId('vpc', w.vpcs, p.get('VpcId'));
        const deps =
          w.subnets.find((s) => s.vpcId === vpc.id) !== undefined ||
          w.igws.find((g) => g.vpcId === vpc.id) !== undefined ||
          w.securityGroups.find((g) => g.vpcId === vpc.id && g.name !== 'default') !== undefined ||
          w.routeTables.find((r) => r.vpcId === vpc.id && !r.main) !== undefined;
        if (deps) throw new EmulatorError(400, 'DependencyViolation', `The vpc '${vpc.id}' has dependencies and cannot be deleted.`);
        for (const [id, r] of w.routeTables) if (r.vpcId === vpc.id) w.routeTables.delete(id);
        for (const [id, g] of w.securityGroups) if (g.vpcId === vpc.id) w.securityGroups.delete(id);
        w.vpcs.delete(vpc.id);
        return done();
      },
    ],
    [
      'CreateSubnet',
      ({ body: p }) => {
        const vpc = w.mustId('vpc', w.vpcs, p.get('VpcId'));
        const zone = p.get('AvailabilityZone') ?? w.zones[0] ?? '';
        if (!w.zones.includes(zone))
          throw new EmulatorError(
            400,
            'InvalidParameterValue',
            `Value (${zone}) for parameter availabilityZone is invalid. Subnets can currently only ` +
              `be created in the following availability zones: ${w.zones.join(', ')}.`,
          );
        const cidr = p.get('CidrBlock') ?? '';
        if (w.subnets.find((s) => s.vpcId === vpc.id && s.cidr === cidr))
          throw new EmulatorError(400, 'InvalidSubnet.Conflict', `The CIDR '${cidr}' conflicts with another subnet`);
        const s: Subnet = { id: w.id('subnet'), vpcId: vpc.id, cidr, zone, tags: tagsFor(p, 'subnet'), nextHost: 0 };
        w.subnets.set(s.id, s);
        return result(el('subnet', subnetXml(w, s)));
      },
    ],
    [
      'DescribeSubnets',
      ({ body: p }) =>
        result(
          items(
            'subnetSet',
            selectDescribed(
              [...w.subnets.values()],
              p,
              'DescribeSubnets',
              'SubnetId',
              (s) => s.id,
              (s, n) => subnetAttr(w, s, n),
              'subnet',
            ),
            (s) => subnetXml(w, s),
          ),
        ),
    ],
    [
      'DeleteSubnet',
      ({ body: p }) => {
        const s = w.mustId('subnet', w.subnets, p.get('SubnetId'));
        if (w.liveInstances().some((i) => i.subnetId === s.id))
          throw new EmulatorError(400, 'DependencyViolation', `The subnet '${s.id}' has dependencies and cannot be deleted.`);
        w.subnets.delete(s.id);
        return done();
      },
    ],
  ];
}
