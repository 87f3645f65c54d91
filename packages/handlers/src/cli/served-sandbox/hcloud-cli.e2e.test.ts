// The served Hetzner Cloud API driven by the real `hcloud` CLI (Debian's hcloud-cli 1.30): servers and their power
// actions, labels and selectors, sorting, load balancers, floating IPs, volumes, certificates, firewalls and the
// catalogs, as a user's script would run them against `kubeplane sandbox serve`.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { ServedWorld } from './test-support/served-world.js';
import { requireTool, runTool, type ToolRun } from './test-support/tools.js';

let world: ServedWorld;

beforeAll(async () => {
  // 60 virtual seconds a second: a server boots (about 80 virtual seconds) in about a second and a half.
  world = await ServedWorld.start({ manifests: ['examples/minimal.yaml'], speed: 60 });
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

async function hcloud(...args: string[]): Promise<ToolRun> {
  const bin = await requireTool('hcloud', 'hcloud-cli');
  // HOME is the world's directory: no user's cli.toml (contexts, tokens) is read.
  return runTool(bin, args, {
    PATH: process.env.PATH ?? '',
    HOME: world.dir,
    HCLOUD_ENDPOINT: world.served.hetzner,
    HCLOUD_TOKEN: SANDBOX_CREDENTIALS.hetznerToken,
  });
}

async function ok(...args: string[]): Promise<string> {
  const run = await hcloud(...args);
  if (run.code !== 0) throw new Error(`hcloud ${args.join(' ')} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return run.stdout;
}

async function describeJson<T>(...args: string[]): Promise<T> {
  return JSON.parse(await ok(...args, '-o', 'json')) as T;
}

interface ServerJson {
  id: number;
  name: string;
  status: string;
  labels: Record<string, string>;
  datacenter: { name: string };
  volumes: number[];
  load_balancers: number[];
  private_net: Array<{ network: number; mac_address: string }>;
  public_net: { floating_ips: number[]; firewalls: Array<{ id: number }> };
}

const createServer = (name: string, ...extra: string[]) =>
  ok('server', 'create', '--name', name, '--type', 'cpx22', '--image', 'ubuntu-24.04', '--location', 'fsn1', ...extra);

describe('hcloud CLI against the served Hetzner Cloud API', () => {
  it('creates a server, waits for it to start, describes it with its data center, lists it and deletes it', async () => {
    const created = await createServer('cli-one');
    expect(created).toMatch(/Server \d+ created/);
    const server = await describeJson<ServerJson>('server', 'describe', 'cli-one');
    expect(server).toMatchObject({ name: 'cli-one', status: 'running', datacenter: { name: 'fsn1-dc14' } });
    expect(await ok('server', 'list', '-o', 'noheader', '-o', 'columns=name')).toContain('cli-one');
    expect(await ok('server', 'delete', 'cli-one')).toMatch(/deleted/);
    expect(await ok('server', 'list', '-o', 'noheader', '-o', 'columns=name')).not.toContain('cli-one');
  });

  it('adds a label with server PUT and finds the server by a label selector', async () => {
    await createServer('cli-labelled');
    await ok('server', 'add-label', 'cli-labelled', 'team=blue');
    expect((await describeJson<ServerJson>('server', 'describe', 'cli-labelled')).labels).toMatchObject({ team: 'blue' });
    expect((await ok('server', 'list', '-l', 'team=blue', '-o', 'noheader', '-o', 'columns=name')).trim().split('\n')).toEqual(['cli-labelled']);
    expect((await ok('server', 'list', '-l', 'team in (blue,green)', '-o', 'noheader', '-o', 'columns=name')).trim()).toBe('cli-labelled');
  });

  it("refuses a malformed label selector with the API's invalid_input error instead of listing nothing", async () => {
    const run = await hcloud('server', 'list', '-l', 'team=blue=green');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('invalid_input');
  });

  it('powers a server off, on and reboots it, the status following each action', async () => {
    await createServer('cli-power');
    expect(await ok('server', 'poweroff', 'cli-power')).toMatch(/stopped/);
    expect((await describeJson<ServerJson>('server', 'describe', 'cli-power')).status).toBe('off');
    expect(await ok('server', 'poweron', 'cli-power')).toMatch(/started/);
    expect((await describeJson<ServerJson>('server', 'describe', 'cli-power')).status).toBe('running');
    expect(await ok('server', 'reboot', 'cli-power')).toMatch(/rebooted/);
    expect((await describeJson<ServerJson>('server', 'describe', 'cli-power')).status).toBe('running');
  });

  it('lists chosen columns sorted as --sort asks, by name descending and by id', async () => {
    await createServer('cli-sort-a');
    await createServer('cli-sort-b');
    const byName = (await ok('server', 'list', '-l', '!kubeplane.dev/cluster-id', '-o', 'noheader', '-o', 'columns=name,status', '-s', 'name:desc'))
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(byName).toEqual([...byName].sort().reverse());
    expect(byName).toEqual(expect.arrayContaining(['cli-sort-a', 'cli-sort-b']));
    const ids = (await ok('server', 'list', '-o', 'noheader', '-o', 'columns=id', '-s', 'id:desc')).trim().split('\n').map(Number);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect((await hcloud('server', 'list', '-s', 'status')).stderr).toContain('invalid_input');
  });

  it('creates a load balancer with a server target and a service, lists it, and deletes it', async () => {
    await createServer('cli-lb-target');
    expect(await ok('load-balancer', 'create', '--name', 'cli-lb', '--type', 'lb11', '--location', 'fsn1')).toMatch(/LoadBalancer \d+ created/);
    await ok('load-balancer', 'add-target', 'cli-lb', '--server', 'cli-lb-target');
    await ok('load-balancer', 'add-service', 'cli-lb', '--protocol', 'tcp', '--listen-port', '443', '--destination-port', '6443');
    const lb = await describeJson<{
      id: number;
      targets: Array<{ server: { id: number } }>;
      services: Array<{ listen_port: number; destination_port: number }>;
    }>('load-balancer', 'describe', 'cli-lb');
    const target = await describeJson<ServerJson>('server', 'describe', 'cli-lb-target');
    expect(lb.targets.map((t) => t.server.id)).toEqual([target.id]);
    expect(lb.services).toEqual([expect.objectContaining({ listen_port: 443, destination_port: 6443 })]);
    expect(target.load_balancers).toEqual([lb.id]);
    expect(await ok('load-balancer', 'list', '-o', 'noheader', '-o', 'columns=name,type,location')).toMatch(/cli-lb\s+lb11\s+fsn1/);
    await ok('load-balancer', 'delete', 'cli-lb');
    expect(await ok('load-balancer', 'list', '-o', 'noheader')).not.toContain('cli-lb');
  });

  it('creates a floating IP, assigns it to a server and back, and deletes it', async () => {
    await createServer('cli-fip-server');
    await ok('floating-ip', 'create', '--type', 'ipv4', '--home-location', 'fsn1', '--name', 'cli-fip');
    await ok('floating-ip', 'assign', 'cli-fip', 'cli-fip-server');
    const ip = await describeJson<{ id: number; server: number | null }>('floating-ip', 'describe', 'cli-fip');
    const server = await describeJson<ServerJson>('server', 'describe', 'cli-fip-server');
    expect(ip.server).toBe(server.id);
    expect(server.public_net.floating_ips).toEqual([ip.id]);
    await ok('floating-ip', 'unassign', 'cli-fip');
    expect((await describeJson<{ server: number | null }>('floating-ip', 'describe', 'cli-fip')).server).toBeNull();
    await ok('floating-ip', 'delete', 'cli-fip');
    expect(await ok('floating-ip', 'list', '-o', 'noheader')).not.toContain('cli-fip');
  });

  it('creates a volume, attaches it to a server, detaches it and deletes it', async () => {
    await createServer('cli-vol-server');
    await ok('volume', 'create', '--name', 'cli-vol', '--size', '10', '--location', 'fsn1');
    await ok('volume', 'attach', 'cli-vol', '--server', 'cli-vol-server');
    const volume = await describeJson<{ id: number; server: number | null; size: number }>('volume', 'describe', 'cli-vol');
    const server = await describeJson<ServerJson>('server', 'describe', 'cli-vol-server');
    expect(volume).toMatchObject({ server: server.id, size: 10 });
    expect(server.volumes).toEqual([volume.id]);
    const attachedDelete = await hcloud('volume', 'delete', 'cli-vol');
    expect(attachedDelete.code).not.toBe(0);
    await ok('volume', 'detach', 'cli-vol');
    await ok('volume', 'delete', 'cli-vol');
    expect(await ok('volume', 'list', '-o', 'noheader')).not.toContain('cli-vol');
  });

  it('uploads a certificate and reads back its domain names and fingerprint', async () => {
    const openssl = await requireTool('openssl', 'openssl');
    const dir = join(world.dir, 'cert');
    await mkdir(dir, { recursive: true });
    const made = await runTool(
      openssl,
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '30',
        '-subj',
        '/CN=app.example.de',
        '-addext',
        'subjectAltName=DNS:app.example.de,DNS:www.example.de',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { PATH: process.env.PATH ?? '' },
    );
    expect(made.code).toBe(0);
    await ok('certificate', 'create', '--name', 'cli-cert', '--cert-file', join(dir, 'cert.pem'), '--key-file', join(dir, 'key.pem'));
    const cert = await describeJson<{ type: string; domain_names: string[]; fingerprint: string }>('certificate', 'describe', 'cli-cert');
    const fingerprint = await runTool(openssl, ['x509', '-in', join(dir, 'cert.pem'), '-noout', '-fingerprint', '-sha256'], { PATH: process.env.PATH ?? '' });
    expect(cert.type).toBe('uploaded');
    expect(cert.domain_names).toEqual(['app.example.de', 'www.example.de']);
    expect(cert.fingerprint).toBe(fingerprint.stdout.trim().split('=')[1]!.toLowerCase());
    const wrongKey = join(dir, 'other.pem');
    await runTool(openssl, ['genpkey', '-algorithm', 'ed25519', '-out', wrongKey], { PATH: process.env.PATH ?? '' });
    const refused = await hcloud('certificate', 'create', '--name', 'cli-cert-2', '--cert-file', join(dir, 'cert.pem'), '--key-file', wrongKey);
    expect(refused.stderr).toContain('invalid_input');
    await ok('certificate', 'delete', 'cli-cert');
  });

  it('applies a firewall to a server and shows it on both sides', async () => {
    await createServer('cli-fw-server');
    await ok('firewall', 'create', '--name', 'cli-fw');
    await ok('firewall', 'apply-to-resource', 'cli-fw', '--type', 'server', '--server', 'cli-fw-server');
    const fw = await describeJson<{ id: number; applied_to: Array<{ type: string; server?: { id: number } }> }>('firewall', 'describe', 'cli-fw');
    const server = await describeJson<ServerJson>('server', 'describe', 'cli-fw-server');
    expect(fw.applied_to).toEqual([expect.objectContaining({ type: 'server', server: { id: server.id } })]);
    expect(server.public_net.firewalls.map((f) => f.id)).toEqual([fw.id]);
    await ok('firewall', 'remove-from-resource', 'cli-fw', '--type', 'server', '--server', 'cli-fw-server');
    expect((await describeJson<ServerJson>('server', 'describe', 'cli-fw-server')).public_net.firewalls).toEqual([]);
  });

  it('gives each server its own MAC address on a private network', async () => {
    await ok('network', 'create', '--name', 'cli-net', '--ip-range', '10.90.0.0/16');
    await ok('network', 'add-subnet', 'cli-net', '--type', 'cloud', '--network-zone', 'eu-central', '--ip-range', '10.90.1.0/24');
    await createServer('cli-mac-1', '--network', 'cli-net');
    await createServer('cli-mac-2', '--network', 'cli-net');
    const macs = await Promise.all(
      ['cli-mac-1', 'cli-mac-2'].map(async (n) => (await describeJson<ServerJson>('server', 'describe', n)).private_net[0]?.mac_address),
    );
    expect(macs.every((m) => /^86:00:00(:[0-9a-f]{2}){3}$/.test(m ?? ''))).toBe(true);
    expect(new Set(macs).size).toBe(2);
  });

  it('lists the data centers and the ISOs', async () => {
    expect(await ok('datacenter', 'list', '-o', 'noheader', '-o', 'columns=name,location')).toMatch(/fsn1-dc14\s+fsn1/);
    expect(await ok('iso', 'list', '-o', 'noheader', '-o', 'columns=name')).toMatch(/ubuntu-24\.04.*amd64\.iso/);
  });

  it('sends RateLimit-Reset on the clock of its Date header', async () => {
    const res = await fetch(`${world.served.hetzner}/locations`, { headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` } });
    const date = Date.parse(res.headers.get('date') ?? '') / 1000;
    const reset = Number(res.headers.get('ratelimit-reset'));
    const remaining = Number(res.headers.get('ratelimit-remaining'));
    const limit = Number(res.headers.get('ratelimit-limit'));
    // The project refills 1 request per second (3600 per hour): the reset is the spent requests' seconds after Date.
    expect(reset - date).toBeGreaterThanOrEqual(limit - remaining - 1);
    expect(reset - date).toBeLessThanOrEqual(limit - remaining + 1);
  });
});
