// python3-hcloud (Debian's hcloud-python 1.18, Hetzner's official Python library) against the served Hetzner Cloud API of
// a world with examples/minimal.yaml's cluster: lists with their filters, a server of the user's own with IPv6 and its
// actions, the resources around it, the API's refusals, and operations the sandbox does not emulate.
import type { PythonOp } from './ops.js';

export const PYTHON_HCLOUD_PRELUDE = `
import os
from hcloud import Client, APIException
from hcloud.server_types.domain import ServerType
from hcloud.images.domain import Image
from hcloud.locations.domain import Location
from hcloud.datacenters.domain import Datacenter
from hcloud.networks.domain import NetworkSubnet
from hcloud.firewalls.domain import FirewallRule, FirewallResource
from hcloud.load_balancer_types.domain import LoadBalancerType
from hcloud.load_balancers.domain import LoadBalancerService, LoadBalancerHealthCheck, LoadBalancerTarget
from hcloud.servers.domain import ServerCreatePublicNetwork
client = Client(token=os.environ['HCLOUD_TOKEN'], api_endpoint=os.environ['HCLOUD_ENDPOINT'])
def refused(call):
    # APIException prints its message only; the sweep's refusals match the code too.
    try:
        call()
    except APIException as e:
        raise RuntimeError(f'{e.code}: {e.message} {e.details}')
    raise CheckFailed('it succeeded')
def wait(action):
    action.wait_until_finished(max_retries=200)
    return action
`;

const API = 'Hetzner Cloud';
const op = (operation: string, expect: string, code: string): PythonOp => ({ api: API, operation, expect, outcome: 'right', code });
const no = (operation: string, expect: string, refusal: RegExp, code: string): PythonOp => ({ api: API, operation, expect, outcome: 'refused', refusal, code });
/** The sealed sandbox's refusal of an operation Hetzner's API has and the sandbox does not emulate. */
const NOT_EMULATED = /unsupported_error: the sandbox does not serve/;

export const PYTHON_HCLOUD_OPS: PythonOp[] = [
  // Lists and their filters.
  op(
    'servers.get_all',
    "the cluster's three servers",
    `
cluster = client.servers.get_all()
check(len([s for s in cluster if s.name.startswith('minimal-')]) == 3, [s.name for s in cluster])
`,
  ),
  op(
    'servers.get_all(label_selector)',
    'the servers of the cluster label',
    `
check(len(client.servers.get_all(label_selector='kubeplane.dev/cluster-id')) == 3, 'selector')
`,
  ),
  op(
    'servers.get_all(status=[off])',
    'none: every server runs',
    `
check(client.servers.get_all(status=['off']) == [], 'status filter')
`,
  ),
  op(
    'servers.get_all(status=[running])',
    'the three servers',
    `
check(len(client.servers.get_all(status=['running'])) == 3, 'running')
`,
  ),
  op(
    'servers.get_list(page, per_page)',
    'one server per page, with the pagination meta',
    `
page = client.servers.get_list(page=2, per_page=1)
check(len(page.servers) == 1 and page.meta.pagination.page == 2 and page.meta.pagination.total_entries == 3, str(page.meta.pagination.total_entries))
`,
  ),
  no(
    'servers.get_list(page=abc)',
    'invalid_input for a page that is not a number',
    /invalid_input/,
    `
refused(lambda: client.servers.get_list(page='abc'))
`,
  ),
  no(
    'servers.get_all(status=[sleeping])',
    'invalid_input for a status the API does not have',
    /invalid_input/,
    `
refused(lambda: client.servers.get_all(status=['sleeping']))
`,
  ),
  op(
    'servers.get_by_name',
    'the control plane by its name',
    `
control = client.servers.get_by_name(cluster[0].name)
check(control.id == cluster[0].id and control.server_type.name == 'cpx22', control.server_type.name)
`,
  ),
  op(
    'server_types.get_all',
    'the types sold, cpx22 and cax11 among them',
    `
names = {t.name for t in client.server_types.get_all()}
check({'cpx22', 'cax11'} <= names, str(names))
`,
  ),
  op(
    'server_types.get_by_name',
    'cpx22 with its prices per location',
    `
t = client.server_types.get_by_name('cpx22')
check(t.cores == 2 and len(t.prices) > 0, str(t.cores))
`,
  ),
  op(
    'images.get_all(type=[system])',
    'system images, the deprecated left out',
    `
images = client.images.get_all(type=['system'])
check(images and all(i.type == 'system' for i in images) and 'ubuntu-20.04' not in {i.name for i in images}, str([i.name for i in images]))
`,
  ),
  op(
    'images.get_all(include_deprecated=True)',
    'the deprecated ubuntu-20.04 too',
    `
check('ubuntu-20.04' in {i.name for i in client.images.get_all(include_deprecated=True)}, 'deprecated')
`,
  ),
  op(
    'images.get_all(type=[snapshot])',
    'none: the project has no snapshots',
    `
check(client.images.get_all(type=['snapshot']) == [], 'snapshots')
`,
  ),
  op(
    'images.get_by_id',
    'ubuntu-24.04, a system image',
    `
i = client.images.get_by_id(161547269)
check(i.name == 'ubuntu-24.04' and i.type == 'system' and i.os_flavor == 'ubuntu', i.name)
`,
  ),
  op(
    'locations.get_all',
    'six locations',
    `
check({l.name for l in client.locations.get_all()} == {'fsn1', 'nbg1', 'hel1', 'ash', 'hil', 'sin'}, 'locations')
`,
  ),
  op(
    'locations.get_by_name',
    'fsn1 in eu-central',
    `
check(client.locations.get_by_name('fsn1').network_zone == 'eu-central', 'zone')
`,
  ),
  op(
    'datacenters.get_by_name',
    'fsn1-dc14 with the types it sells',
    `
dc = client.datacenters.get_by_name('fsn1-dc14')
check(dc.location.name == 'fsn1' and len(dc.server_types.available) > 0, dc.name)
`,
  ),
  op(
    'load_balancer_types.get_all',
    'lb11, lb21, lb31',
    `
check({'lb11', 'lb21', 'lb31'} <= {t.name for t in client.load_balancer_types.get_all()}, 'lb types')
`,
  ),
  op(
    'isos.get_all',
    'public ISOs',
    `
check(any(i.name.endswith('.iso') for i in client.isos.get_all()), 'isos')
`,
  ),
  op(
    'primary_ips.get_all',
    "the cluster's reserved IPv4",
    `
check(any(ip.type == 'ipv4' and ip.name.endswith('-api') for ip in client.primary_ips.get_all()), 'api ip')
`,
  ),
  // A server of the user's own.
  op(
    'placement_groups.create',
    'a spread group',
    `
pg = client.placement_groups.create(name='py-pg', type='spread').placement_group
check(pg.type == 'spread', pg.type)
`,
  ),
  op(
    'servers.create',
    'created with an IPv4 and an IPv6 /64, its create action running',
    `
created = client.servers.create('py-1', server_type=ServerType(name='cpx22'), image=Image(name='ubuntu-24.04'), location=Location(name='fsn1'), labels={'team': 'green'}, placement_group=pg)
server = created.server
check(created.action.command == 'create_server' and created.server.public_net.ipv6.ip.endswith('/64'), created.server.public_net.ipv6.ip)
`,
  ),
  op(
    'action.wait_until_finished',
    'the create and start actions succeed',
    `
for a in [created.action] + created.next_actions:
    check(wait(a).status == 'success', a.command)
`,
  ),
  op(
    'servers.get_by_id',
    'running, in fsn1-dc14, in the placement group',
    `
server = client.servers.get_by_id(server.id)
check(server.status == 'running' and server.datacenter.name == 'fsn1-dc14' and server.placement_group.id == pg.id, server.status)
`,
  ),
  op(
    'public_net.primary_ipv6',
    'the /64 is a primary IP of type ipv6 assigned to the server',
    `
v6 = client.primary_ips.get_by_id(server.public_net.primary_ipv6.id)
check(v6.type == 'ipv6' and v6.assignee_id == server.id and v6.auto_delete, v6.type)
`,
  ),
  op(
    'servers.get_actions',
    'its create_server and start_server actions',
    `
check([a.command for a in server.get_actions()] == ['create_server', 'start_server'], [a.command for a in server.get_actions()])
`,
  ),
  op(
    'servers.get_actions_list(status)',
    'both succeeded',
    `
check(len(client.servers.get_actions_list(server, status=['success']).actions) == 2, 'status')
`,
  ),
  op(
    'actions.get_by_id',
    'the create action by its id',
    `
check(client.actions.get_by_id(created.action.id).command == 'create_server', 'by id')
`,
  ),
  op(
    'servers.update(labels)',
    'labels replaced',
    `
server = server.update(labels={'team': 'green', 'tier': 'web'})
check(server.labels == {'team': 'green', 'tier': 'web'}, str(server.labels))
`,
  ),
  op(
    'servers.get_all(label_selector=tier=web)',
    'the server by its new label',
    `
check([s.name for s in client.servers.get_all(label_selector='tier=web')] == ['py-1'], 'selector')
`,
  ),
  op(
    'servers.power_off',
    'off once the action finishes',
    `
wait(server.power_off())
check(client.servers.get_by_id(server.id).status == 'off', 'off')
`,
  ),
  op(
    'servers.get_all(status=[off]) after power_off',
    'the server that is off',
    `
check([s.name for s in client.servers.get_all(status=['off'])] == ['py-1'], 'off filter')
`,
  ),
  op(
    'servers.power_on',
    'running again',
    `
wait(server.power_on())
check(client.servers.get_by_id(server.id).status == 'running', 'on')
`,
  ),
  op(
    'servers.reboot',
    'a reboot_server action that succeeds',
    `
check(wait(server.reboot()).command == 'reboot_server', 'reboot')
`,
  ),
  op(
    'servers.shutdown',
    'off once the OS has shut down',
    `
wait(server.shutdown())
check(client.servers.get_by_id(server.id).status == 'off', 'shutdown')
`,
  ),
  // The API's refusals, in its codes.
  no(
    'placement_groups.delete (holding a server)',
    'resource_in_use, never the retried conflict',
    /resource_in_use/,
    `
refused(lambda: pg.delete())
`,
  ),
  no(
    'servers.create (assigned primary IP)',
    'primary_ip_assigned, never the retried conflict',
    /primary_ip_assigned/,
    `
v4 = client.primary_ips.get_by_id(server.public_net.primary_ipv4.id)
refused(lambda: client.servers.create('py-2', server_type=ServerType(name='cpx22'), image=Image(name='ubuntu-24.04'), location=Location(name='fsn1'), public_net=ServerCreatePublicNetwork(ipv4=v4, enable_ipv6=False)))
`,
  ),
  no(
    'servers.power_off (still starting)',
    'locked: a server whose creation runs takes no power action',
    /locked/,
    `
booting = client.servers.create('py-boot', server_type=ServerType(name='cpx22'), image=Image(name='ubuntu-24.04'), location=Location(name='fsn1'))
refused(lambda: booting.server.power_off())
`,
  ),
  op(
    'servers.power_off (once started)',
    'taken once the create and start actions finished',
    `
for a in [booting.action] + booting.next_actions:
    wait(a)
wait(booting.server.power_off())
wait(booting.server.delete())
`,
  ),
  no(
    'servers.create (taken name)',
    'uniqueness_error',
    /uniqueness_error/,
    `
refused(lambda: client.servers.create('py-1', server_type=ServerType(name='cpx22'), image=Image(name='ubuntu-24.04'), location=Location(name='fsn1')))
`,
  ),
  no(
    'servers.create (unknown image)',
    'invalid_input naming the image',
    /invalid_input.*image/,
    `
refused(lambda: client.servers.create('py-3', server_type=ServerType(name='cpx22'), image=Image(name='windows-95'), location=Location(name='fsn1')))
`,
  ),
  no(
    'servers.get_by_id (unknown)',
    'not_found',
    /not_found/,
    `
refused(lambda: client.servers.get_by_id(999999))
`,
  ),
  no(
    'servers.create (start_after_create="yes")',
    'invalid_input naming start_after_create: a string is not a boolean',
    /invalid_input.*start_after_create/,
    `
refused(lambda: client.servers.create('py-4', server_type=ServerType(name='cpx22'), image=Image(name='ubuntu-24.04'), location=Location(name='fsn1'), start_after_create='yes'))
`,
  ),
  // Primary IPs, networks, firewalls, volumes, floating IPs, SSH keys, load balancers.
  op(
    'primary_ips.create(type=ipv6)',
    'an IPv6 /64 in fsn1-dc14',
    `
ip6 = client.primary_ips.create(type='ipv6', datacenter=Datacenter(name='fsn1-dc14'), name='py-v6').primary_ip
check(ip6.type == 'ipv6' and ip6.ip.endswith('::/64') and ip6.assignee_id is None, ip6.ip)
`,
  ),
  op(
    'primary_ips.get_by_name',
    'the same IP by its name',
    `
check(client.primary_ips.get_by_name('py-v6').id == ip6.id, 'by name')
`,
  ),
  op(
    'primary_ips.delete',
    'gone',
    `
check(client.primary_ips.delete(ip6), 'delete')
check(client.primary_ips.get_by_name('py-v6') is None, 'still there')
`,
  ),
  op(
    'networks.create',
    'with a cloud subnet',
    `
net = client.networks.create(name='py-net', ip_range='10.60.0.0/16', subnets=[NetworkSubnet(type='cloud', ip_range='10.60.1.0/24', network_zone='eu-central')])
check(net.subnets[0].gateway == '10.60.1.1', net.subnets[0].gateway)
`,
  ),
  op(
    'firewalls.create',
    'with an SSH rule',
    `
fw = client.firewalls.create(name='py-fw', rules=[FirewallRule(direction='in', protocol='tcp', port='22', source_ips=['0.0.0.0/0', '::/0'])]).firewall
check(fw.rules[0].port == '22', 'rule')
`,
  ),
  op(
    'firewalls.apply_to_resources',
    'applied to the server',
    `
for a in fw.apply_to_resources([FirewallResource(type='server', server=server)]):
    wait(a)
check([f.firewall.id for f in client.servers.get_by_id(server.id).public_net.firewalls] == [fw.id], 'applied')
`,
  ),
  no(
    'firewalls.delete (applied)',
    'resource_in_use',
    /resource_in_use/,
    `
refused(lambda: fw.delete())
`,
  ),
  op(
    'volumes.create',
    'a 10 GB volume for the server, attached',
    `
vol = client.volumes.create(size=10, name='py-vol', server=server)
for a in [vol.action] + vol.next_actions:
    wait(a)
check(client.volumes.get_by_id(vol.volume.id).server.id == server.id, 'attached')
`,
  ),
  no(
    'volumes.delete (attached)',
    'refused while attached',
    /attached/,
    `
refused(lambda: vol.volume.delete())
`,
  ),
  op(
    'floating_ips.create',
    'an IPv4 assigned to the server',
    `
fip = client.floating_ips.create(type='ipv4', server=server, name='py-fip')
check(fip.floating_ip.server.id == server.id, 'assigned')
`,
  ),
  op(
    'floating_ips.create(type=ipv6)',
    'an IPv6 /64 with its home location',
    `
fip6 = client.floating_ips.create(type='ipv6', home_location=Location(name='fsn1'), name='py-fip6').floating_ip
check(fip6.type == 'ipv6' and fip6.ip.endswith('/64') and fip6.home_location.name == 'fsn1', fip6.ip)
`,
  ),
  op(
    'floating_ips.delete',
    'gone',
    `
check(fip6.delete(), 'delete')
`,
  ),
  op(
    'ssh_keys.create',
    'with its MD5 fingerprint',
    `
key = client.ssh_keys.create(name='py-key', public_key='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3eC6F8mgbVf1kEXnBFqQyrm0Ae4jMX0lCezHzDdJ3X py')
check(len(key.fingerprint.split(':')) == 16, key.fingerprint)
`,
  ),
  op(
    'ssh_keys.get_by_fingerprint',
    'the key',
    `
check(client.ssh_keys.get_by_fingerprint(key.fingerprint).id == key.id, 'fingerprint')
`,
  ),
  op(
    'load_balancers.create',
    'an lb11 with a TCP service and the server as target',
    `
lb = client.load_balancers.create(name='py-lb', load_balancer_type=LoadBalancerType(name='lb11'), location=Location(name='fsn1'),
    services=[LoadBalancerService(protocol='tcp', listen_port=443, destination_port=6443, proxyprotocol=False,
        health_check=LoadBalancerHealthCheck(protocol='tcp', port=6443, interval=15, timeout=10, retries=3))],
    targets=[LoadBalancerTarget(type='server', server=server, use_private_ip=False)]).load_balancer
check(lb.services[0].listen_port == 443 and lb.targets[0].server.id == server.id, 'lb')
`,
  ),
  op(
    'load_balancers.get_by_name',
    'with its public IPv4 and IPv6',
    `
lb = client.load_balancers.get_by_name('py-lb')
check(lb.public_net.ipv4.ip.startswith('198.18.') and lb.public_net.ipv6.ip.startswith('2001:db8:'), lb.public_net.ipv6.ip)
`,
  ),
  // What the sandbox does not emulate.
  no(
    'certificates.create_managed',
    'not emulated',
    /unsupported_error: the sandbox does not serve managed certificates/,
    `
refused(lambda: client.certificates.create_managed(name='py-managed', domain_names=['www.example.de']))
`,
  ),
  no(
    'servers.rebuild',
    'not emulated',
    NOT_EMULATED,
    `
refused(lambda: server.rebuild(Image(name='ubuntu-24.04')))
`,
  ),
  no(
    'servers.change_type',
    'not emulated',
    NOT_EMULATED,
    `
refused(lambda: server.change_type(ServerType(name='cpx32'), upgrade_disk=False))
`,
  ),
  no(
    'servers.enable_backup',
    'not emulated',
    NOT_EMULATED,
    `
refused(lambda: server.enable_backup())
`,
  ),
  no(
    'servers.request_console',
    'not emulated',
    NOT_EMULATED,
    `
refused(lambda: server.request_console())
`,
  ),
  // Clean-up, as a script ends.
  op(
    'load_balancers.delete',
    'gone',
    `
check(lb.delete(), 'lb delete')
`,
  ),
  op(
    'servers.delete',
    'gone, its auto-deleting primary IPs with it',
    `
wait(server.delete())
check(client.servers.get_by_name('py-1') is None, 'the server is still there')
check(v6.id not in {ip.id for ip in client.primary_ips.get_all()}, 'its IPv6 primary IP is still there')
`,
  ),
  op(
    'placement_groups.delete',
    'gone once empty',
    `
check(pg.delete(), 'pg delete')
`,
  ),
];
