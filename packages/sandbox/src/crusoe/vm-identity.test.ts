import { afterEach, describe, expect, it } from 'vitest';
import { crusoeAuthorizationHeader as authorizationHeader, crusoeBuildQuery as buildQuery, crusoeTimestamp } from '@kubeplane/providers';
import { CRUSOE_API, CRUSOE_LATENCY } from './emulator.js';
import { CRUSOE_SANDBOX_CREDENTIALS as CREDS, CrusoeSandbox } from './harness.js';

// The required properties of crusoe-api-v1-swagger.json's definitions the VM carries.
const ATTACHED_DISK_REQUIRED = ['id', 'name', 'type', 'size', 'location', 'block_size', 'created_at', 'updated_at', 'serial_number', 'attachment_type', 'mode'];
const DISK_REQUIRED = ['id', 'name', 'type', 'size', 'location', 'block_size', 'created_at', 'updated_at', 'serial_number', 'attached_to'];
const NIC_REQUIRED = ['id', 'name', 'network', 'subnet', 'interface_type', 'mac_address', 'ips', 'external_dns_name'];
const HCA_REQUIRED = ['type', 'guid', 'ib_network_id', 'ib_partition_id', 'transport_network_id', 'transport_partition_id'];
const SSH_KEY_REQUIRED = ['id', 'name', 'public_key', 'created_at', 'fingerprints'];

type Json = Record<string, unknown>;

let sandbox: CrusoeSandbox | undefined;
afterEach(() => {
  sandbox?.stop();
  sandbox = undefined;
});

async function call(
  world: CrusoeSandbox,
  method: string,
  path: string,
  options: { query?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; json: Json }> {
  const query = buildQuery(options.query ?? {});
  const full = path.startsWith('/') ? path.slice(1) : `projects/${CREDS.projectId}/${path}`;
  const timestamp = crusoeTimestamp(world.clock.now());
  const authorization = authorizationHeader({
    method,
    path: `/v1/${full}`,
    rawQuery: query,
    timestamp,
    accessKeyId: CREDS.accessKeyId,
    secretKey: CREDS.secretKey,
  });
  const response = await fetch(`${CRUSOE_API}/${full}${query ? `?${query}` : ''}`, {
    method,
    headers: { authorization, 'x-crusoe-timestamp': timestamp, 'content-type': 'application/json' },
    ...(options.body ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Json) : {} };
}

const vm = (name: string, extra: Json = {}) => ({
  name,
  type: 'c1a.2x',
  location: 'us-east1-a',
  image: 'ubuntu22.04:latest',
  ssh_public_key: 'ssh-ed25519 AAAA k',
  ...extra,
});

/** Three VMs, one with a data disk, as the API lists them (sorted by creation). */
async function threeVms(seed: number): Promise<{ world: CrusoeSandbox; vms: Json[] }> {
  const world = new CrusoeSandbox({ seed });
  await call(world, 'POST', 'storage/disks', { body: { name: 'data-1', size: '100GiB', location: 'us-east1-a' } });
  world.clock.advance(CRUSOE_LATENCY.diskCreate);
  const disk = ((await call(world, 'GET', 'storage/disks')).json['items'] as Json[])[0] as Json;
  await call(world, 'POST', 'compute/vms/instances', { body: vm('a-1', { disks: [{ disk_id: disk['id'], mode: 'read-write', attachment_type: 'data' }] }) });
  await call(world, 'POST', 'compute/vms/instances', { body: vm('a-2') });
  await call(world, 'POST', 'compute/vms/instances', { body: vm('a-3') });
  const vms = (await call(world, 'GET', 'compute/vms/instances', { query: { sort: 'created_at' } })).json['items'] as Json[];
  return { world, vms };
}

const nics = (v: Json) => v['network_interfaces'] as Json[];
const disks = (v: Json) => v['disks'] as Json[];

describe('Crusoe VMs as the API describes them', () => {
  it('gives every VM its own OS disk id, network interface id and MAC address', async () => {
    const { world, vms } = await threeVms(1);
    sandbox = world;
    const osDisks = vms.map((v) => disks(v).find((d) => d['attachment_type'] === 'os')?.['id']);
    const nicIds = vms.map((v) => nics(v)[0]?.['id']);
    const macs = vms.map((v) => nics(v)[0]?.['mac_address']);
    expect(new Set(osDisks).size).toBe(3);
    expect(new Set(nicIds).size).toBe(3);
    expect(new Set(macs).size).toBe(3);
    for (const mac of macs) expect(mac).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    // None of them is another resource's id.
    const vmIds = new Set(vms.map((v) => v['id']));
    for (const id of [...osDisks, ...nicIds]) expect(vmIds.has(id)).toBe(false);
  });

  it('repeats the same identifiers when the same seeded world is played again', async () => {
    const first = await threeVms(7);
    first.world.stop();
    const second = await threeVms(7);
    sandbox = second.world;
    const ids = (vms: Json[]) => vms.map((v) => [v['id'], disks(v).map((d) => [d['id'], d['serial_number']]), nics(v).map((n) => [n['id'], n['mac_address']])]);
    expect(ids(second.vms)).toEqual(ids(first.vms));
  });

  it('describes attached disks with every field AttachedDiskV1 requires, the data disk as GET /storage/disks does', async () => {
    const { world, vms } = await threeVms(1);
    sandbox = world;
    const withData = vms.find((v) => v['name'] === 'a-1') as Json;
    for (const d of disks(withData)) for (const key of ATTACHED_DISK_REQUIRED) expect(d, `disk ${String(d['name'])} lacks ${key}`).toHaveProperty(key);
    const os = disks(withData).find((d) => d['attachment_type'] === 'os') as Json;
    expect(os).toMatchObject({ location: 'us-east1-a', block_size: 4096, created_at: withData['created_at'] });
    expect(os['serial_number']).toMatch(/^[0-9A-F]{19}$/);
    const data = disks(withData).find((d) => d['attachment_type'] === 'data') as Json;
    const listed = ((await call(world, 'GET', 'storage/disks')).json['items'] as Json[])[0] as Json;
    for (const key of DISK_REQUIRED) expect(listed).toHaveProperty(key);
    for (const key of ['id', 'name', 'location', 'block_size', 'serial_number', 'created_at', 'updated_at']) expect(data[key]).toEqual(listed[key]);
    for (const n of nics(withData)) for (const key of NIC_REQUIRED) expect(n).toHaveProperty(key);
    // GET of one VM is the same object as in the list.
    expect((await call(world, 'GET', `compute/vms/instances/${String(withData['id'])}`)).json).toEqual(withData);
  });

  it('gives a VM without a public address the zero value of public_ipv4, which IPAddresses requires', async () => {
    sandbox = new CrusoeSandbox();
    await call(sandbox, 'POST', 'compute/vms/instances', { body: vm('private-1', { network_interfaces: [{ ips: [{ public_ipv4: { type: 'none' } }] }] }) });
    const [listed] = (await call(sandbox, 'GET', 'compute/vms/instances')).json['items'] as Json[];
    const ips = (nics(listed as Json)[0]?.['ips'] as Json[])[0] as Json;
    expect(ips['public_ipv4']).toEqual({ id: '', address: '', type: '' });
    expect(ips['private_ipv4']).toMatchObject({ address: expect.stringMatching(/^172\.27\./) as unknown });
  });

  it("describes an InfiniBand VM's host channel adapter with its GUID and its IB network, as HostChannelAdapter requires", async () => {
    sandbox = new CrusoeSandbox();
    const world = sandbox;
    const networks = (await call(world, 'GET', 'networking/ib-networks')).json['items'] as Json[];
    const east = networks.find((n) => n['location'] === 'us-east1-a') as Json;
    const partition = (await call(world, 'POST', 'networking/ib-partitions', { body: { name: 'ib-1', ib_network_id: east['id'] } })).json;
    const ibVm = (name: string) =>
      vm(name, { type: 'h100-80gb-sxm-ib.8x', image: 'ubuntu22.04-nvidia-sxm-docker:latest', host_channel_adapters: [{ ib_partition_id: partition['id'] }] });
    await call(world, 'POST', 'compute/vms/instances', { body: ibVm('g-1') });
    await call(world, 'POST', 'compute/vms/instances', { body: ibVm('g-2') });
    const vms = (await call(world, 'GET', 'compute/vms/instances', { query: { sort: 'created_at' } })).json['items'] as Json[];
    const hcas = vms.map((v) => (v['host_channel_adapters'] as Json[])[0] as Json);
    for (const h of hcas) {
      for (const key of HCA_REQUIRED) expect(h).toHaveProperty(key);
      expect(h).toMatchObject({
        type: 'infiniband',
        ib_partition_id: partition['id'],
        transport_partition_id: partition['id'],
        ib_network_id: east['id'],
        transport_network_id: east['id'],
      });
      expect(h['guid']).toMatch(/^([0-9a-f]{4}:){3}[0-9a-f]{4}$/);
    }
    expect(hcas[0]?.['guid']).not.toBe(hcas[1]?.['guid']);
  });

  it("answers an SSH key create with CreateSSHKeyResponse (`ssh_key`) and gives OpenSSH's MD5 and SHA256 fingerprints", async () => {
    sandbox = new CrusoeSandbox();
    // The fingerprints are what `ssh-keygen -l -E sha256` and `-E md5` print for this key.
    const publicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl kubeplane';
    const created = await call(sandbox, 'POST', '/users/ssh-keys', { body: { name: 'k-1', public_key: publicKey } });
    expect(created.status).toBe(200);
    const key = created.json['ssh_key'] as Json;
    for (const k of SSH_KEY_REQUIRED) expect(key).toHaveProperty(k);
    const fingerprints = key['fingerprints'] as Json;
    expect(fingerprints).toEqual({ md5: '65:96:2d:fc:e8:d5:a9:11:64:0c:0f:ea:00:6e:5b:bd', sha256: '+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU' });
    expect(((await call(sandbox, 'GET', '/users/ssh-keys')).json['items'] as Json[])[0]).toEqual(key);
  });
});
