// Every endpoint the Hetzner emulator serves, called once with a valid request and its answer checked against
// hetzner-cloud-openapi.json: a response shape the suite's other tests never reach still has to match the document.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import { ApiValidator } from '../openapi/validator.js';
import { HETZNER_API } from './emulator.js';

const validator = new ApiValidator(
  JSON.parse(readFileSync(new URL('../../specs/hetzner-cloud-openapi.json', import.meta.url), 'utf8')) as Record<string, unknown>,
);
let sandbox: Sandbox;
const ids: Record<string, number> = {};

beforeAll(() => {
  sandbox = new Sandbox({ seed: 3 }).listen();
});
afterAll(() => sandbox.close());

async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${HETZNER_API}/${path}`, {
    method,
    headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const json = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
  expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
  expect(validator.validate(method, new URL(`${HETZNER_API}/${path}`).pathname, res.status, json)).toEqual([]);
  sandbox.clock.advance(120_000);
  return json ?? {};
}

const idOf = (r: Record<string, unknown>, key: string) => (r[key] as { id: number }).id;

// In order: later steps use what earlier ones made.
const steps: Array<[string, () => Promise<unknown>]> = [
  [
    'catalogs',
    async () => {
      for (const path of [
        'locations?sort=name',
        'datacenters?sort=id:desc',
        'server_types',
        'images?sort=created',
        'isos?architecture=x86',
        'load_balancer_types',
        'pricing',
      ])
        await call('GET', path);
      for (const [c, id] of [
        ['locations', 1],
        ['datacenters', 4],
        ['server_types', 104],
        ['images', 161547269],
        ['isos', 4483],
        ['load_balancer_types', 1],
      ] as const)
        await call('GET', `${c}/${id}`);
    },
  ],
  [
    'network',
    async () => {
      ids['network'] = idOf(
        await call('POST', 'networks', {
          name: 'n',
          ip_range: '10.0.0.0/16',
          subnets: [{ type: 'cloud', ip_range: '10.0.1.0/24', network_zone: 'eu-central' }],
        }),
        'network',
      );
      await call('POST', `networks/${ids['network']}/actions/add_subnet`, { type: 'cloud', ip_range: '10.0.2.0/24', network_zone: 'eu-central' });
      await call('PUT', `networks/${ids['network']}`, { labels: { a: 'b' } });
      await call('GET', `networks/${ids['network']}`);
      await call('GET', 'networks?label_selector=a');
    },
  ],
  [
    'ssh key and placement group',
    async () => {
      ids['key'] = idOf(
        await call('POST', 'ssh_keys', { name: 'k', public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF1vC2mH8m3pZ0cVqYk7W8eQm1xk6b7pQ8m2y1q3aL9Z t' }),
        'ssh_key',
      );
      await call('PUT', `ssh_keys/${ids['key']}`, { name: 'k2' });
      await call('GET', 'ssh_keys');
      ids['group'] = idOf(await call('POST', 'placement_groups', { name: 'g', type: 'spread' }), 'placement_group');
      await call('GET', `placement_groups/${ids['group']}`);
      await call('GET', 'placement_groups');
    },
  ],
  [
    'firewall',
    async () => {
      ids['firewall'] = idOf(
        await call('POST', 'firewalls', {
          name: 'fw',
          rules: [{ direction: 'in', protocol: 'tcp', port: '22', source_ips: ['0.0.0.0/0'] }],
          apply_to: [{ type: 'label_selector', label_selector: { selector: 'role=web' } }],
        }),
        'firewall',
      );
      await call('POST', `firewalls/${ids['firewall']}/actions/set_rules`, { rules: [] });
      await call('PUT', `firewalls/${ids['firewall']}`, { labels: { x: 'y' } });
    },
  ],
  [
    'servers',
    async () => {
      ids['server'] = idOf(
        await call('POST', 'servers', {
          name: 's',
          server_type: 'cpx22',
          image: 'ubuntu-24.04',
          location: 'fsn1',
          networks: [ids['network']],
          firewalls: [{ firewall: ids['firewall'] }],
          placement_group: ids['group'],
          labels: { role: 'web' },
        }),
        'server',
      );
      await call('PUT', `servers/${ids['server']}`, { labels: { role: 'web', team: 'a' } });
      for (const a of ['shutdown', 'poweron', 'reboot', 'reset', 'poweroff']) await call('POST', `servers/${ids['server']}/actions/${a}`);
      await call('GET', `servers/${ids['server']}`);
      await call('GET', 'servers?sort=name:desc&sort=created&status=off');
      await call('GET', `firewalls/${ids['firewall']}`);
      await call('POST', `firewalls/${ids['firewall']}/actions/remove_from_resources`, { remove_from: [{ type: 'server', server: { id: ids['server'] } }] });
      await call('POST', `firewalls/${ids['firewall']}/actions/apply_to_resources`, { apply_to: [{ type: 'server', server: { id: ids['server'] } }] });
    },
  ],
  [
    'primary IP',
    async () => {
      const created = await call('POST', 'primary_ips', { name: 'ip', type: 'ipv4', assignee_type: 'server', location: 'fsn1' });
      ids['ip'] = idOf(created, 'primary_ip');
      await call('PUT', `primary_ips/${ids['ip']}`, { auto_delete: true });
      await call('GET', `primary_ips?ip=${String((created['primary_ip'] as { ip: string }).ip)}`);
      await call('GET', `primary_ips/${ids['ip']}`);
    },
  ],
  [
    'volume',
    async () => {
      ids['volume'] = idOf(await call('POST', 'volumes', { name: 'v', size: 10, server: ids['server'], format: 'ext4' }), 'volume');
      await call('POST', `volumes/${ids['volume']}/actions/detach`);
      await call('POST', `volumes/${ids['volume']}/actions/resize`, { size: 20 });
      await call('POST', `volumes/${ids['volume']}/actions/attach`, { server: ids['server'] });
      await call('POST', `volumes/${ids['volume']}/actions/change_protection`, { delete: false });
      await call('PUT', `volumes/${ids['volume']}`, { name: 'v2' });
      await call('GET', 'volumes?sort=name');
    },
  ],
  [
    'floating IP',
    async () => {
      ids['fip'] = idOf(await call('POST', 'floating_ips', { type: 'ipv4', server: ids['server'], description: 'front' }), 'floating_ip');
      await call('POST', `floating_ips/${ids['fip']}/actions/unassign`);
      await call('POST', `floating_ips/${ids['fip']}/actions/assign`, { server: ids['server'] });
      await call('POST', `floating_ips/${ids['fip']}/actions/change_dns_ptr`, { ip: '198.18.16.9', dns_ptr: 'front.example.de' });
      await call('PUT', `floating_ips/${ids['fip']}`, { labels: { a: 'b' } });
      await call('GET', `floating_ips/${ids['fip']}`);
    },
  ],
  [
    'load balancer',
    async () => {
      ids['lb'] = idOf(
        await call('POST', 'load_balancers', {
          name: 'lb',
          load_balancer_type: 'lb11',
          location: 'fsn1',
          services: [{ protocol: 'http', listen_port: 80, destination_port: 8080, proxyprotocol: false }],
          targets: [{ type: 'label_selector', label_selector: { selector: 'role=web' } }],
        }),
        'load_balancer',
      );
      await call('POST', `load_balancers/${ids['lb']}/actions/add_target`, { type: 'server', server: { id: ids['server'] } });
      await call('POST', `load_balancers/${ids['lb']}/actions/add_target`, { type: 'ip', ip: { ip: '203.0.113.5' } });
      await call('POST', `load_balancers/${ids['lb']}/actions/add_service`, {
        protocol: 'tcp',
        listen_port: 6443,
        destination_port: 6443,
        proxyprotocol: false,
      });
      await call('POST', `load_balancers/${ids['lb']}/actions/change_algorithm`, { type: 'least_connections' });
      await call('POST', `load_balancers/${ids['lb']}/actions/change_type`, { load_balancer_type: 'lb21' });
      await call('GET', `load_balancers/${ids['lb']}`);
      await call('GET', `servers/${ids['server']}`);
      await call('POST', `load_balancers/${ids['lb']}/actions/delete_service`, { listen_port: 6443 });
      await call('POST', `load_balancers/${ids['lb']}/actions/remove_target`, { type: 'server', server: { id: ids['server'] } });
      await call('PUT', `load_balancers/${ids['lb']}`, { name: 'lb2' });
      await call('GET', 'load_balancers');
    },
  ],
  [
    'zones',
    async () => {
      await call('GET', 'zones');
      await call('GET', 'zones/example.de');
      await call('POST', 'zones/example.de/rrsets', { name: 'www', type: 'A', ttl: 60, records: [{ value: '192.0.2.1' }] });
      await call('GET', 'zones/example.de/rrsets');
      await call('GET', 'zones/example.de/rrsets/www/A');
      await call('POST', 'zones/example.de/rrsets/www/A/actions/set_records', { records: [{ value: '192.0.2.2' }] });
      await call('POST', 'zones/example.de/rrsets/www/A/actions/change_ttl', { ttl: 120 });
      await call('DELETE', 'zones/example.de/rrsets/www/A');
    },
  ],
  [
    'actions and deletes',
    async () => {
      await call('GET', 'actions?id=1');
      await call('DELETE', `load_balancers/${ids['lb']}`);
      await call('POST', `floating_ips/${ids['fip']}/actions/unassign`);
      await call('DELETE', `floating_ips/${ids['fip']}`);
      await call('POST', `volumes/${ids['volume']}/actions/detach`);
      await call('DELETE', `volumes/${ids['volume']}`);
      await call('DELETE', `servers/${ids['server']}`);
      await call('DELETE', `primary_ips/${ids['ip']}`);
      await call('DELETE', `placement_groups/${ids['group']}`);
      // A firewall still applied (here through its label selector) is not deleted: resource_in_use.
      await call('POST', `firewalls/${ids['firewall']}/actions/remove_from_resources`, {
        remove_from: [{ type: 'label_selector', label_selector: { selector: 'role=web' } }],
      });
      await call('DELETE', `firewalls/${ids['firewall']}`);
      await call('DELETE', `ssh_keys/${ids['key']}`);
      await call('DELETE', `networks/${ids['network']}`);
    },
  ],
];

describe('Hetzner emulator responses against hetzner-cloud-openapi.json', () => {
  it.each(steps)('%s', async (_name, step) => {
    await step();
  });
});
