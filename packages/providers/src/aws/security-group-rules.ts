// Firewall rules as EC2 security-group permissions: both sides as atoms (protocol, ports, one source), the unit
// EC2 authorizes and revokes, so a firewall converges by the difference.
import type { IpPermission, SecurityGroup } from '@aws-sdk/client-ec2';
import type { FirewallRule } from '@kubeplane/sdk/provider';

/** Firewall rules as atoms (protocol, from, to, source), the unit EC2 authorizes and revokes. */
export function ruleAtoms(rules: FirewallRule[], selfGroupId: string): Map<string, IpPermission> {
  const atoms = new Map<string, IpPermission>();
  for (const r of rules) {
    const protocol = r.protocol;
    const [from, to] = r.port === undefined ? [-1, -1] : typeof r.port === 'number' ? [r.port, r.port] : [r.port[0], r.port[1]];
    for (const cidr of r.sourceCidrs)
      atoms.set(`${protocol}|${from}|${to}|${cidr}`, {
        IpProtocol: protocol,
        FromPort: from,
        ToPort: to,
        IpRanges: [{ CidrIp: cidr, ...(r.description ? { Description: r.description } : {}) }],
      });
    if (r.fromClusterNodes)
      atoms.set(`${protocol}|${from}|${to}|${selfGroupId}`, {
        IpProtocol: protocol,
        FromPort: from,
        ToPort: to,
        UserIdGroupPairs: [{ GroupId: selfGroupId }],
      });
  }
  return atoms;
}

/** A security group's permissions as atoms. */
export function currentAtoms(group: SecurityGroup): Map<string, IpPermission> {
  const atoms = new Map<string, IpPermission>();
  for (const p of group.IpPermissions ?? []) {
    const protocol = p.IpProtocol ?? '-1';
    const from = p.FromPort ?? -1;
    const to = p.ToPort ?? -1;
    for (const range of p.IpRanges ?? [])
      atoms.set(`${protocol}|${from}|${to}|${range.CidrIp ?? ''}`, {
        IpProtocol: protocol,
        FromPort: from,
        ToPort: to,
        IpRanges: [{ CidrIp: range.CidrIp ?? '' }],
      });
    for (const pair of p.UserIdGroupPairs ?? [])
      atoms.set(`${protocol}|${from}|${to}|${pair.GroupId ?? ''}`, {
        IpProtocol: protocol,
        FromPort: from,
        ToPort: to,
        UserIdGroupPairs: [{ GroupId: pair.GroupId ?? '' }],
      });
  }
  return atoms;
}

/** Atoms back as firewall rules, one per protocol and port range. */
export function rulesFromAtoms(atoms: Map<string, IpPermission>, selfGroupId: string): FirewallRule[] {
  const byPort = new Map<string, FirewallRule>();
  for (const a of atoms.values()) {
    const key = `${a.IpProtocol}|${a.FromPort}|${a.ToPort}`;
    let rule = byPort.get(key);
    if (!rule) {
      const from = a.FromPort ?? -1;
      const to = a.ToPort ?? -1;
      rule = {
        protocol: (a.IpProtocol ?? 'tcp') as FirewallRule['protocol'],
        ...(from >= 0 ? { port: from === to ? from : ([from, to] as const) } : {}),
        sourceCidrs: [],
      };
      byPort.set(key, rule);
    }
    for (const r of a.IpRanges ?? []) rule.sourceCidrs.push(r.CidrIp ?? '');
    if ((a.UserIdGroupPairs ?? []).some((p) => p.GroupId === selfGroupId)) rule.fromClusterNodes = true;
  }
  return [...byPort.values()];
}
