// Security groups: CreateSecurityGroup, DescribeSecurityGroups, AuthorizeSecurityGroupIngress,
// RevokeSecurityGroupIngress and DeleteSecurityGroup. Egress is EC2's default, everything allowed.
import { EmulatorError } from '../emulator/index.js';
import { items, queryMembers, t, tagsFor } from '../xml.js';
import { done, type Ec2Routes, type Query, result } from './dialect.js';
import { selectDescribed, tagAttr } from './filters.js';
import { OWNER, type SecurityGroup } from './resources.js';
import { tagsXml } from './tags.js';
import type { Ec2World } from './world.js';

function sgXml(g: SecurityGroup): string {
  return (
    t('ownerId', OWNER) +
    t('groupId', g.id) +
    t('groupName', g.name) +
    t('groupDescription', g.description) +
    t('vpcId', g.vpcId) +
    items(
      'ipPermissions',
      g.ingress,
      (x) =>
        t('ipProtocol', x.protocol) +
        (x.protocol === '-1' ? '' : t('fromPort', x.from) + t('toPort', x.to)) +
        items('groups', x.groups, (id) => t('userId', OWNER) + t('groupId', id)) +
        items('ipRanges', x.cidrs, (c) => t('cidrIp', c.cidr) + t('description', c.description)),
    ) +
    items('ipPermissionsEgress', [EGRESS], (e) => t('ipProtocol', e.protocol) + items('ipRanges', e.cidrs, (c) => t('cidrIp', c))) +
    tagsXml(g.tags)
  );
}

/** EC2's default egress rule of every group: all traffic to 0.0.0.0/0 (the sandbox does not change egress). */
const EGRESS = { protocol: '-1', cidrs: ['0.0.0.0/0'] };

/** A group's values for the filters of DescribeSecurityGroups; it has no IPv6 ranges or prefix lists. */
function sgAttr(w: Ec2World, g: SecurityGroup, name: string): string[] {
  const ports = (x: { protocol: string; from: number }, v: number) => (x.protocol === '-1' ? [] : [String(v)]);
  switch (name) {
    case 'group-id':
      return [g.id];
    case 'vpc-id':
      return [g.vpcId];
    case 'group-name':
      return [g.name];
    case 'description':
      return [g.description];
    case 'owner-id':
      return [OWNER];
    case 'ip-permission.protocol':
      return g.ingress.map((x) => x.protocol);
    case 'ip-permission.from-port':
      return g.ingress.flatMap((x) => ports(x, x.from));
    case 'ip-permission.to-port':
      return g.ingress.flatMap((x) => ports(x, x.to));
    case 'ip-permission.cidr':
      return g.ingress.flatMap((x) => x.cidrs.map((c) => c.cidr));
    case 'ip-permission.group-id':
      return g.ingress.flatMap((x) => x.groups);
    case 'ip-permission.group-name':
      return g.ingress.flatMap((x) => x.groups.map((id) => w.securityGroups.get(id)?.name ?? ''));
    case 'ip-permission.user-id':
      return g.ingress.some((x) => x.groups.length > 0) ? [OWNER] : [];
    case 'egress.ip-permission.protocol':
      return [EGRESS.protocol];
    case 'egress.ip-permission.cidr':
      return EGRESS.cidrs;
    default:
      return tagAttr(g.tags, name);
  }
}

function duplicate(peer: string, protocol: string, from: number, to: number): EmulatorError {
  return new EmulatorError(
    400,
    'InvalidPermission.Duplicate',
    `the specified rule "peer: ${peer}, ${protocol.toUpperCase()}, from port: ${from}, to port: ${to}, ALLOW" already exists`,
  );
}

function changeIngress(w: Ec2World, p: Query, mode: 'authorize' | 'revoke'): void {
  const g = w.mustId('security-group', w.securityGroups, p.get('GroupId'));
  for (const m of queryMembers(p, 'IpPermissions')) {
    const protocol = m.get('IpProtocol') ?? '-1';
    const from = Number(m.get('FromPort') ?? '-1');
    const to = Number(m.get('ToPort') ?? '-1');
    const cidrs = queryMembers(m, 'IpRanges').map((r) => ({
      cidr: r.get('CidrIp') ?? '',
      ...(r.get('Description') ? { description: r.get('Description') ?? '' } : {}),
    }));
    const groups = queryMembers(m, 'Groups').map((r) => r.get('GroupId') ?? '');
    let perm = g.ingress.find((x) => x.protocol === protocol && x.from === from && x.to === to);
    if (mode === 'authorize') {
      if (!perm) g.ingress.push((perm = { protocol, from, to, cidrs: [], groups: [] }));
      for (const c of cidrs) {
        if (perm.cidrs.some((x) => x.cidr === c.cidr)) throw duplicate(c.cidr, protocol, from, to);
        perm.cidrs.push(c);
      }
      for (const id of groups) {
        if (perm.groups.includes(id)) throw duplicate(id, protocol, from, to);
        w.mustId('security-group', w.securityGroups, id);
        perm.groups.push(id);
      }
    } else {
      if (!perm || cidrs.some((c) => !perm?.cidrs.some((x) => x.cidr === c.cidr)) || groups.some((id) => !perm?.groups.includes(id)))
        throw new EmulatorError(400, 'InvalidPermission.NotFound', 'The specified rule does not exist in this security group.');
      perm.cidrs = perm.cidrs.filter((x) => !cidrs.some((c) => c.cidr === x.cidr));
      perm.groups = perm.groups.filter((x) => !groups.includes(x));
      if (perm.cidrs.length === 0 && perm.groups.length === 0) g.ingress = g.ingress.filter((x) => x !== perm);
    }
  }
}

export function securityGroupRoutes(w: Ec2World): Ec2Routes {
  return [
    [
      'CreateSecurityGroup',
      ({ body: p }) => {
        const vpc = w.mustId('vpc', w.vpcs, p.get('VpcId'));
        const name = p.get('GroupName') ?? '';
        if (w.securityGroups.find((g) => g.vpcId === vpc.id && g.name === name))
          throw new EmulatorError(400, 'InvalidGroup.Duplicate', `The security group '${name}' already exists for VPC '${vpc.id}'`);
        const g: SecurityGroup = {
          id: w.id('sg'),
          name,
          description: p.get('GroupDescription') ?? '',
          vpcId: vpc.id,
          tags: tagsFor(p, 'security-group'),
          ingress: [],
        };
        w.securityGroups.set(g.id, g);
        return result(t('return', true) + t('groupId', g.id));
      },
    ],
    [
      'DescribeSecurityGroups',
      ({ body: p }) =>
        result(
          items(
            'securityGroupInfo',
            selectDescribed(
              [...w.securityGroups.values()],
              p,
              'DescribeSecurityGroups',
              'GroupId',
              (g) => g.id,
              (g, n) => sgAttr(w, g, n),
              'security-group',
            ),
            sgXml,
          ),
        ),
    ],
    [
      'AuthorizeSecurityGroupIngress',
      ({ body }) => {
        changeIngress(w, body, 'authorize');
        return done();
      },
    ],
    [
      'RevokeSecurityGroupIngress',
      ({ body }) => {
        changeIngress(w, body, 'revoke');
        return done();
      },
    ],
    [
      'DeleteSecurityGroup',
      ({ body: p }) => {
        const g = w.mustId('security-group', w.securityGroups, p.get('GroupId'));
        const inUse = () => new EmulatorError(400, 'DependencyViolation', `resource ${g.id} has a dependent object`);
        if (w.liveInstances().some((i) => i.groups.includes(g.id))) throw inUse();
        if (w.securityGroups.find((o) => o.id !== g.id && o.ingress.some((x) => x.groups.includes(g.id)))) throw inUse();
        w.securityGroups.delete(g.id);
        return done();
      },
    ],
  ];
}
