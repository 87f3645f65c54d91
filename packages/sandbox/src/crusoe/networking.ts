// Networking: the project's default VPC, VPC networks and subnets, firewall rules (applied and deleted by
// operations), InfiniBand networks and partitions, and the user's SSH keys.
import { createHash } from 'node:crypto';
import { type Json, reply } from '../emulator/index.js';
import { CRUSOE_IB_NETWORKS, CRUSOE_LOCATIONS } from './catalog.js';
import { badRequest, conflict, notFound } from './dialect.js';
import { CRUSOE_LATENCY, type FwRule, type Network, type Partition, type SshKey, type Subnet } from './model.js';
import { type CrusoeRouter, idOf } from './router.js';
import type { CrusoeWorld } from './world.js';

/** Each project starts with default-vpc-network 172.27.0.0/16, a /20 per location and its default rules. */
export function createDefaultVpc(w: CrusoeWorld): void {
  const net: Network = { id: w.uuid(), name: 'default-vpc-network', cidr: '172.27.0.0/16', isDefault: true, deleting: false };
  w.networks.set(net.id, net);
  CRUSOE_LOCATIONS.forEach((location, i) => {
    const s: Subnet = {
      id: w.uuid(),
      name: `default-subnet-${location}`,
      cidr: `172.27.${i * 16}.0/20`,
      location,
      networkId: net.id,
      isDefault: true,
      deleting: false,
      nextHost: 6,
    };
    w.subnets.set(s.id, s);
  });
  for (const [name, sources] of [
    ['default-allow-intra-vpc', [{ cidr: net.cidr }]],
    ['default-allow-ssh', [{ cidr: '0.0.0.0/0' }]],
  ] as const) {
    const r: FwRule = {
      id: w.uuid(),
      name,
      networkId: net.id,
      action: 'allow',
      direction: 'ingress',
      protocols: ['tcp', 'udp', 'icmp'],
      sources: [...sources],
      sourcePorts: [],
      destinations: [{ cidr: net.cidr }],
      destinationPorts: name === 'default-allow-ssh' ? ['22'] : [],
      state: 'active',
      isDefault: true,
      owner: 'default',
    };
    w.firewallRules.set(r.id, r);
  }
}

export function networkingRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  vpcRoutes(r, w);
  firewallRoutes(r, w);
  infinibandRoutes(r, w);
  sshKeyRoutes(r, w);
}

// ---- VPC networks and subnets --------------------------------------------------------------------------

function networkJson(w: CrusoeWorld, n: Network): Json {
  return {
    id: n.id,
    name: n.name,
    cidr: n.cidr,
    gateway: n.cidr.replace(/\.0\/\d+$/, '.1'),
    subnets: w.subnets.filter((s) => s.networkId === n.id).map((s) => s.id),
  };
}

function subnetJson(s: Subnet): Json {
  return { id: s.id, name: s.name, cidr: s.cidr, location: s.location, vpc_network_id: s.networkId, nat_gateways: [] };
}

function vpcRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  const requireNetwork = (id: string) => w.networks.require(id, () => notFound(`VPC network ${id} not found`));
  const requireSubnet = (id: string) => w.subnets.require(id, () => notFound(`VPC subnet ${id} not found`));
  r.project('GET /networking/vpc-networks', () => reply({ items: [...w.networks.values()].map((n) => networkJson(w, n)) }));
  r.project('POST /networking/vpc-networks', ({ body }) => {
    const n: Network = {
      id: w.uuid(),
      name: w.name(body['name'], w.networks.values(), 'VPC network'),
      cidr: w.cidr(body['cidr']),
      isDefault: false,
      deleting: false,
    };
    w.networks.set(n.id, n);
    return reply({ network: networkJson(w, n) });
  });
  r.project('GET /networking/vpc-networks/{id}', (call) => reply(networkJson(w, requireNetwork(idOf(call)))));
  r.project('DELETE /networking/vpc-networks/{id}', (call) => {
    const n = requireNetwork(idOf(call));
    if (w.subnets.find((s) => s.networkId === n.id)) throw conflict('in_use', `VPC network ${n.name} still has subnets`);
    n.deleting = true;
    return reply(w.startOperation('networking/vpc-networks', n.id, CRUSOE_LATENCY.networkDelete, { kind: 'network-deleted', id: n.id }));
  });
  r.otherMethods('/networking/vpc-networks/{id}', (call) => {
    requireNetwork(idOf(call));
    return badRequest(`${call.method} on a VPC network is not modelled by the sandbox`);
  });

  r.project('GET /networking/vpc-subnets', () => reply({ items: [...w.subnets.values()].map(subnetJson) }));
  r.project('POST /networking/vpc-subnets', ({ body }) => {
    const network = w.networks.get(String(body['vpc_network_id']));
    if (!network) throw badRequest(`VPC network ${String(body['vpc_network_id'])} not found`);
    if (typeof body['nat_gateway_enabled'] !== 'boolean') throw badRequest('nat_gateway_enabled is required');
    const s: Subnet = {
      id: w.uuid(),
      name: w.name(body['name'], w.subnets.values(), 'VPC subnet'),
      cidr: w.cidr(body['cidr']),
      location: w.location(body['location']),
      networkId: network.id,
      isDefault: false,
      deleting: false,
      nextHost: 6,
    };
    w.subnets.set(s.id, s);
    return reply({ subnet: subnetJson(s) });
  });
  r.project('GET /networking/vpc-subnets/{id}', (call) => reply(subnetJson(requireSubnet(idOf(call)))));
  r.project('DELETE /networking/vpc-subnets/{id}', (call) => {
    const s = requireSubnet(idOf(call));
    if (w.vms.find((v) => v.subnetId === s.id)) throw conflict('in_use', `VPC subnet ${s.name} still has VMs`);
    if (w.clusters.find((c) => c.subnetId === s.id)) throw conflict('in_use', `VPC subnet ${s.name} still has a Kubernetes cluster`);
    s.deleting = true;
    return reply(w.startOperation('networking/vpc-subnets', s.id, CRUSOE_LATENCY.networkDelete, { kind: 'subnet-deleted', id: s.id }));
  });
  r.otherMethods('/networking/vpc-subnets/{id}', (call) => {
    requireSubnet(idOf(call));
    return badRequest(`${call.method} on a VPC subnet is not modelled by the sandbox`);
  });
}

// ---- firewall rules ------------------------------------------------------------------------------------

export function ruleJson(r: FwRule): Json {
  return {
    id: r.id,
    name: r.name,
    vpc_network_id: r.networkId,
    action: r.action,
    direction: r.direction,
    protocols: r.protocols,
    sources: r.sources,
    source_ports: r.sourcePorts,
    destinations: r.destinations,
    destination_ports: r.destinationPorts,
    state: r.state,
  };
}

function ruleFields(w: CrusoeWorld, body: Json, partial: boolean): Partial<FwRule> {
  const out: Partial<FwRule> = {};
  const list = (k: string): unknown[] | undefined => (Array.isArray(body[k]) ? (body[k] as unknown[]) : undefined);
  const protocols = list('protocols');
  if (protocols) {
    if (!protocols.every((p) => p === 'tcp' || p === 'udp' || p === 'icmp')) throw badRequest('protocols must be tcp, udp or icmp');
    out.protocols = protocols as string[];
  } else if (!partial) throw badRequest('protocols is required');
  for (const [k, f] of [
    ['sources', 'sources'],
    ['destinations', 'destinations'],
  ] as const) {
    const v = list(k);
    if (v) {
      for (const e of v) if (typeof (e as Json)['cidr'] === 'string') w.cidr((e as Json)['cidr']);
      out[f] = v as Json[];
    } else if (!partial) throw badRequest(`${k} is required`);
  }
  for (const [k, f] of [
    ['source_ports', 'sourcePorts'],
    ['destination_ports', 'destinationPorts'],
  ] as const) {
    const v = list(k);
    if (v) {
      if (!v.every((p) => typeof p === 'string' && /^\d{1,5}(-\d{1,5})?$/.test(p))) throw badRequest(`${k} must be port strings like "22" or "3000-8080"`);
      out[f] = v as string[];
    }
  }
  return out;
}

function firewallRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  const family = 'networking/vpc-firewall-rules';
  const requireRule = (id: string) => w.firewallRules.require(id, () => notFound(`firewall rule ${id} not found`));
  r.project('GET /networking/vpc-firewall-rules', () => reply({ items: [...w.firewallRules.values()].map(ruleJson) }));
  r.project('POST /networking/vpc-firewall-rules', ({ body }) => {
    const network = w.networks.get(String(body['vpc_network_id']));
    if (!network) throw badRequest(`VPC network ${String(body['vpc_network_id'])} not found`);
    if (body['action'] !== 'allow' && body['action'] !== 'deny') throw badRequest('action must be allow or deny');
    if (body['direction'] !== 'ingress' && body['direction'] !== 'egress') throw badRequest('direction must be ingress or egress');
    const name = w.name(body['name'], w.firewallRules.values(), 'firewall rule');
    const fields = ruleFields(w, body, false);
    const rule: FwRule = {
      id: w.uuid(),
      name,
      networkId: network.id,
      action: body['action'],
      direction: body['direction'],
      protocols: [],
      sources: [],
      sourcePorts: [],
      destinations: [],
      destinationPorts: [],
      ...fields,
      state: 'inactive',
      isDefault: false,
      owner: name,
    };
    w.firewallRules.set(rule.id, rule);
    return reply(w.startOperation(family, rule.id, CRUSOE_LATENCY.firewallRule, { kind: 'firewall-rule-applied', id: rule.id }));
  });
  r.project('GET /networking/vpc-firewall-rules/{id}', (call) => reply(ruleJson(requireRule(idOf(call)))));
  r.project('PATCH /networking/vpc-firewall-rules/{id}', (call) => {
    const rule = requireRule(idOf(call));
    Object.assign(rule, ruleFields(w, call.body, true), { state: 'inactive' as const });
    return reply(w.startOperation(family, rule.id, CRUSOE_LATENCY.firewallRule, { kind: 'firewall-rule-applied', id: rule.id }));
  });
  r.project('DELETE /networking/vpc-firewall-rules/{id}', (call) => {
    const rule = requireRule(idOf(call));
    return reply(w.startOperation(family, rule.id, CRUSOE_LATENCY.firewallRule, { kind: 'firewall-rule-deleted', id: rule.id }));
  });
  r.otherMethods('/networking/vpc-firewall-rules/{id}', (call) => {
    requireRule(idOf(call));
    return badRequest(`${call.method} on a firewall rule is not modelled by the sandbox`);
  });
}

// ---- InfiniBand ----------------------------------------------------------------------------------------

function infinibandRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  const json = (p: Partition) => ({ id: p.id, name: p.name, ib_network_id: p.ibNetworkId });
  const requirePartition = (id: string) => w.partitions.require(id, () => notFound(`IB partition ${id} not found`));
  r.project('GET /networking/ib-networks', () => reply({ items: CRUSOE_IB_NETWORKS }));
  r.project('GET /networking/ib-partitions', () => reply({ items: [...w.partitions.values()].map(json) }));
  r.project('POST /networking/ib-partitions', ({ body }) => {
    if (!CRUSOE_IB_NETWORKS.some((n) => n.id === body['ib_network_id'])) throw badRequest(`IB network ${String(body['ib_network_id'])} not found`);
    const p: Partition = { id: w.uuid(), name: w.name(body['name'], w.partitions.values(), 'IB partition'), ibNetworkId: String(body['ib_network_id']) };
    w.partitions.set(p.id, p);
    return reply(json(p));
  });
  r.project('GET /networking/ib-partitions/{id}', (call) => reply(json(requirePartition(idOf(call)))));
  r.project('DELETE /networking/ib-partitions/{id}', (call) => {
    const p = requirePartition(idOf(call));
    if (w.vms.find((v) => v.partitionId === p.id)) throw conflict('in_use', `IB partition ${p.name} still has VMs`);
    if (w.pools.find((x) => x.partitionId === p.id)) throw conflict('in_use', `IB partition ${p.name} is used by a node pool`);
    w.partitions.delete(p.id);
    // 200 emptyResponse in the swagger (DELETE /projects/{project_id}/networking/ib-partitions/{ib_partition_id}):
    // "Empty Response", no schema, so no body.
    return reply(undefined);
  });
  r.otherMethods('/networking/ib-partitions/{id}', (call) => {
    requirePartition(idOf(call));
    return badRequest(`${call.method} on an IB partition is not modelled`);
  });
}

// ---- SSH keys ------------------------------------------------------------------------------------------

function sshKeyRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  // SSHKey.fingerprints: both required; OpenSSH's forms (`ssh-keygen -l`) of the key blob, MD5 as colon-separated hex.
  const json = (k: SshKey) => {
    const blob = Buffer.from(k.publicKey.split(/\s+/)[1] ?? '', 'base64');
    const md5 = createHash('md5').update(blob).digest('hex').match(/../g)?.join(':') ?? '';
    return {
      id: k.id,
      name: k.name,
      public_key: k.publicKey,
      created_at: '2026-01-01T00:00:00Z',
      fingerprints: { md5, sha256: createHash('sha256').update(blob).digest('base64').replace(/=+$/, '') },
    };
  };
  r.global('GET /users/ssh-keys', () => reply({ items: [...w.sshKeys.values()].map(json) }));
  r.global('POST /users/ssh-keys', ({ body }) => {
    if (typeof body['public_key'] !== 'string' || !/^ssh-(ed25519|rsa) /.test(body['public_key'])) throw badRequest('public_key must be an OpenSSH public key');
    const k: SshKey = { id: w.uuid(), name: w.name(body['name'], w.sshKeys.values(), 'SSH key'), publicKey: body['public_key'] };
    w.sshKeys.set(k.id, k);
    // CreateSSHKeyResponse wraps the key: `{"ssh_key": SSHKey}`.
    return reply({ ssh_key: json(k) });
  });
  r.global('DELETE /users/ssh-keys', ({ query }) => {
    const id = query.get('id') ?? '';
    if (!w.sshKeys.delete(id)) throw notFound(`SSH key ${id} not found`);
    // 200 emptyResponse in the swagger ("Empty Response", no schema): no body.
    return reply(undefined);
  });
  r.otherMethods('/users/ssh-keys', (call) => badRequest(`${call.method} on SSH keys is not modelled`), { global: true });
}
