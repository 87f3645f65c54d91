// The hcloud CLI (Debian's hcloud-cli 1.30, hcloud-go underneath) against the served Hetzner Cloud API of a world with
// examples/minimal.yaml's cluster: what a user's scripts run, the catalogs, their own servers and the resources around
// them, the refusals that once hung the CLI (a 409 `conflict` it retried forever), and operations the sandbox does not
// emulate, refused in the sealed sandbox's words.
import { type CliOp, check, type SweepVars } from './ops.js';

const API = 'Hetzner Cloud';
type Json = Record<string, unknown>;

const right = (operation: string, expect: string, args: string[] | ((v: SweepVars) => string[]), verify?: (out: string, v: SweepVars) => void): CliOp => ({
  api: API,
  operation,
  expect,
  outcome: 'right',
  args,
  ...(verify ? { check: (run, v) => verify(run.stdout, v) } : {}),
});
const refused = (operation: string, expect: string, args: string[] | ((v: SweepVars) => string[]), refusal: RegExp): CliOp => ({
  api: API,
  operation,
  expect,
  outcome: 'refused',
  args,
  refusal,
});
const lines = (out: string) => out.trim().split('\n').filter(Boolean);
const parsed = <T = Json>(out: string) => JSON.parse(out) as T;
/** The sealed sandbox's refusal of an operation Hetzner's API has and the sandbox does not emulate. */
const NOT_EMULATED = /the sandbox does not serve .*unsupported_error/s;

export const HCLOUD_CLI_OPS: CliOp[] = [
  // The cluster's servers, as a user first looks at them.
  right('server list', "the cluster's three servers", ['server', 'list', '-o', 'noheader', '-o', 'columns=name'], (out) =>
    check(lines(out).filter((l) => l.startsWith('minimal-')).length === 3, out),
  ),
  right(
    'server list -l',
    'only the servers the label selector picks',
    ['server', 'list', '-l', 'kubeplane.dev/cluster-id', '-o', 'noheader', '-o', 'columns=name'],
    (out) => check(lines(out).length === 3 && lines(out).every((l) => l.startsWith('minimal-')), out),
  ),
  right(
    'server list -l !label',
    'no server: every one carries the cluster label',
    ['server', 'list', '-l', '!kubeplane.dev/cluster-id', '-o', 'noheader'],
    (out) => check(out.trim() === '', out),
  ),
  right('server list -o json', 'JSON with the servers and their IPv4', ['server', 'list', '-o', 'json'], (out) =>
    check(
      parsed<Array<{ public_net: { ipv4: { ip: string } } }>>(out).every((s) => /^198\.18\./.test(s.public_net.ipv4.ip)),
      out,
    ),
  ),
  right('server list -s name:desc', 'sorted by name, descending', ['server', 'list', '-s', 'name:desc', '-o', 'noheader', '-o', 'columns=name'], (out) =>
    check(JSON.stringify(lines(out)) === JSON.stringify([...lines(out)].sort().reverse()), out),
  ),
  refused('server list -s status', "invalid_input: status is not among the endpoint's sort fields", ['server', 'list', '-s', 'status'], /invalid_input/),
  refused('server list -l (malformed)', 'invalid_input for a malformed selector', ['server', 'list', '-l', 'a=b=c'], /invalid_input/),
  // The catalogs.
  right('server-type list', 'the types sold, cpx22 among them', ['server-type', 'list', '-o', 'noheader', '-o', 'columns=name,cores'], (out) =>
    check(/^cpx22\s+2$/m.test(out), out),
  ),
  right('server-type describe -o json', 'cpx22 with its per-location prices', ['server-type', 'describe', 'cpx22', '-o', 'json'], (out) =>
    check(parsed<{ prices: unknown[]; cores: number }>(out).prices.length > 0, out),
  ),
  right('image list --type system', 'system images only', ['image', 'list', '--type', 'system', '-o', 'noheader', '-o', 'columns=type,name'], (out) =>
    check(lines(out).length > 0 && lines(out).every((l) => l.startsWith('system')), out),
  ),
  right('image list --type snapshot', 'none: the project has no snapshots', ['image', 'list', '--type', 'snapshot', '-o', 'noheader'], (out) =>
    check(out.trim() === '', out),
  ),
  right('image describe -o json', 'the image by id, with its architecture', ['image', 'describe', '161547269', '-o', 'json'], (out) =>
    check(parsed<{ name: string; architecture: string }>(out).name === 'ubuntu-24.04', out),
  ),
  right('location list', 'the six locations', ['location', 'list', '-o', 'noheader', '-o', 'columns=name'], (out) =>
    check(
      ['fsn1', 'nbg1', 'hel1', 'ash', 'hil', 'sin'].every((l) => lines(out).includes(l)),
      out,
    ),
  ),
  right('location describe', 'fsn1 in eu-central', ['location', 'describe', 'fsn1'], (out) => check(/eu-central/.test(out), out)),
  right('datacenter describe -o json', 'fsn1-dc14 with the server types it sells', ['datacenter', 'describe', 'fsn1-dc14', '-o', 'json'], (out) =>
    check(parsed<{ server_types: { available: number[] } }>(out).server_types.available.length > 0, out),
  ),
  right('load-balancer-type list', 'lb11, lb21, lb31', ['load-balancer-type', 'list', '-o', 'noheader', '-o', 'columns=name'], (out) =>
    check(
      ['lb11', 'lb21', 'lb31'].every((t) => lines(out).includes(t)),
      out,
    ),
  ),
  right('iso list', 'public ISOs', ['iso', 'list', '-o', 'noheader', '-o', 'columns=name'], (out) => check(/\.iso$/m.test(out), out)),
  // A server of the user's own, with IPv6.
  right('placement-group create', 'a spread group', ['placement-group', 'create', '--name', 'sweep-pg', '--type', 'spread'], (out) =>
    check(/Placement group \d+ created/.test(out), out),
  ),
  right(
    'server create',
    'created and running, with an IPv4 and an IPv6 /64',
    [
      'server',
      'create',
      '--name',
      'sweep-1',
      '--type',
      'cpx22',
      '--image',
      'ubuntu-24.04',
      '--location',
      'fsn1',
      '--placement-group',
      'sweep-pg',
      '--label',
      'team=blue',
    ],
    (out) => check(/Server \d+ created/.test(out) && /IPv6 Network: 2001:db8:[0-9a-f:]+\/64/.test(out), out),
  ),
  right(
    'server describe -o json',
    'running, with public_net.ipv4 and ipv6 and the placement group',
    ['server', 'describe', 'sweep-1', '-o', 'json'],
    (out, v) => {
      const s = parsed<{
        id: number;
        status: string;
        public_net: { ipv4: { id: number }; ipv6: { ip: string; id: number } };
        placement_group: { name: string };
      }>(out);
      check(s.status === 'running' && /\/64$/.test(s.public_net.ipv6.ip) && s.placement_group.name === 'sweep-pg', out);
      v['serverId'] = String(s.id);
      v['ipv4Id'] = String(s.public_net.ipv4.id);
    },
  ),
  right('server describe -o format', 'the Go template renders the name', ['server', 'describe', 'sweep-1', '-o', 'format={{.Name}} {{.Status}}'], (out) =>
    check(out.trim() === 'sweep-1 running', out),
  ),
  right('server ip', 'the IPv4', ['server', 'ip', 'sweep-1'], (out) => check(/^198\.18\.\d+\.\d+$/.test(out.trim()), out)),
  right('server ip -6', 'the first address of its /64', ['server', 'ip', '-6', 'sweep-1'], (out) => check(/^2001:db8:[0-9a-f:]+::1$/.test(out.trim()), out)),
  right(
    'server list -l team=blue -o columns=name,ipv6',
    'the new server with its /64',
    ['server', 'list', '-l', 'team=blue', '-o', 'noheader', '-o', 'columns=name,ipv6'],
    (out) => check(/^sweep-1\s+2001:db8:[0-9a-f:]+\/64$/.test(out.trim()), out),
  ),
  right('primary-ip list', "the server's IPv4 and IPv6 primary IPs", ['primary-ip', 'list', '-o', 'json'], (out) => {
    const ips = parsed<Array<{ type: string; assignee_id: number }>>(out);
    check(ips.filter((ip) => ip.type === 'ipv6').length >= 1 && ips.some((ip) => ip.type === 'ipv4'), out);
  }),
  right('server add-label', 'the label is set', ['server', 'add-label', 'sweep-1', 'tier=web'], (out) => check(/added/.test(out), out)),
  right('server remove-label', 'the label is gone', ['server', 'remove-label', 'sweep-1', 'tier'], (out) => check(/removed/.test(out), out)),
  right('server update --name', 'renamed', ['server', 'update', 'sweep-1', '--name', 'sweep-one'], (out) => check(/updated/.test(out), out)),
  right('server poweroff', 'stopped', ['server', 'poweroff', 'sweep-one'], (out) => check(/stopped/.test(out), out)),
  right('server describe (off)', 'status off', ['server', 'describe', 'sweep-one', '-o', 'format={{.Status}}'], (out) => check(out.trim() === 'off', out)),
  right('server poweron', 'started', ['server', 'poweron', 'sweep-one'], (out) => check(/started/.test(out), out)),
  right('server reboot', 'rebooted', ['server', 'reboot', 'sweep-one'], (out) => check(/rebooted/.test(out), out)),
  right('server reset', 'reset', ['server', 'reset', 'sweep-one'], (out) => check(/reset/.test(out), out)),
  right('server shutdown', 'shut down', ['server', 'shutdown', 'sweep-one'], (out) => check(/shut/i.test(out), out)),
  // The refusals that once came back as a 409 `conflict`, which the CLI retries without end.
  refused('placement-group delete (still holding a server)', 'resource_in_use, at once', ['placement-group', 'delete', 'sweep-pg'], /resource_in_use/),
  refused(
    'server create --primary-ipv4 (assigned)',
    'primary_ip_assigned, at once',
    (v) => ['server', 'create', '--name', 'sweep-2', '--type', 'cpx22', '--image', 'ubuntu-24.04', '--location', 'fsn1', '--primary-ipv4', v['ipv4Id'] ?? ''],
    /primary_ip_assigned/,
  ),
  // Primary IPs, networks, firewalls, volumes, floating IPs, SSH keys, load balancers.
  right(
    'primary-ip create --type ipv6',
    'an IPv6 /64 in fsn1',
    ['primary-ip', 'create', '--type', 'ipv6', '--name', 'sweep-v6', '--datacenter', 'fsn1-dc14'],
    (out) => check(/Primary IP \d+ created/.test(out), out),
  ),
  right('primary-ip describe -o json', 'type ipv6, unassigned', ['primary-ip', 'describe', 'sweep-v6', '-o', 'json'], (out) => {
    const ip = parsed<{ type: string; assignee_id: number | null }>(out);
    check(ip.type === 'ipv6' && !ip.assignee_id, out);
  }),
  right('primary-ip delete', 'deleted', ['primary-ip', 'delete', 'sweep-v6'], (out) => check(/deleted/.test(out), out)),
  right('network create', 'created', ['network', 'create', '--name', 'sweep-net', '--ip-range', '10.50.0.0/16'], (out) => check(/created/.test(out), out)),
  right(
    'network add-subnet',
    'a cloud subnet in eu-central',
    ['network', 'add-subnet', 'sweep-net', '--type', 'cloud', '--network-zone', 'eu-central', '--ip-range', '10.50.1.0/24'],
    (out) => check(/added/i.test(out), out),
  ),
  right('network describe -o json', 'the subnet and its gateway', ['network', 'describe', 'sweep-net', '-o', 'json'], (out) =>
    check(parsed<{ subnets: Array<{ gateway: string }> }>(out).subnets[0]?.gateway === '10.50.1.1', out),
  ),
  right('firewall create', 'created', ['firewall', 'create', '--name', 'sweep-fw'], (out) => check(/created/.test(out), out)),
  right(
    'firewall add-rule',
    'an inbound SSH rule',
    ['firewall', 'add-rule', 'sweep-fw', '--direction', 'in', '--protocol', 'tcp', '--port', '22', '--source-ips', '0.0.0.0/0'],
    (out) => check(/rule/i.test(out), out),
  ),
  right('firewall describe -o json', 'the rule', ['firewall', 'describe', 'sweep-fw', '-o', 'json'], (out) =>
    check(parsed<{ rules: Array<{ port: string }> }>(out).rules[0]?.port === '22', out),
  ),
  right('volume create', 'a 10 GB volume in fsn1', ['volume', 'create', '--name', 'sweep-vol', '--size', '10', '--location', 'fsn1'], (out) =>
    check(/created/.test(out), out),
  ),
  // The CLI's JSON of a volume leaves `status` empty whatever the API answers (hcloud-cli 1.30's volume schema).
  right('volume list -o json', 'the volume, 10 GB in fsn1', ['volume', 'list', '-o', 'json'], (out) =>
    check(
      parsed<Array<{ name: string; size: number; location: { name: string } }>>(out).some(
        (v) => v.name === 'sweep-vol' && v.size === 10 && v.location.name === 'fsn1',
      ),
      out,
    ),
  ),
  right('volume describe', 'its size, device and location', ['volume', 'describe', 'sweep-vol'], (out) =>
    check(/Size:\s+10 GB/.test(out) && /scsi-0HC_Volume_\d+/.test(out) && /fsn1/.test(out), out),
  ),
  right('volume delete', 'deleted', ['volume', 'delete', 'sweep-vol'], (out) => check(/deleted/.test(out), out)),
  right('floating-ip create', 'an IPv4 in fsn1', ['floating-ip', 'create', '--type', 'ipv4', '--home-location', 'fsn1', '--name', 'sweep-fip'], (out) =>
    check(/created/.test(out), out),
  ),
  right('floating-ip delete', 'deleted', ['floating-ip', 'delete', 'sweep-fip'], (out) => check(/deleted/.test(out), out)),
  right(
    'floating-ip create --type ipv6',
    'an IPv6 /64 in fsn1',
    ['floating-ip', 'create', '--type', 'ipv6', '--home-location', 'fsn1', '--name', 'sweep-fip6'],
    (out) => check(/created/.test(out), out),
  ),
  right('floating-ip describe -o json (ipv6)', 'type ipv6, a /64', ['floating-ip', 'describe', 'sweep-fip6', '-o', 'json'], (out) => {
    const ip = parsed<{ type: string; ip: string }>(out);
    check(ip.type === 'ipv6' && /\/64$/.test(ip.ip), out);
  }),
  right('floating-ip delete (ipv6)', 'deleted', ['floating-ip', 'delete', 'sweep-fip6'], (out) => check(/deleted/.test(out), out)),
  right(
    'ssh-key create',
    'created, with its MD5 fingerprint',
    ['ssh-key', 'create', '--name', 'sweep-key', '--public-key', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3eC6F8mgbVf1kEXnBFqQyrm0Ae4jMX0lCezHzDdJ3X sweep'],
    (out) => check(/created/.test(out), out),
  ),
  right('ssh-key list', 'the key with its fingerprint', ['ssh-key', 'list', '-o', 'noheader', '-o', 'columns=name,fingerprint'], (out) =>
    check(/^sweep-key\s+([0-9a-f]{2}:){15}[0-9a-f]{2}$/m.test(out), out),
  ),
  refused(
    'ssh-key create (same key again)',
    'uniqueness_error',
    ['ssh-key', 'create', '--name', 'sweep-key-2', '--public-key', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3eC6F8mgbVf1kEXnBFqQyrm0Ae4jMX0lCezHzDdJ3X sweep'],
    /uniqueness_error/,
  ),
  right('load-balancer create', 'an lb11 in fsn1', ['load-balancer', 'create', '--name', 'sweep-lb', '--type', 'lb11', '--location', 'fsn1'], (out) =>
    check(/LoadBalancer \d+ created/.test(out), out),
  ),
  right(
    'load-balancer add-target --label-selector',
    'a label-selector target',
    ['load-balancer', 'add-target', 'sweep-lb', '--label-selector', 'team=blue'],
    (out) => check(/added/i.test(out), out),
  ),
  right('load-balancer describe -o json', 'the selector target with the server it picks', ['load-balancer', 'describe', 'sweep-lb', '-o', 'json'], (out, v) =>
    check(parsed<{ targets: Array<{ targets: Array<{ server: { id: number } }> }> }>(out).targets[0]?.targets[0]?.server.id === Number(v['serverId']), out),
  ),
  right(
    'load-balancer describe -o format (ipv6)',
    'its public IPv6 address',
    ['load-balancer', 'describe', 'sweep-lb', '-o', 'format={{.PublicNet.IPv6.IP}}'],
    (out) => check(/^2001:db8:[0-9a-f:]+::1$/.test(out.trim()), out),
  ),
  // What the sandbox does not emulate: refused in its own words, never answered as something else.
  refused(
    'certificate create --type managed',
    'not emulated',
    ['certificate', 'create', '--name', 'sweep-managed', '--type', 'managed', '--domain', 'www.example.de'],
    /the sandbox does not serve managed certificates/,
  ),
  refused('server set-rdns', 'not emulated', ['server', 'set-rdns', 'sweep-one', '--hostname', 'web.example.com'], NOT_EMULATED),
  refused('server enable-protection', 'not emulated', ['server', 'enable-protection', 'sweep-one', 'delete'], NOT_EMULATED),
  refused('server create-image', 'not emulated', ['server', 'create-image', 'sweep-one', '--type', 'snapshot'], NOT_EMULATED),
  refused('server metrics', 'not emulated', ['server', 'metrics', 'sweep-one', '--type', 'cpu'], NOT_EMULATED),
  refused('server enable-rescue', 'not emulated', ['server', 'enable-rescue', 'sweep-one'], NOT_EMULATED),
  // Clean-up, as a script ends.
  right('server delete', 'deleted, with its primary IPs', ['server', 'delete', 'sweep-one'], (out) => check(/deleted/.test(out), out)),
  right('placement-group delete', 'deleted once empty', ['placement-group', 'delete', 'sweep-pg'], (out) => check(/deleted/.test(out), out)),
  right('load-balancer delete', 'deleted', ['load-balancer', 'delete', 'sweep-lb'], (out) => check(/deleted/.test(out), out)),
];
