import { afterEach, describe, expect, it } from 'vitest';
import { CRUSOE_API, CRUSOE_LATENCY } from './emulator.js';
import { CRUSOE_SANDBOX_CREDENTIALS as CREDS, CrusoeSandbox } from './harness.js';
import { crusoeAuthorizationHeader as authorizationHeader, crusoeBuildQuery as buildQuery, crusoeTimestamp } from '@kubeplane/providers';
import { crusoeStartupScript as startupScript } from '@kubeplane/providers';

let sandbox: CrusoeSandbox;
afterEach(() => sandbox.stop());

/** A correctly signed request, as any Crusoe client sends it. */
async function call(
  method: string,
  path: string,
  options: { query?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const query = buildQuery(options.query ?? {});
  const full = path.startsWith('/') ? path.slice(1) : `projects/${CREDS.projectId}/${path}`;
  const timestamp = crusoeTimestamp(sandbox.clock.now());
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
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const vm = (name: string, type = 'c1a.2x', extra: Record<string, unknown> = {}) => ({
  name,
  type,
  location: 'us-east1-a',
  image: 'ubuntu22.04:latest',
  ssh_public_key: 'ssh-ed25519 AAAA k',
  ...extra,
});

describe('Crusoe emulator', () => {
  it("runs a VM create as an operation that succeeds after the model's 120 s, with the VM as its result", async () => {
    sandbox = new CrusoeSandbox();
    const created = await call('POST', 'compute/vms/instances', { body: vm('a-1') });
    const op = created.json['operation'] as { operation_id: string; state: string };
    expect(op.state).toBe('IN_PROGRESS');
    sandbox.clock.advance(CRUSOE_LATENCY.vmCreate - 1000);
    expect((await call('GET', `compute/vms/instances/operations/${op.operation_id}`)).json['state']).toBe('IN_PROGRESS');
    sandbox.clock.advance(1000);
    const finished = (await call('GET', `compute/vms/instances/operations/${op.operation_id}`)).json;
    expect(finished['state']).toBe('SUCCEEDED');
    expect(finished['result']).toMatchObject({ name: 'a-1', state: 'STATE_RUNNING' });
    expect(CRUSOE_LATENCY.vmCreate).toBe(120_000);
  });

  it('lists capacity per type and location only where the location offers the type, with the quota it counts against, filtered by location and product, and counts down with stock', async () => {
    sandbox = new CrusoeSandbox();
    const gb200 = (await call('GET', '/capacities', { query: { product_name: 'gb200-186gb-nvl-ib.4x' } })).json['items'];
    expect(gb200).toEqual([
      { type: 'gb200-186gb-nvl-ib.4x', location: 'us-southcentral1-a', quantity: 4, num_slices: 1, quota_type: 'PROJECT_QUOTA_TYPE_MAXIMUM_GPU_VMS' },
    ]);
    const east = (await call('GET', '/capacities', { query: { location: 'us-east1-a', product_name: 'a100-80gb.8x' } })).json['items'];
    expect(east).toEqual([{ type: 'a100-80gb.8x', location: 'us-east1-a', quantity: 16, num_slices: 1, quota_type: 'PROJECT_QUOTA_TYPE_MAXIMUM_GPU_VMS' }]);
    await call('POST', 'compute/vms/instances', { body: vm('g-1', 'a100-80gb.8x', { image: 'ubuntu22.04-nvidia-sxm-docker:latest' }) });
    expect((await call('GET', '/capacities', { query: { location: 'us-east1-a', product_name: 'a100-80gb.8x' } })).json['items']).toMatchObject([
      { quantity: 15 },
    ]);
  });

  it('answers an unknown operation with 403, as the spec says', async () => {
    sandbox = new CrusoeSandbox();
    expect((await call('GET', 'compute/vms/instances/operations/00000000-0000-4000-8000-0000000fffff')).status).toBe(403);
  });

  it('runs out of GPU stock with out_of_stock and over quota with quota_exceeded', async () => {
    sandbox = new CrusoeSandbox({ emulator: { stock: { 'us-east1-a/a100-80gb.8x': 1 }, quota: { vms: 3, gpuVms: 10 } } });
    expect((await call('POST', 'compute/vms/instances', { body: vm('g-1', 'a100-80gb.8x', { image: 'ubuntu22.04-nvidia-sxm-docker:latest' }) })).status).toBe(
      200,
    );
    const stock = await call('POST', 'compute/vms/instances', { body: vm('g-2', 'a100-80gb.8x', { image: 'ubuntu22.04-nvidia-sxm-docker:latest' }) });
    expect(stock).toMatchObject({ status: 400, json: { code: 'out_of_stock' } });
    expect((stock.json['error_id'] as string).length).toBeGreaterThan(0);
    await call('POST', 'compute/vms/instances', { body: vm('c-1') });
    await call('POST', 'compute/vms/instances', { body: vm('c-2') });
    expect(await call('POST', 'compute/vms/instances', { body: vm('c-3') })).toMatchObject({ status: 403, json: { code: 'quota_exceeded' } });
  });

  it('requires an InfiniBand partition in the same location for -ib types', async () => {
    sandbox = new CrusoeSandbox();
    const image = { image: 'ubuntu22.04-nvidia-sxm-docker:latest' };
    expect((await call('POST', 'compute/vms/instances', { body: vm('ib-1', 'h100-80gb-sxm-ib.8x', image) })).status).toBe(400);
    const networks = (await call('GET', 'networking/ib-networks')).json['items'] as Array<{ id: string; location: string }>;
    const far = await call('POST', 'networking/ib-partitions', {
      body: { name: 'far', ib_network_id: networks.find((n) => n.location === 'eu-iceland1-a')?.id },
    });
    expect(
      (
        await call('POST', 'compute/vms/instances', {
          body: vm('ib-2', 'h100-80gb-sxm-ib.8x', { ...image, host_channel_adapters: [{ transport_partition_id: far.json['id'] }] }),
        })
      ).status,
    ).toBe(400);
    const near = await call('POST', 'networking/ib-partitions', {
      body: { name: 'near', ib_network_id: networks.find((n) => n.location === 'us-east1-a')?.id },
    });
    expect(
      (
        await call('POST', 'compute/vms/instances', {
          body: vm('ib-3', 'h100-80gb-sxm-ib.8x', { ...image, host_channel_adapters: [{ transport_partition_id: near.json['id'] }] }),
        })
      ).status,
    ).toBe(200);
  });

  it('replaces a node pool VM deleted without lowering the count', async () => {
    sandbox = new CrusoeSandbox();
    const cluster = await call('POST', 'kubernetes/clusters', { body: { name: 'k', location: 'us-east1-a', version: '1.33.4-cmk.15' } });
    sandbox.clock.advance(CRUSOE_LATENCY.cmkClusterCreate);
    const clusterId = ((await call('GET', 'kubernetes/clusters')).json['items'] as Array<{ id: string }>)[0]?.id;
    expect(cluster.status).toBe(200);
    await call('POST', 'kubernetes/nodepools', { body: { cluster_id: clusterId, name: 'p', product_name: 'c1a.4x', count: 2 } });
    sandbox.clock.advance(CRUSOE_LATENCY.cmkNodePoolCreate);
    const pool = ((await call('GET', 'kubernetes/nodepools')).json['items'] as Array<{ id: string; instance_ids: string[] }>)[0];
    await call('DELETE', `compute/vms/instances/${pool?.instance_ids[0] ?? ''}`);
    sandbox.clock.advance(CRUSOE_LATENCY.vmDelete);
    const after = (await call('GET', `kubernetes/nodepools/${pool?.id ?? ''}`)).json['instance_ids'] as string[];
    expect(after).toHaveLength(2);
    expect(after).not.toContain(pool?.instance_ids[0]);
  });

  it("reports a cluster's pod and Service ranges, the request's or the defaults, and refuses a range that is not one", async () => {
    sandbox = new CrusoeSandbox();
    const base = { location: 'us-east1-a', version: '1.33.4-cmk.15' };
    expect((await call('POST', 'kubernetes/clusters', { body: { ...base, name: 'a', cluster_cidr: '10.60.0.0/16', node_cidr_mask_size: 25 } })).status).toBe(
      200,
    );
    expect((await call('POST', 'kubernetes/clusters', { body: { ...base, name: 'b' } })).status).toBe(200);
    const bad = await call('POST', 'kubernetes/clusters', { body: { ...base, name: 'c', service_cluster_ip_range: '10.300.0.0/16' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('service_cluster_ip_range must be an IPv4 range');
    const items = (await call('GET', 'kubernetes/clusters')).json['items'] as Array<Record<string, unknown>>;
    expect(items.map((c) => [c['name'], c['cluster_cidr'], c['service_cluster_ip_range'], c['node_cidr_mask_size']])).toEqual([
      ['a', '10.60.0.0/16', '10.233.0.0/18', 25],
      ['b', '10.233.64.0/18', '10.233.0.0/18', 24],
    ]);
  });

  it('scales a pool to zero when a PATCH leaves out the count (the Go zero value)', async () => {
    sandbox = new CrusoeSandbox();
    await call('POST', 'kubernetes/clusters', { body: { name: 'k', location: 'us-east1-a', version: '1.33.4-cmk.15' } });
    sandbox.clock.advance(CRUSOE_LATENCY.cmkClusterCreate);
    const clusterId = ((await call('GET', 'kubernetes/clusters')).json['items'] as Array<{ id: string }>)[0]?.id;
    await call('POST', 'kubernetes/nodepools', { body: { cluster_id: clusterId, name: 'p', product_name: 'c1a.4x', count: 2 } });
    sandbox.clock.advance(CRUSOE_LATENCY.cmkNodePoolCreate);
    const pool = ((await call('GET', 'kubernetes/nodepools')).json['items'] as Array<{ id: string }>)[0];
    await call('PATCH', `kubernetes/nodepools/${pool?.id ?? ''}`, { body: { action: 'UPDATE', node_labels: { a: 'b' } } });
    expect((await call('GET', `kubernetes/nodepools/${pool?.id ?? ''}`)).json['count']).toBe(0);
  });

  it('refuses a body field of the wrong type and a missing required one with bad_request naming them, as its Swagger document has them', async () => {
    sandbox = new CrusoeSandbox();
    const wrongType = await call('POST', 'compute/vms/instances', { body: { ...vm('t-1'), name: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json).toMatchObject({ code: 'bad_request', message: expect.stringContaining("field 'name'") as unknown });
    const { type: _type, ...untyped } = vm('t-2');
    const missing = await call('POST', 'compute/vms/instances', { body: untyped });
    expect(missing.json).toMatchObject({ code: 'bad_request', message: expect.stringContaining("field 'type' is required") as unknown });
    expect(sandbox.emulator.vms.size).toBe(0);
  });

  it('keeps startup scripts (and the secrets in them) out of the inventory, but gives the kubelets their cloud-config', async () => {
    sandbox = new CrusoeSandbox();
    const cloudConfig = '#cloud-config\nwrite_files:\n- path: /etc/kubeplane/token\n  content: bootstrap-token-abcdef.0123456789abcdef\n';
    await call('POST', 'compute/vms/instances', { body: vm('s-1', 'c1a.2x', { startup_script: startupScript(cloudConfig) }) });
    expect(JSON.stringify(sandbox.inventory())).not.toContain('0123456789abcdef');
    expect(sandbox.emulator.listVms()[0]?.userData).toBe(cloudConfig);
  });
});

describe('Crusoe inventory', () => {
  it('attributes resources to kubeplane cluster ids by name, and CMK-made ones to their cluster', async () => {
    sandbox = new CrusoeSandbox();
    await call('POST', 'compute/vms/instances', { body: vm('my-cluster-k3x9q2a-workers-01') });
    await call('POST', 'kubernetes/clusters', { body: { name: 'gpu-7h2k9xq', location: 'us-east1-a', version: '1.33.4-cmk.15' } });
    sandbox.clock.advance(CRUSOE_LATENCY.cmkClusterCreate);
    await call('GET', 'locations');
    const items = sandbox.inventory();
    expect(items.find((i) => i.kind === 'node')?.clusterId).toBe('my-cluster-k3x9q2a');
    expect(items.filter((i) => i.kind === 'firewall').map((i) => i.owner)).toEqual(['gpu-7h2k9xq', 'gpu-7h2k9xq', 'gpu-7h2k9xq', 'gpu-7h2k9xq']);
    expect(items.filter((i) => i.kind === 'firewall').every((i) => i.clusterId === 'gpu-7h2k9xq')).toBe(true);
  });
});

describe('the Crusoe catalog (crusoe-cloud.json)', () => {
  it("lists the VM types as GET /compute/vms/types returns them, GPUs named in Crusoe's spelling, with their local NVMe", async () => {
    sandbox = new CrusoeSandbox();
    const items = (await call('GET', 'compute/vms/types')).json['items'] as Array<Record<string, unknown>>;
    const h100 = items.find((t) => t['product_name'] === 'h100-80gb-sxm-ib.8x');
    expect(h100).toMatchObject({ num_gpu: 8, gpu_type: 'H100-SXM-80GB', disk_gb: 7680, disk_type: 'NVMe', memory_type: 'DDR5' });
    expect(items.find((t) => t['product_name'] === 'gb200-186gb-nvl-ib.4x')).toMatchObject({ num_gpu: 4, gpu_type: 'GB200-NVL-186GB', cpu_type: 'arm64' });
    expect(items.find((t) => t['product_name'] === 'c1a.16x')).toMatchObject({ cpu_cores: 16, memory_gb: 64, num_gpu: 0 });
    expect(((await call('GET', '/locations')).json['items'] as string[]).sort()).toEqual([
      'eu-iceland1-a',
      'us-east1-a',
      'us-northcentral1-a',
      'us-southcentral1-a',
    ]);
  });
});

describe('Crusoe emulator: operations it does not serve', () => {
  it("refuses an operation of Crusoe's document in the sealed sandbox's words (400), never 404, and a path the API lacks with 404", async () => {
    sandbox = new CrusoeSandbox();
    const snapshots = await call('GET', 'storage/snapshots');
    expect(snapshots.status).toBe(400);
    expect(snapshots.json).toMatchObject({ code: 'bad_request' });
    expect(String(snapshots.json['message'])).toContain("the sandbox does not serve GET /projects/{project_id}/storage/snapshots: Crusoe's API has it");
    expect((await call('GET', 'storage/no-such-thing')).status).toBe(404);
  });
});
