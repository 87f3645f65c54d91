// `kubeplane sandbox serve` as curl sees it for Cloudflare (zones, record PUT/PATCH, relative names, token
// verification) and for Crusoe (requests signed with kubeplane's v1.0 signer, sent by curl): a CMK world's VMs with
// every field the swagger requires on their disks, NICs and InfiniBand adapters, and identifiers of their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crusoeAuthorizationHeader, crusoeTimestamp } from '@kubeplane/providers';
import { SANDBOX_CLOUDFLARE_ZONE, SANDBOX_CREDENTIALS, type ServedFile } from '@kubeplane/sandbox';
import { curl } from './test-support/tools.js';
import { ServedWorld } from './test-support/served-world.js';

let world: ServedWorld;
let served: ServedFile;

beforeAll(async () => {
  world = await ServedWorld.start({ manifests: ['examples/crusoe-cmk.yaml'] });
  served = world.served;
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

type Json = Record<string, unknown>;

describe('the served Cloudflare API v4 through curl', () => {
  type Envelope<T> = { success: boolean; errors: Array<{ code: number; message: string }>; messages: Array<{ code: number; message: string }>; result: T };
  const auth = ['-H', `Authorization: Bearer ${SANDBOX_CREDENTIALS.cloudflareApiToken}`];
  const json = ['-H', 'Content-Type: application/json'];
  const cf = async <T>(args: string[]): Promise<{ status: number; body: Envelope<T> }> => {
    const res = await curl(args);
    return { status: res.status, body: JSON.parse(res.body) as Envelope<T> };
  };
  let zoneId = '';
  const records = () => `${served.cloudflare}/zones/${zoneId}/dns_records`;

  beforeAll(async () => {
    const zones = await cf<Array<{ id: string }>>([...auth, `${served.cloudflare}/zones?name=${SANDBOX_CLOUDFLARE_ZONE}`]);
    zoneId = zones.body.result[0]?.id ?? '';
    expect(zoneId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('verifies the sandbox token as active, and answers another token with 401 and code 1000', async () => {
    const ok = await cf<{ id: string; status: string }>([...auth, `${served.cloudflare}/user/tokens/verify`]);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      success: true,
      errors: [],
      result: { status: 'active' },
      messages: [{ code: 10000, message: 'This API Token is valid and active' }],
    });
    expect(ok.body.result.id).toMatch(/^[0-9a-f]{32}$/);
    const bad = await cf<null>(['-H', 'Authorization: Bearer not-the-sandbox-token', `${served.cloudflare}/user/tokens/verify`]);
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ success: false, errors: [{ code: 1000, message: 'Invalid API Token' }], result: null });
  });

  it('gets one zone by id, active, with its nameservers and account', async () => {
    const zone = await cf<Json>([...auth, `${served.cloudflare}/zones/${zoneId}`]);
    expect(zone.status).toBe(200);
    expect(zone.body.result).toMatchObject({
      id: zoneId,
      name: SANDBOX_CLOUDFLARE_ZONE,
      status: 'active',
      paused: false,
      type: 'full',
      account: { id: SANDBOX_CREDENTIALS.cloudflareAccountId },
    });
    expect((zone.body.result['name_servers'] as string[]).length).toBeGreaterThanOrEqual(2);
    const unknown = await cf<null>([...auth, `${served.cloudflare}/zones/${'0'.repeat(32)}`]);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0]?.code).toBe(7003);
  });

  it('takes record names relative to the zone: `www` is www.<zone> and `@` the apex', async () => {
    const www = await cf<Json>([
      ...auth,
      ...json,
      '-X',
      'POST',
      '--data',
      JSON.stringify({ type: 'A', name: 'www-rel', content: '192.0.2.31', ttl: 60 }),
      records(),
    ]);
    expect(www.status).toBe(200);
    expect(www.body.result).toMatchObject({ name: `www-rel.${SANDBOX_CLOUDFLARE_ZONE}`, zone_name: SANDBOX_CLOUDFLARE_ZONE });
    const apex = await cf<Json>([
      ...auth,
      ...json,
      '-X',
      'POST',
      '--data',
      JSON.stringify({ type: 'TXT', name: '@', content: 'served-apex', ttl: 60 }),
      records(),
    ]);
    expect(apex.status).toBe(200);
    expect(apex.body.result['name']).toBe(SANDBOX_CLOUDFLARE_ZONE);
    const listed = await cf<Array<{ id: string }>>([...auth, `${records()}?name=www-rel.${SANDBOX_CLOUDFLARE_ZONE}`]);
    expect(listed.body.result.map((r) => r.id)).toEqual([www.body.result['id']]);
  });

  it('overwrites a record with PUT and changes one field with PATCH, keeping its id and creation time', async () => {
    const created = await cf<Json>([
      ...auth,
      ...json,
      '-X',
      'POST',
      '--data',
      JSON.stringify({ type: 'A', name: `put.${SANDBOX_CLOUDFLARE_ZONE}`, content: '192.0.2.40', ttl: 60, comment: 'first' }),
      records(),
    ]);
    const id = String(created.body.result['id']);
    const put = await cf<Json>([
      ...auth,
      ...json,
      '-X',
      'PUT',
      '--data',
      JSON.stringify({ type: 'A', name: 'put', content: '192.0.2.41', ttl: 120 }),
      `${records()}/${id}`,
    ]);
    expect(put.status).toBe(200);
    // PUT replaces the whole record: the comment not given is gone.
    expect(put.body.result).toMatchObject({
      id,
      name: `put.${SANDBOX_CLOUDFLARE_ZONE}`,
      content: '192.0.2.41',
      ttl: 120,
      comment: null,
      created_on: created.body.result['created_on'],
    });
    const patched = await cf<Json>([...auth, ...json, '-X', 'PATCH', '--data', JSON.stringify({ content: '192.0.2.42' }), `${records()}/${id}`]);
    expect(patched.status).toBe(200);
    expect(patched.body.result).toMatchObject({ id, content: '192.0.2.42', ttl: 120, type: 'A' });
    const got = await cf<Json>([...auth, `${records()}/${id}`]);
    expect(got.body.result).toMatchObject({ id, content: '192.0.2.42' });
  });

  it('refuses a PUT as Cloudflare does: an unknown record is 81044, an invalid address 9005, a PUT without a record id 405', async () => {
    const unknown = await cf<null>([
      ...auth,
      ...json,
      '-X',
      'PUT',
      '--data',
      JSON.stringify({ type: 'A', name: 'x', content: '192.0.2.50', ttl: 60 }),
      `${records()}/${'f'.repeat(32)}`,
    ]);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, errors: [{ code: 81044 }], result: null });
    const created = await cf<Json>([
      ...auth,
      ...json,
      '-X',
      'POST',
      '--data',
      JSON.stringify({ type: 'A', name: 'bad-put', content: '192.0.2.51', ttl: 60 }),
      records(),
    ]);
    const invalid = await cf<null>([
      ...auth,
      ...json,
      '-X',
      'PUT',
      '--data',
      JSON.stringify({ type: 'A', name: 'bad-put', content: 'not-an-address', ttl: 60 }),
      `${records()}/${String(created.body.result['id'])}`,
    ]);
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0]?.code).toBe(9005);
    const noId = await cf<null>([...auth, ...json, '-X', 'PUT', '--data', JSON.stringify({ type: 'A', name: 'x', content: '192.0.2.52', ttl: 60 }), records()]);
    expect(noId.status).toBe(405);
    expect(noId.body.errors).toEqual([{ code: 10000, message: 'PUT method not allowed for the api_token authentication scheme' }]);
  });

  it("answers an unknown path inside /client/v4 with Cloudflare's own 404 (code 7000), never anything from elsewhere", async () => {
    const res = await cf<null>([...auth, `${served.cloudflare}/no/such/endpoint`]);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, errors: [{ code: 7000 }], result: null });
  });
});

describe('the served Crusoe API through curl, signed as Crusoe clients sign', () => {
  /** curl with the v1.0 signature of `path` (under /v1) and its query, made with the machine's clock as a real client's. */
  const crusoe = async (method: string, path: string, query = ''): Promise<{ status: number; json: Json }> => {
    const timestamp = crusoeTimestamp(Date.now());
    const authorization = crusoeAuthorizationHeader({
      method,
      path: `/v1/${path}`,
      rawQuery: query,
      timestamp,
      accessKeyId: SANDBOX_CREDENTIALS.crusoeAccessKeyId,
      secretKey: SANDBOX_CREDENTIALS.crusoeSecretKey,
    });
    const res = await curl([
      '-X',
      method,
      '-H',
      `Authorization: ${authorization}`,
      '-H',
      `X-Crusoe-Timestamp: ${timestamp}`,
      `${served.crusoe}/${path}${query ? `?${query}` : ''}`,
    ]);
    return { status: res.status, json: JSON.parse(res.body) as Json };
  };
  const project = `projects/${SANDBOX_CREDENTIALS.crusoeProjectId}`;

  /** Every VM of the project, page by page. */
  async function allVms(): Promise<Json[]> {
    const out: Json[] = [];
    let token = '';
    do {
      const page = await crusoe(
        'GET',
        `${project}/compute/vms/instances`,
        `limit=100${token ? `&next_token=${encodeURIComponent(token)}` : ''}&sort=created_at`,
      );
      expect(page.status).toBe(200);
      out.push(...(page.json['items'] as Json[]));
      token = String(page.json['next_page_token'] ?? '');
    } while (token);
    return out;
  }

  it('gives every VM of the CMK world its own OS disk id, NIC id and MAC address', async () => {
    const vms = await allVms();
    expect(vms.length).toBeGreaterThanOrEqual(3);
    const osDisks = vms.map((v) => (v['disks'] as Json[]).find((d) => d['attachment_type'] === 'os')?.['id']);
    const nics = vms.map((v) => (v['network_interfaces'] as Json[])[0] as Json);
    expect(new Set(osDisks).size).toBe(vms.length);
    expect(new Set(nics.map((n) => n['id'])).size).toBe(vms.length);
    expect(new Set(nics.map((n) => n['mac_address'])).size).toBe(vms.length);
  });

  it('describes disks, NICs and InfiniBand adapters with every field the swagger requires', async () => {
    const vms = await allVms();
    // AttachedDiskV1, NetworkInterface and HostChannelAdapter in crusoe-api-v1-swagger.json.
    for (const vm of vms) {
      for (const d of vm['disks'] as Json[])
        for (const key of ['id', 'name', 'type', 'size', 'location', 'block_size', 'created_at', 'updated_at', 'serial_number', 'attachment_type', 'mode'])
          expect(d, `${String(vm['name'])} disk lacks ${key}`).toHaveProperty(key);
      for (const n of vm['network_interfaces'] as Json[])
        for (const key of ['id', 'name', 'network', 'subnet', 'interface_type', 'mac_address', 'ips', 'external_dns_name']) expect(n).toHaveProperty(key);
    }
    const ib = vms.filter((v) => String(v['type']).includes('-ib.'));
    expect(ib.length).toBeGreaterThan(0);
    for (const vm of ib) {
      const [hca] = vm['host_channel_adapters'] as Json[];
      for (const key of ['type', 'guid', 'ib_network_id', 'ib_partition_id', 'transport_network_id', 'transport_partition_id']) expect(hca).toHaveProperty(key);
      expect(hca?.['ib_network_id']).toMatch(/\S/);
    }
    expect(new Set(ib.map((v) => ((v['host_channel_adapters'] as Json[])[0] as Json)['guid'])).size).toBe(ib.length);
  });

  it("answers an unknown path inside /v1 with Crusoe's own 404", async () => {
    const res = await crusoe('GET', `${project}/no-such-collection`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: 'not_found', error_id: expect.any(String) as unknown });
  });
});

describe('the served sandbox never sends a request on', () => {
  it('answers a path no AWS emulator serves on the AWS port with a 404 of its own', async () => {
    const res = await curl(['-X', 'GET', `${served.aws}/no/such/path`]);
    expect(res.status).toBe(404);
    expect(res.body).toContain('the sandbox has nothing at GET /no/such/path');
  });
});
