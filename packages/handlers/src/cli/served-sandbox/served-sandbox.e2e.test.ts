// `kubeplane sandbox serve` driven by clients we did not write: the AWS CLI (EC2, Route 53), the official Python
// hcloud library, curl (Cloudflare, Crusoe, clusters) and Node's own TLS stack against each cluster's API with its
// generated PKI; Crusoe, for which none is installed, through kubeplane's own signing client over real HTTP. The
// server runs as its own process on a world built by `kubeplane apply --sandbox`, on ephemeral loopback ports.
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrusoeProvider, parseKubeconfig, type KubeConnection } from '@kubeplane/providers';
import {
  clusterTls,
  Sandbox,
  SANDBOX_CLOUDFLARE_ZONE,
  SANDBOX_CLOUDFLARE_ZONES,
  SANDBOX_CREDENTIALS,
  SANDBOX_SSH_PUBLIC_KEY,
  type ServedFile,
} from '@kubeplane/sandbox';
import { Redacted, systemClock } from '@kubeplane/sdk';
import { runCli } from '../../../../../test/helpers/cli.js';
import { curl, requirePythonWithHcloud, requireTool, runTool, type ToolRun } from './test-support/tools.js';
import { repositoryRoot, ServedWorld } from './test-support/served-world.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = repositoryRoot;

let world: ServedWorld;
let dir = '';
let served: ServedFile;
let awsEnv: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  world = await ServedWorld.start({ manifests: ['examples/minimal.yaml', 'examples/hybrid-aws-hetzner.yaml', 'examples/crusoe-cmk.yaml'] });
  dir = world.dir;
  served = world.served;
  awsEnv = world.awsEnv();
}, 180_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

async function stopServer(signal: NodeJS.Signals): Promise<number | null> {
  return world.stop(signal);
}

async function aws(args: string[], env: NodeJS.ProcessEnv = awsEnv): Promise<ToolRun> {
  const bin = await requireTool('aws', 'awscli');
  return runTool(bin, ['--endpoint-url', served.aws, '--output', 'json', ...args], env);
}

function json<T>(run: ToolRun): T {
  if (run.code !== 0) throw new Error(`exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

async function python(script: string, env: NodeJS.ProcessEnv): Promise<ToolRun> {
  const bin = await requirePythonWithHcloud();
  return runTool(bin, ['-c', script], { PATH: process.env.PATH ?? '', HOME: dir, ...env });
}

async function kubeconfigFor(cluster: string): Promise<KubeConnection> {
  const run = await runCli(['kubeconfig', cluster, '--sandbox', '--served', '--state-dir', dir], { cwd: root });
  if (run.code !== 0) throw new Error(`kubeconfig ${cluster}: ${run.stderr}`);
  return parseKubeconfig(Redacted.of(run.stdout));
}

function servedCluster(name: string): ServedFile['clusters'][number] {
  const c = served.clusters.find((x) => x.name === name);
  if (!c) throw new Error(`${name} is not served: ${JSON.stringify(served.clusters.map((x) => x.name))}`);
  return c;
}

/** GET over HTTPS with the kubeconfig's CA, client certificate and server name: TLS verification on. */
function kubeGet(conn: KubeConnection, path: string, overrides: { url?: string; cert?: string; key?: string } = {}): Promise<{ status: number; body: string }> {
  const url = new URL(path, overrides.url ?? conn.server);
  const name = conn.tlsServerName ?? url.hostname;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        ca: conn.caPem,
        cert: overrides.cert ?? conn.clientCertificatePem,
        key: overrides.key ?? conn.clientKeyPem?.reveal(),
        rejectUnauthorized: true,
        checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(name, cert),
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('kubeplane sandbox serve: EC2 and Route 53 through the AWS CLI', () => {
  it('creates instances, lists them with filters and server-side pages, and terminates them', async () => {
    const tag = 'ResourceType=instance,Tags=[{Key=team,Value=served-test}]';
    const created = json<{ Instances: Array<{ InstanceId: string }> }>(
      await aws(['ec2', 'run-instances', '--image-id', 'ami-0965bd5ba4d59211c', '--instance-type', 't3.medium', '--count', '2', '--tag-specifications', tag]),
    );
    const ids = created.Instances.map((i) => i.InstanceId).sort();
    expect(ids).toHaveLength(2);

    type Described = { Reservations: Array<{ Instances: Array<{ InstanceId: string; State: { Name: string } }> }>; NextToken?: string };
    // New instances show up in DescribeInstances after up to 5 virtual seconds, as on EC2: a client polls.
    let listed: string[] = [];
    for (let attempt = 0; attempt < 20 && listed.length < 2; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 250));
      const byTag = json<Described>(await aws(['ec2', 'describe-instances', '--filters', 'Name=tag:team,Values=served-test']));
      listed = byTag.Reservations.flatMap((r) => r.Instances.map((i) => i.InstanceId)).sort();
    }
    expect(listed).toEqual(ids);

    // The hybrid cluster's 5 machines plus these 2, in pages of 5 that the server cuts (MaxResults/NextToken).
    const first = json<Described>(await aws(['ec2', 'describe-instances', '--page-size', '5', '--max-items', '5']));
    const firstIds = first.Reservations.flatMap((r) => r.Instances.map((i) => i.InstanceId));
    expect(firstIds).toHaveLength(5);
    expect(first.NextToken).toBeTruthy();
    const rest = json<Described>(await aws(['ec2', 'describe-instances', '--page-size', '5', '--starting-token', first.NextToken ?? '']));
    const restIds = rest.Reservations.flatMap((r) => r.Instances.map((i) => i.InstanceId));
    expect(new Set([...firstIds, ...restIds]).size).toBe(7);
    expect(restIds).toEqual(expect.arrayContaining(ids.filter((id) => !firstIds.includes(id))));

    const terminated = json<{ TerminatingInstances: Array<{ CurrentState: { Name: string } }> }>(
      await aws(['ec2', 'terminate-instances', '--instance-ids', ...ids]),
    );
    expect(terminated.TerminatingInstances.map((t) => t.CurrentState.Name)).toEqual(['shutting-down', 'shutting-down']);
    const running = json<Described>(
      await aws(['ec2', 'describe-instances', '--filters', 'Name=tag:team,Values=served-test', 'Name=instance-state-name,Values=running']),
    );
    expect(running.Reservations.flatMap((r) => r.Instances)).toHaveLength(0);
  }, 180_000);

  it("serves each region the client signs for: eu-west-1 has none of eu-central-1's machines", async () => {
    type Described = { Reservations: Array<{ Instances: unknown[] }> };
    const central = json<Described>(await aws(['ec2', 'describe-instances', '--region', 'eu-central-1']));
    const west = json<Described>(await aws(['ec2', 'describe-instances', '--region', 'eu-west-1']));
    expect(central.Reservations.flatMap((r) => r.Instances).length).toBeGreaterThanOrEqual(5);
    expect(west.Reservations).toEqual([]);
  });

  it('creates, pages through and deletes a Route 53 record set', async () => {
    const zones = json<{ HostedZones: Array<{ Id: string; Name: string }> }>(await aws(['route53', 'list-hosted-zones-by-name']));
    const zone = zones.HostedZones.find((z) => z.Name === 'example.com.');
    expect(zone).toBeDefined();
    const zoneId = (zone?.Id ?? '').replace('/hostedzone/', '');
    const change = (action: string) =>
      JSON.stringify({
        Changes: [{ Action: action, ResourceRecordSet: { Name: 'served.example.com', Type: 'A', TTL: 60, ResourceRecords: [{ Value: '192.0.2.10' }] } }],
      });
    const created = json<{ ChangeInfo: { Id: string; Status: string } }>(
      await aws(['route53', 'change-resource-record-sets', '--hosted-zone-id', zoneId, '--change-batch', change('CREATE')]),
    );
    expect(created.ChangeInfo.Status).toBe('PENDING');

    type Listed = { ResourceRecordSets: Array<{ Name: string; Type: string; ResourceRecords?: Array<{ Value: string }> }> };
    // --page-size 1: the CLI follows the server's NextRecordName/IsTruncated one record at a time.
    const listed = json<Listed>(await aws(['route53', 'list-resource-record-sets', '--hosted-zone-id', zoneId, '--page-size', '1']));
    const record = listed.ResourceRecordSets.find((r) => r.Name === 'served.example.com.' && r.Type === 'A');
    expect(record?.ResourceRecords).toEqual([{ Value: '192.0.2.10' }]);
    expect(listed.ResourceRecordSets.length).toBeGreaterThan(2);

    json(await aws(['route53', 'change-resource-record-sets', '--hosted-zone-id', zoneId, '--change-batch', change('DELETE')]));
    const after = json<Listed>(await aws(['route53', 'list-resource-record-sets', '--hosted-zone-id', zoneId]));
    expect(after.ResourceRecordSets.some((r) => r.Name === 'served.example.com.')).toBe(false);
  });

  it("answers a request signed with the wrong secret with AWS's errors: AuthFailure (EC2), SignatureDoesNotMatch (Route 53)", async () => {
    const wrong = { ...awsEnv, AWS_SECRET_ACCESS_KEY: 'not/the/sandbox/secret/key/000000000000' };
    const ec2 = await aws(['ec2', 'describe-instances'], wrong);
    expect(ec2.code).not.toBe(0);
    expect(ec2.stderr).toContain('(AuthFailure)');
    const r53 = await aws(['route53', 'list-hosted-zones-by-name'], wrong);
    expect(r53.code).not.toBe(0);
    expect(r53.stderr).toContain('(SignatureDoesNotMatch)');
  });
});

describe('kubeplane sandbox serve: the Hetzner Cloud API through the official Python library', () => {
  const hcloudEnv = () => ({ HCLOUD_ENDPOINT: served.hetzner, HCLOUD_TOKEN: SANDBOX_CREDENTIALS.hetznerToken });

  it('creates a server, lists by label selector and in pages, and deletes it', async () => {
    const script = `
import json, os
from hcloud import Client
from hcloud.images.domain import Image
from hcloud.server_types.domain import ServerType
from hcloud.locations.domain import Location
c = Client(token=os.environ['HCLOUD_TOKEN'], api_endpoint=os.environ['HCLOUD_ENDPOINT'])
made = c.servers.create(name='served-test-1', server_type=ServerType(name='cpx22'), image=Image(name='ubuntu-24.04'), location=Location(name='fsn1'), labels={'team': 'served-test'})
selected = [s.name for s in c.servers.get_all(label_selector='team=served-test')]
page = c.servers.get_list(page=2, per_page=3)
everything = [s.name for s in c.servers.get_all()]
c.servers.delete(made.server)
left = [s.name for s in c.servers.get_all(label_selector='team=served-test') if s.status != 'deleting']
print(json.dumps({'selected': selected, 'page': [s.name for s in page.servers], 'pagination': {'page': page.meta.pagination.page, 'per_page': page.meta.pagination.per_page, 'total': page.meta.pagination.total_entries}, 'all': everything, 'left': left}))
`;
    const out = json<{ selected: string[]; page: string[]; pagination: { page: number; per_page: number; total: number }; all: string[]; left: string[] }>(
      await python(script, hcloudEnv()),
    );
    expect(out.selected).toEqual(['served-test-1']);
    // minimal's 3 machines, hybrid's 5 on Hetzner, and the new one.
    expect(out.all).toHaveLength(9);
    expect(out.pagination).toEqual({ page: 2, per_page: 3, total: 9 });
    expect(out.page).toEqual(out.all.slice(3, 6));
    expect(out.left).toEqual([]);
  });

  it("answers a wrong token with 401 and Hetzner's error body, to the library and on the wire", async () => {
    const script = `
import os
from hcloud import Client, APIException
try:
    Client(token='wrong-token', api_endpoint=os.environ['HCLOUD_ENDPOINT']).servers.get_all()
    print('accepted')
except APIException as e:
    print(e.code)
`;
    const run = await python(script, hcloudEnv());
    expect(run.stdout.trim()).toBe('unauthorized');
    const res = await fetch(`${served.hetzner}/servers`, { headers: { authorization: 'Bearer wrong-token' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: 'unable to authenticate', details: expect.anything() as unknown } });
  });
});

describe('kubeplane sandbox serve: the Cloudflare API v4 through curl', () => {
  const bearer = (token: string) => ['-H', `Authorization: Bearer ${token}`];
  type Envelope<T> = { success: boolean; errors: Array<{ code: number; message: string }>; messages: unknown[]; result: T };
  type Zone = { id: string; name: string };

  it("lists the sandbox account's zones in the v4 envelope", async () => {
    const res = await curl([...bearer(SANDBOX_CREDENTIALS.cloudflareApiToken), `${served.cloudflare}/zones`]);
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as Envelope<Zone[]>;
    expect(body).toMatchObject({ success: true, errors: [], messages: [] });
    expect(body.result.map((z) => z.name).sort()).toEqual([...SANDBOX_CLOUDFLARE_ZONES].sort());
  });

  it('creates a DNS record that the zone then lists', async () => {
    const auth = bearer(SANDBOX_CREDENTIALS.cloudflareApiToken);
    const zones = JSON.parse((await curl([...auth, `${served.cloudflare}/zones?name=${SANDBOX_CLOUDFLARE_ZONE}`])).body) as Envelope<Zone[]>;
    const zoneId = zones.result[0]?.id ?? '';
    const record = { type: 'A', name: `served.${SANDBOX_CLOUDFLARE_ZONE}`, content: '192.0.2.20', ttl: 60 };
    const created = await curl([
      ...auth,
      '-X',
      'POST',
      '-H',
      'Content-Type: application/json',
      '--data',
      JSON.stringify(record),
      `${served.cloudflare}/zones/${zoneId}/dns_records`,
    ]);
    expect(created.status).toBe(200);
    expect((JSON.parse(created.body) as Envelope<unknown>).result).toMatchObject(record);
    const listed = JSON.parse(
      (await curl([...auth, `${served.cloudflare}/zones/${zoneId}/dns_records?type=A&name=served.${SANDBOX_CLOUDFLARE_ZONE}`])).body,
    ) as Envelope<Array<{ content: string }>>;
    expect(listed.result.map((r) => r.content)).toEqual(['192.0.2.20']);
  });

  it("answers a wrong token with Cloudflare's 403 authentication error, and a path outside /client/v4 with its 404", async () => {
    const wrong = await curl([...bearer('not-the-sandbox-token'), `${served.cloudflare}/zones`]);
    expect(wrong.status).toBe(403);
    expect(JSON.parse(wrong.body)).toEqual({ success: false, errors: [{ code: 10000, message: 'Authentication error' }], messages: [], result: null });
    const outside = await curl([...bearer(SANDBOX_CREDENTIALS.cloudflareApiToken), `${new URL(served.cloudflare).origin}/client/v3/zones`]);
    expect(outside.status).toBe(404);
    expect(JSON.parse(outside.body)).toMatchObject({ success: false, errors: [{ code: 7000 }], result: null });
  });
});

describe('kubeplane sandbox serve: the Crusoe Cloud API through a signing client over HTTP', () => {
  // Crusoe checks X-Crusoe-Timestamp against its own clock, which for the sandbox is the served world's virtual clock.
  const provider = (secretKey: string = SANDBOX_CREDENTIALS.crusoeSecretKey) =>
    new CrusoeProvider({
      accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.crusoeAccessKeyId),
      secretKey: Redacted.of(secretKey),
      projectId: SANDBOX_CREDENTIALS.crusoeProjectId,
      // A real client signs with the machine's clock; the served sandbox checks timestamps against it.
      clock: systemClock,
      baseUrl: served.crusoe,
    });

  it('accepts requests signed for the served /v1 paths and their queries: CMK versions, an SSH key, a VM search', async () => {
    const crusoe = provider();
    const versions = await crusoe.managedKubernetes.versions('us-east1-a');
    expect(versions.status === 'done' && versions.value.cluster.length).toBeGreaterThan(0);
    const key = await crusoe.network.ensureSshKey({
      name: 'served-test-key',
      clusterId: 'served-test',
      region: 'us-east1-a',
      publicKey: SANDBOX_SSH_PUBLIC_KEY,
    });
    expect(key).toMatchObject({ status: 'done', value: { name: 'served-test-key' } });
    // The query carries escapes (`names=a%2Cb+c`): signed as sent, it must reach the emulator byte for byte.
    expect(await crusoe.client.listInstances({ names: ['served-test-none', 'served test'] })).toEqual([]);
  });

  it("answers a wrong secret and an unsigned request with 401 bad_credentials, and a path outside /v1 with Crusoe's 404", async () => {
    await expect(provider(Buffer.from('not the sandbox secret key').toString('base64url')).client.listInstances()).rejects.toMatchObject({
      kind: 'auth',
      details: { code: 'bad_credentials', status: 401 },
    });
    const unsigned = await curl([`${served.crusoe}/locations`]);
    expect(unsigned.status).toBe(401);
    expect(JSON.parse(unsigned.body)).toEqual({ code: 'bad_credentials', message: expect.any(String) as unknown, error_id: expect.any(String) as unknown });
    const outside = await curl([`${new URL(served.crusoe).origin}/v2/locations`]);
    expect(outside.status).toBe(404);
    expect(JSON.parse(outside.body)).toMatchObject({ code: 'not_found', error_id: expect.any(String) as unknown });
  });
});

describe("kubeplane sandbox serve: each cluster's API over HTTPS with its own PKI", () => {
  it("lists a cluster's nodes with the served kubeconfig, verifying the serving certificate against the cluster CA", async () => {
    const conn = await kubeconfigFor('hybrid');
    expect(conn.server).toBe(servedCluster('hybrid').url);
    expect(conn.tlsServerName).toBe('hybrid.example.com');
    const res = await kubeGet(conn, '/api/v1/nodes');
    expect(res.status).toBe(200);
    const nodes = (JSON.parse(res.body) as { items: Array<{ metadata: { name: string } }> }).items.map((n) => n.metadata.name);
    expect(nodes).toHaveLength(8);
    expect(nodes.every((n) => n.startsWith('hybrid-'))).toBe(true);
    // Discovery, which kubectl asks for first.
    const discovery = JSON.parse((await kubeGet(conn, '/api/v1')).body) as { resources: Array<{ name: string }> };
    expect(discovery.resources.map((r) => r.name)).toContain('nodes');
  });

  it('lists the nodes with kubectl and the served kubeconfig, TLS verification on', async () => {
    const kubectl = await requireTool('kubectl', 'kubernetes-client');
    const run = await runCli(['kubeconfig', 'hybrid', '--sandbox', '--served', '--state-dir', dir], { cwd: root });
    const file = join(dir, 'hybrid.kubeconfig');
    await writeFile(file, run.stdout, { mode: 0o600 });
    expect(run.stdout).not.toContain('insecure-skip-tls-verify');
    const nodes = await runTool(kubectl, ['--kubeconfig', file, 'get', 'nodes', '-o', 'name'], { PATH: process.env.PATH ?? '', HOME: dir });
    expect(nodes.stderr).toBe('');
    expect(nodes.code).toBe(0);
    const names = nodes.stdout.trim().split('\n');
    expect(names).toHaveLength(8);
    expect(names.every((n) => n.startsWith('node/hybrid-'))).toBe(true);
  });

  it('serves a CMK cluster to kubectl with the kubeconfig CMK handed out: its nodes, and the autoscaler limits kubeplane set', async () => {
    const kubectl = await requireTool('kubectl', 'kubernetes-client');
    const status = await runCli(['status', 'gpu-lab', '--sandbox', '--state-dir', dir, '--json'], { cwd: root });
    const id = (JSON.parse(status.stdout) as { projects: Array<{ clusters: Record<string, { id: string }> }> }).projects[0]?.clusters['gpu-lab']?.id ?? '';
    expect(id).toMatch(/^gpu-lab-/);
    // By the CMK cluster's name (the cluster id), as `serve` prints it.
    const run = await runCli(['kubeconfig', id, '--sandbox', '--served', '--state-dir', dir], { cwd: root });
    const file = join(dir, 'cmk.kubeconfig');
    await writeFile(file, run.stdout, { mode: 0o600 });
    const env = { PATH: process.env.PATH ?? '', HOME: dir };
    const nodes = await runTool(kubectl, ['--kubeconfig', file, 'get', 'nodes', '-o', 'name'], env);
    expect(nodes.code, nodes.stderr).toBe(0);
    expect(nodes.stdout.trim().split('\n')).toHaveLength(3);
    const args = await runTool(
      kubectl,
      ['--kubeconfig', file, '-n', 'crusoe-system', 'get', 'deploy', 'cluster-autoscaler', '-o', 'jsonpath={.spec.template.spec.containers[0].args}'],
      env,
    );
    expect(args.code, args.stderr).toBe(0);
    expect(args.stdout).toContain('--nodes=1:6:cpu');
    expect(args.stdout).toContain('--nodes=2:2:h100');
  });

  it('serves curl the same, with the cluster CA and the admin client certificate (an IP endpoint: minimal)', async () => {
    const curl = await requireTool('curl', 'curl');
    const conn = await kubeconfigFor('minimal');
    const c = servedCluster('minimal');
    const files = { ca: join(dir, 'ca.pem'), cert: join(dir, 'client.pem'), key: join(dir, 'client-key.pem') };
    await writeFile(files.ca, conn.caPem ?? '');
    await writeFile(files.cert, conn.clientCertificatePem ?? '');
    await writeFile(files.key, conn.clientKeyPem?.reveal() ?? '', { mode: 0o600 });
    const port = new URL(c.url).port;
    const run = await runTool(
      curl,
      [
        '-sS',
        '--fail',
        '--cacert',
        files.ca,
        '--cert',
        files.cert,
        '--key',
        files.key,
        '--connect-to',
        `${c.endpoint}:127.0.0.1:${port}`,
        `https://${c.endpoint}/api/v1/nodes`,
      ],
      { PATH: process.env.PATH ?? '' },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { items: unknown[] }).items).toHaveLength(3);
  });

  it("rejects a client certificate signed by another cluster's CA, and a client without one", async () => {
    const hybrid = await kubeconfigFor('hybrid');
    const minimal = await kubeconfigFor('minimal');
    await expect(kubeGet(hybrid, '/api/v1/nodes', { cert: minimal.clientCertificatePem ?? '', key: minimal.clientKeyPem?.reveal() ?? '' })).rejects.toThrow(
      /certificate|alert|socket hang up|ECONNRESET/i,
    );
    const curl = await requireTool('curl', 'curl');
    const c = servedCluster('hybrid');
    const caFile = join(dir, 'hybrid-ca.pem');
    await writeFile(caFile, hybrid.caPem ?? '');
    const anonymous = await runTool(
      curl,
      ['-sS', '--cacert', caFile, '--connect-to', `${c.endpoint}:127.0.0.1:${new URL(c.url).port}`, `https://${c.endpoint}/api/v1/nodes`],
      { PATH: process.env.PATH ?? '' },
    );
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stdout).not.toContain('NodeList');
  });

  it("has clients (Node's TLS and kubectl) reject a serving certificate that was tampered with, and one from another cluster", async () => {
    const conn = await kubeconfigFor('hybrid');
    const kubectl = await requireTool('kubectl', 'kubernetes-client');
    const servedKubeconfig = (await runCli(['kubeconfig', 'hybrid', '--sandbox', '--served', '--state-dir', dir], { cwd: root })).stdout;
    const saved = Sandbox.fromSnapshot(JSON.parse(await readFile(join(dir, 'sandbox', 'world.json'), 'utf8')) as Parameters<typeof Sandbox.fromSnapshot>[0]);
    const { clusters } = clusterTls(saved);
    const hybrid = clusters.find((c) => c.name === 'hybrid');
    const minimal = clusters.find((c) => c.name === 'minimal');
    if (!hybrid || !minimal) throw new Error('both clusters must have TLS material');
    // Flip one bit of the signature (the certificate's last bytes): same key, same names, no longer the CA's.
    const der = Buffer.from(new X509Certificate(hybrid.certPem).raw);
    der[der.length - 8] = (der[der.length - 8] ?? 0) ^ 0x01;
    const tampered = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
    for (const [what, cert, key] of [
      ['genuine', hybrid.certPem, hybrid.keyPem.reveal()],
      ['tampered', tampered, hybrid.keyPem.reveal()],
      ["minimal's", minimal.certPem, minimal.keyPem.reveal()],
    ] as const) {
      const impostor = createHttpsServer({ cert, key }, (_req, res) => res.end('{}'));
      await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
      try {
        const url = `https://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
        const get = kubeGet(conn, '/api/v1/nodes', { url });
        // The same client accepts the genuine certificate: what it rejects is the certificate, nothing else.
        if (what === 'genuine') await expect(get).resolves.toEqual({ status: 200, body: '{}' });
        else await expect(get, what).rejects.toThrow(what === 'tampered' ? /certificate signature failure/ : /unable to verify|self.signed|issuer/i);
        // kubectl, with the served kubeconfig pointed at the impostor (same CA, same server name).
        const file = join(dir, `impostor-${what.replace(/\W/g, '')}.kubeconfig`);
        await writeFile(file, servedKubeconfig.replace(/server: \S+/, `server: ${url}`), { mode: 0o600 });
        const k = await runTool(kubectl, ['--kubeconfig', file, 'get', '--raw', '/api/v1/nodes'], { PATH: process.env.PATH ?? '', HOME: dir });
        if (what === 'genuine') expect(k.code, k.stderr).toBe(0);
        else {
          expect(k.code, what).not.toBe(0);
          expect(k.stderr, what).toMatch(/x509|certificate/i);
        }
      } finally {
        impostor.closeAllConnections();
        await new Promise<void>((resolve) => impostor.close(() => resolve()));
      }
    }
  });
});

describe('kubeplane sandbox serve: one writer, and nothing lost on the way out', () => {
  it('stops another writer on the same state directory with a message naming the server', async () => {
    const run = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('kubeplane sandbox serve');
  });

  it('saves the world on SIGTERM with what the clients did, and releases the lock', async () => {
    expect(await stopServer('SIGTERM')).toBe(0);
    expect(world.output).toContain('[sandbox] stopped; the world is saved');
    expect(world.output).not.toContain(SANDBOX_CREDENTIALS.awsSecretAccessKey);
    expect(world.output).not.toContain(SANDBOX_CREDENTIALS.hetznerToken);
    expect(world.output).not.toContain(SANDBOX_CREDENTIALS.crusoeSecretKey);
    expect(world.output).not.toContain(SANDBOX_CREDENTIALS.cloudflareApiToken);
    const saved = Sandbox.fromSnapshot(JSON.parse(await readFile(join(dir, 'sandbox', 'world.json'), 'utf8')) as Parameters<typeof Sandbox.fromSnapshot>[0]);
    const tagged = [...saved.ec2.instances.values()].filter((i) => i.tags['team'] === 'served-test');
    expect(tagged).toHaveLength(2);
    expect(saved.crusoe.inventory()).toContainEqual(expect.objectContaining({ kind: 'ssh-key', name: 'served-test-key' }));
    expect(saved.cloudflare.inventory()).toContainEqual(expect.objectContaining({ kind: 'dns-record', name: `served.${SANDBOX_CLOUDFLARE_ZONE}` }));
    await expect(readFile(join(dir, 'sandbox', 'served.json'), 'utf8')).rejects.toThrow(/ENOENT/);
    const status = await runCli(['kubeconfig', 'hybrid', '--sandbox', '--served', '--state-dir', dir], { cwd: root });
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('no sandbox server runs');
  });
});
