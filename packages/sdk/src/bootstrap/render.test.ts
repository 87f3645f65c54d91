// The hybrid example (3 control planes on AWS, workers on AWS and Hetzner, 2 LB nodes) rendered and checked by
// the real tools that will consume it on the machines: cloud-init, shellcheck, openssl, wg, systemd, nginx.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, cpSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redacted } from '../redacted.js';
import type { BootstrapCluster } from './input.js';
import { generateEcKeyPair, type ClusterKeys, type PemKeyPair } from './pki.js';
import { seededRandomSource } from './random.js';
import { renderCluster, renderNode, type RenderContext, type RenderedCluster, type RenderedNode } from './render.js';
import { generateWireguardKeyPair, type WireguardKeyPair } from './wireguard-keys.js';

const here = dirname(fileURLToPath(import.meta.url));
const goldenDir = resolve(here, '../../../../test/golden/hybrid');
const NOW = new Date('2026-01-01T00:00:00Z');
const SEED = 'kubeplane-hybrid-golden';

interface RawPair {
  publicKeyPem: string;
  privateKeyPem: string;
}

function loadCluster(): BootstrapCluster {
  return JSON.parse(readFileSync(join(goldenDir, 'cluster.json'), 'utf8')) as BootstrapCluster;
}

function loadKeys(): ClusterKeys {
  const raw = JSON.parse(readFileSync(join(goldenDir, 'keys.json'), 'utf8')) as Record<string, RawPair | Record<string, RawPair>>;
  const pair = (p: RawPair): PemKeyPair => ({ publicKeyPem: p.publicKeyPem, privateKeyPem: Redacted.of(p.privateKeyPem) });
  const single = (name: string): PemKeyPair => pair(raw[name] as RawPair);
  const many = (name: string): Record<string, PemKeyPair> =>
    Object.fromEntries(Object.entries(raw[name] as Record<string, RawPair>).map(([k, v]) => [k, pair(v)]));
  return {
    clusterCa: single('clusterCa'),
    frontProxyCa: single('frontProxyCa'),
    etcdCa: single('etcdCa'),
    serviceAccount: single('serviceAccount'),
    admin: single('admin'),
    apiServer: many('apiServer'),
    meshReader: many('meshReader'),
    meshSigning: single('meshSigning'),
  };
}

function wireguardKeysFor(cluster: BootstrapCluster, seed: string): Record<string, WireguardKeyPair> {
  const random = seededRandomSource(seed);
  return Object.fromEntries(cluster.nodes.map((n) => [n.name, generateWireguardKeyPair(random)]));
}

function context(): RenderContext {
  const cluster = loadCluster();
  return { cluster, keys: loadKeys(), wireguardKeys: wireguardKeysFor(cluster, `${SEED}/wireguard`), random: seededRandomSource(SEED), now: NOW };
}

/** Fails loudly when a validator is missing: a check that cannot run must not pass. */
function requireTool(tool: string, apt: string): void {
  const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  if (found.status !== 0) {
    throw new Error(`validator '${tool}' is not installed; install the Debian package '${apt}' (.ci/run does)`);
  }
}

function run(cmd: string, args: string[], input?: string | Buffer): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(cmd, args, { input, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function fileOf(node: RenderedNode, path: string): string {
  const f = node.files.find((x) => x.path === path);
  if (!f) throw new Error(`node ${node.name} has no file ${path}`);
  return f.content.reveal();
}

function certificatesIn(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/g) ?? [];
}

function kubeconfigField(kubeconfig: string, field: string): string {
  const match = new RegExp(`${field}: (\\S+)`).exec(kubeconfig);
  if (!match?.[1]) throw new Error(`kubeconfig has no ${field}`);
  return Buffer.from(match[1], 'base64').toString('utf8');
}

let rendered: RenderedCluster;
let ctx: RenderContext;
let work: string;

beforeAll(async () => {
  ctx = context();
  rendered = await renderCluster(ctx);
  work = mkdtempSync(join(tmpdir(), 'kubeplane-bootstrap-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('the hybrid cluster rendered', () => {
  it('has one init control plane, two joining control planes, three workers and two load balancers', () => {
    expect(rendered.nodes.map((n) => `${n.name}:${n.mode}`)).toEqual([
      'aws-cp-1:init',
      'aws-cp-2:join-control-plane',
      'aws-cp-3:join-control-plane',
      'lb-1:loadbalancer',
      'lb-2:loadbalancer',
      'aws-worker-1:join',
      'htz-worker-1:join',
      'htz-worker-2:join',
    ]);
  });

  it('gives cloud-init a user-data that `cloud-init schema` accepts, for every node', () => {
    requireTool('cloud-init', 'cloud-init');
    for (const node of rendered.nodes) {
      const path = join(work, `${node.name}.user-data`);
      writeFileSync(path, node.cloudConfig.reveal());
      const result = run('cloud-init', ['schema', '--config-file', path]);
      expect(result.stderr, node.name).toBe('');
      expect(result.status, `${node.name}: ${result.stdout}`).toBe(0);
      expect(result.stdout).toContain('Valid cloud-config');
    }
  });

  it('packs every user-data within its provider limit (EC2 16 KB, Hetzner 32 KiB), gzip only where needed', () => {
    for (const node of rendered.nodes) {
      const limit = node.provider === 'aws' ? 16_384 : 32_768;
      expect(node.userData.limit, node.name).toBe(limit);
      expect(node.userData.size, node.name).toBeLessThanOrEqual(limit);
      const bytes = Buffer.from(node.userData.bytes.reveal());
      expect(bytes.length).toBe(node.userData.size);
      const text = node.userData.compressed ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
      expect(text, node.name).toBe(node.cloudConfig.reveal());
      expect(node.userData.compressed, node.name).toBe(node.userData.uncompressedSize > limit);
    }
    // Every EC2 node is over 16 KB plain since the signed mesh agent and gzipped (EC2 carries bytes); Hetzner's never.
    expect(rendered.nodes.filter((n) => n.userData.compressed).map((n) => n.name)).toEqual(['aws-cp-1', 'aws-cp-2', 'aws-cp-3', 'aws-worker-1']);
  });

  it('embeds only shell scripts that shellcheck passes', () => {
    requireTool('shellcheck', 'shellcheck');
    let checked = 0;
    for (const node of rendered.nodes) {
      for (const f of node.files.filter((x) => x.content.reveal().startsWith('#!'))) {
        const path = join(work, `${node.name}-${f.path.replaceAll('/', '_')}`);
        writeFileSync(path, f.content.reveal());
        const result = run('shellcheck', ['--severity=style', path]);
        expect(result.stdout + result.stderr, `${node.name}:${f.path}`).toBe('');
        expect(result.status).toBe(0);
        checked += 1;
      }
    }
    // The bootstrap and the mesh agent everywhere, and the certificate renewal on the three control planes.
    expect(checked).toBe(rendered.nodes.length * 2 + 3);
  });

  it('issues certificates that `openssl verify` accepts against their CA', () => {
    requireTool('openssl', 'openssl');
    const pub = rendered.pki.public;
    const caFile = join(work, 'ca.crt');
    writeFileSync(caFile, pub.clusterCaCertificate);
    for (const [name, pem] of [
      ['ca', pub.clusterCaCertificate],
      ['front-proxy-ca', pub.frontProxyCaCertificate],
      ['etcd-ca', pub.etcdCaCertificate],
    ] as const) {
      const path = join(work, `${name}.self.crt`);
      writeFileSync(path, pem);
      const result = run('openssl', ['verify', '-CAfile', path, path]);
      expect(result.stdout.trim(), name).toBe(`${path}: OK`);
    }
    const leaves: Array<[string, string]> = [['admin', pub.adminCertificate]];
    leaves.push(['admin-kubeconfig', kubeconfigField(rendered.pki.secret.adminKubeconfig.reveal(), 'client-certificate-data')]);
    for (const node of rendered.nodes) {
      if (node.role === 'control') leaves.push([`${node.name}-apiserver`, fileOf(node, '/etc/kubeplane/pki/apiserver.crt')]);
      if (node.role === 'loadbalancer') {
        leaves.push([`${node.name}-mesh-reader`, kubeconfigField(fileOf(node, '/etc/kubeplane/mesh-reader.conf'), 'client-certificate-data')]);
      }
    }
    expect(leaves).toHaveLength(1 + 1 + 3 + 2);
    for (const [name, pem] of leaves) {
      const path = join(work, `${name}.crt`);
      writeFileSync(path, pem);
      const result = run('openssl', ['verify', '-CAfile', caFile, path]);
      expect(result.stdout.trim(), `${name}: ${result.stderr}`).toBe(`${path}: OK`);
    }
  });

  it('gives every control plane an API serving certificate with the endpoint, overlay IPs and in-cluster names', () => {
    requireTool('openssl', 'openssl');
    for (const node of rendered.nodes.filter((n) => n.role === 'control')) {
      const path = join(work, `${node.name}-sans.crt`);
      writeFileSync(path, fileOf(node, '/etc/kubeplane/pki/apiserver.crt'));
      const text = run('openssl', ['x509', '-in', path, '-noout', '-text']).stdout;
      const sanLine = /X509v3 Subject Alternative Name:\s*\n\s*(.+)/.exec(text)?.[1] ?? '';
      const sans = sanLine.split(', ').sort();
      expect(sans).toEqual(
        [
          `DNS:${node.name}`,
          'DNS:kubernetes',
          'DNS:kubernetes.default',
          'DNS:kubernetes.default.svc',
          'DNS:kubernetes.default.svc.cluster.local',
          'DNS:api.hybrid.example.com',
          'IP Address:10.96.0.1',
          'IP Address:192.168.2.1',
          'IP Address:192.168.2.2',
          'IP Address:192.168.2.3',
        ].sort(),
      );
      expect(text).toMatch(/X509v3 Key Usage: critical\s*\n\s*Digital Signature, Key Encipherment/);
      expect(text).toMatch(/X509v3 Extended Key Usage:\s*\n\s*TLS Web Server Authentication\s*\n/);
      expect(text).toMatch(/CA:FALSE/);
    }
    const caPath = join(work, 'ca-usage.crt');
    writeFileSync(caPath, rendered.pki.public.clusterCaCertificate);
    const caText = run('openssl', ['x509', '-in', caPath, '-noout', '-text']).stdout;
    expect(caText).toMatch(/X509v3 Basic Constraints: critical\s*\n\s*CA:TRUE/);
    expect(caText).toMatch(/X509v3 Key Usage: critical\s*\n\s*Digital Signature, Key Encipherment, Certificate Sign/);
    const adminPath = join(work, 'admin-usage.crt');
    writeFileSync(adminPath, rendered.pki.public.adminCertificate);
    const adminText = run('openssl', ['x509', '-in', adminPath, '-noout', '-text', '-nameopt', 'RFC2253']).stdout;
    expect(adminText).toContain('Subject: O=kubeadm:cluster-admins,CN=kubeplane-admin');
    expect(adminText).toMatch(/X509v3 Extended Key Usage:\s*\n\s*TLS Web Client Authentication\s*\n/);
  });

  it('publishes the discovery hash openssl computes from the CA certificate, and joins pin it', () => {
    requireTool('openssl', 'openssl');
    const caPath = join(work, 'discovery.crt');
    writeFileSync(caPath, rendered.pki.public.clusterCaCertificate);
    const result = spawnSync('sh', ['-c', `openssl x509 -in '${caPath}' -pubkey -noout | openssl pkey -pubin -outform der | sha256sum`], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const hex = result.stdout.split(/\s+/)[0] ?? '';
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(rendered.pki.public.discoveryHash).toBe(`sha256:${hex}`);
    for (const node of rendered.nodes.filter((n) => n.mode === 'join' || n.mode === 'join-control-plane')) {
      expect(fileOf(node, '/etc/kubeplane/kubeadm.yaml'), node.name).toContain(`- sha256:${hex}`);
    }
  });

  it('puts in every peer config the public key `wg pubkey` derives from each node private key', () => {
    requireTool('wg', 'wireguard-tools');
    for (const node of rendered.nodes) {
      const conf = fileOf(node, '/etc/wireguard/wg0.conf');
      const privateKey = /PrivateKey = (\S+)/.exec(conf)?.[1] ?? '';
      const result = run('wg', ['pubkey'], `${privateKey}\n`);
      expect(result.status, result.stderr).toBe(0);
      const publicKey = result.stdout.trim();
      expect(publicKey).toBe(node.wireguardPublicKey);
      for (const other of rendered.nodes.filter((n) => n.name !== node.name)) {
        const peers = fileOf(other, '/etc/wireguard/wg0.conf');
        expect(peers, `${other.name} lists ${node.name}`).toContain(`# ${node.name}\nPublicKey = ${publicKey}\nAllowedIPs = `);
      }
    }
  });

  it('gives every peer whose endpoint is known a keepalive, so the side that knows speaks first and the pair handshakes at boot', () => {
    let known = 0;
    for (const node of rendered.nodes) {
      const blocks = fileOf(node, '/etc/wireguard/wg0.conf').split('[Peer]').slice(1);
      for (const block of blocks) {
        if (block.includes('Endpoint = ')) {
          known += 1;
          expect(block, node.name).toContain('PersistentKeepalive = 25');
        }
      }
    }
    expect(known).toBeGreaterThan(0);
    // Between two nodes not behind NAT, too (before, only NAT'ed pairs had one): htz-worker-1 knows lb-1's endpoint.
    expect(fileOf(rendered.nodes.find((n) => n.name === 'htz-worker-1')!, '/etc/wireguard/wg0.conf')).toMatch(
      /# lb-1\nPublicKey = \S+\nAllowedIPs = 192\.168\.2\.11\/32\nEndpoint = 49\.12\.0\.21:51820\nPersistentKeepalive = 25\n/,
    );
  });

  it('keeps every WireGuard private key on its own node only', () => {
    for (const node of rendered.nodes) {
      const privateKey = ctx.wireguardKeys[node.name]?.privateKey.reveal() ?? '';
      expect(privateKey).toHaveLength(44);
      for (const other of rendered.nodes) {
        expect(other.cloudConfig.reveal().includes(privateKey), `${node.name}'s key on ${other.name}`).toBe(other.name === node.name);
      }
      expect(rendered.meshManifest).not.toContain(privateKey);
    }
  });

  it('puts no CA or service-account private key on a worker or a load balancer', () => {
    const secret = rendered.pki.secret;
    // A line from the middle of each PEM is unique to that key; kubeconfigs embed PEMs base64-encoded, so decode those too.
    const guarded = [secret.clusterCaKey, secret.frontProxyCaKey, secret.etcdCaKey, secret.serviceAccountKey].map((k) => k.reveal().split('\n')[2] ?? '');
    for (const line of guarded) expect(line).toMatch(/^[A-Za-z0-9+/]{64}$/);
    for (const node of rendered.nodes) {
      const plain = node.cloudConfig.reveal();
      const embedded = [...plain.matchAll(/-data: (\S+)/g)].map((m) => Buffer.from(m[1] ?? '', 'base64').toString('utf8'));
      const text = [plain, ...embedded].join('\n');
      const onNode = guarded.filter((line) => text.includes(line)).length;
      expect(onNode, node.name).toBe(node.role === 'control' ? 4 : 0);
      if (node.role === 'compute') expect(text).not.toContain('PRIVATE KEY');
    }
  });

  it('writes systemd units that `systemd-analyze verify` accepts', () => {
    requireTool('systemd-analyze', 'systemd');
    for (const node of rendered.nodes) {
      const root = join(work, `root-${node.name}`);
      mkdirSync(join(root, 'usr/lib/systemd'), { recursive: true });
      // The units reference system targets; verify needs them in the root it checks.
      cpSync('/usr/lib/systemd/system', join(root, 'usr/lib/systemd/system'), { recursive: true });
      const units: string[] = [];
      for (const f of node.files) {
        const target = join(root, f.path);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, f.content.reveal(), { mode: Number.parseInt(f.permissions, 8) });
        if (f.path.startsWith('/etc/systemd/system/')) units.push(f.path);
      }
      const expected = ['/etc/systemd/system/kubeplane-mesh-sync.service', '/etc/systemd/system/kubeplane-mesh-sync.timer'];
      if (node.role === 'control') expected.push('/etc/systemd/system/kubeplane-cert-renew.service', '/etc/systemd/system/kubeplane-cert-renew.timer');
      expect(units.sort(), node.name).toEqual(expected.sort());
      const result = run('systemd-analyze', ['verify', `--root=${root}`, ...units]);
      expect(result.stderr, node.name).toBe('');
      expect(result.status, node.name).toBe(0);
    }
  });

  it('configures load balancers with an nginx stream config that `nginx -t` accepts', () => {
    requireTool('nginx', 'nginx');
    if (!existsSync('/etc/nginx/modules-enabled')) {
      throw new Error("nginx's stream module is not enabled: install the Debian package 'libnginx-mod-stream'");
    }
    const lbs = rendered.nodes.filter((n) => n.role === 'loadbalancer');
    expect(lbs).toHaveLength(2);
    for (const node of lbs) {
      const path = join(work, `${node.name}-nginx.conf`);
      writeFileSync(path, fileOf(node, '/etc/kubeplane/nginx.conf'));
      const result = run('nginx', ['-t', '-c', path, '-e', join(work, 'nginx-error.log'), '-g', `pid ${join(work, 'nginx.pid')};`]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toContain('test is successful');
    }
  });

  it('renders byte-for-byte the same user-data and PKI from the same keys and seed', async () => {
    const again = await renderCluster(context());
    expect(again.nodes.map((n) => Buffer.from(n.userData.bytes.reveal()).toString('base64'))).toEqual(
      rendered.nodes.map((n) => Buffer.from(n.userData.bytes.reveal()).toString('base64')),
    );
    expect(again.pki.public).toEqual(rendered.pki.public);
    expect(again.pki.secret.bootstrapToken.reveal()).toBe(rendered.pki.secret.bootstrapToken.reveal());
    const other = await renderCluster({ ...context(), random: seededRandomSource(`${SEED}/other`) });
    expect(other.pki.secret.bootstrapToken.reveal()).not.toBe(rendered.pki.secret.bootstrapToken.reveal());
  });

  it('matches the reviewed golden files (UPDATE_GOLDEN=1 rewrites them)', () => {
    const summary = rendered.nodes.map((n) => ({
      name: n.name,
      mode: n.mode,
      provider: n.provider,
      userDataBytes: n.userData.size,
      uncompressedBytes: n.userData.uncompressedSize,
      compressed: n.userData.compressed,
      limit: n.userData.limit,
      deferredLabels: n.deferredLabels,
    }));
    const expected: Record<string, string> = {
      'summary.json': `${JSON.stringify({ discoveryHash: rendered.pki.public.discoveryHash, nodes: summary }, null, 2)}\n`,
      'mesh.yaml': rendered.meshManifest,
      // Carried gzipped in user-data: reviewed here as text.
      'mesh-sync.sh': fileOf(rendered.nodes[0]!, '/usr/local/sbin/kubeplane-mesh-sync'),
    };
    for (const node of rendered.nodes) expected[`${node.name}/user-data.yaml`] = node.cloudConfig.reveal();
    for (const [path, content] of Object.entries(expected)) {
      const target = join(goldenDir, path);
      if (process.env['UPDATE_GOLDEN'] === '1') {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, content);
      }
      expect(existsSync(target), `golden file ${path} is missing; run with UPDATE_GOLDEN=1 and review it`).toBe(true);
      expect(content, path).toBe(readFileSync(target, 'utf8'));
    }
  });
});

describe('a control-plane node added later', () => {
  it('gets a serving certificate from the same CA whose SANs still include the API endpoint', async () => {
    requireTool('openssl', 'openssl');
    const base = context();
    const first = await renderCluster(base);
    const cluster: BootstrapCluster = {
      ...base.cluster,
      nodes: [...base.cluster.nodes, { ...base.cluster.nodes[0]!, name: 'aws-cp-4', overlayIp: '192.168.2.4', publicEndpoint: '3.120.10.14:51820' }],
    };
    const keys: ClusterKeys = { ...base.keys, apiServer: { ...base.keys.apiServer, 'aws-cp-4': await generateEcKeyPair() } };
    const wireguardKeys = { ...base.wireguardKeys, 'aws-cp-4': generateWireguardKeyPair(seededRandomSource('cp-4')) };
    const added = await renderNode({ ...base, cluster, keys, wireguardKeys, pki: first.pki, node: 'aws-cp-4', random: seededRandomSource('later') });
    expect(added.mode).toBe('join-control-plane');
    const certPath = join(work, 'cp-4.crt');
    const caPath = join(work, 'cp-4-ca.crt');
    writeFileSync(certPath, fileOf(added, '/etc/kubeplane/pki/apiserver.crt'));
    writeFileSync(caPath, first.pki.public.clusterCaCertificate);
    expect(run('openssl', ['verify', '-CAfile', caPath, certPath]).stdout.trim()).toBe(`${certPath}: OK`);
    const text = run('openssl', ['x509', '-in', certPath, '-noout', '-ext', 'subjectAltName']).stdout;
    expect(text).toContain('DNS:api.hybrid.example.com');
    expect(text).toContain('IP Address:192.168.2.4');
    expect(certificatesIn(fileOf(added, '/etc/kubeplane/pki/ca.crt'))).toEqual([first.pki.public.clusterCaCertificate]);
    expect(fileOf(added, '/etc/kubeplane/kubeadm.yaml')).toContain('advertiseAddress: 192.168.2.4');
  });
});

describe('a cluster on Kubernetes 1.30 behind a reserved IP', () => {
  it('renders kubeadm v1beta3 configs, a serving certificate for the IP, and user-data cloud-init accepts', async () => {
    requireTool('cloud-init', 'cloud-init');
    const base = context();
    const cluster: BootstrapCluster = {
      ...base.cluster,
      kubernetesVersion: { major: 1, minor: 30, patch: 8 },
      apiEndpoint: { host: '3.120.10.100', port: 6443, kind: 'reserved-ip' },
    };
    const result = await renderCluster({ ...base, cluster });
    const init = result.nodes[0]!;
    expect(init.mode).toBe('init');
    const kubeadm = fileOf(init, '/etc/kubeplane/kubeadm.yaml');
    expect(kubeadm).toContain('apiVersion: kubeadm.k8s.io/v1beta3');
    expect(kubeadm).toContain('controlPlaneEndpoint: 3.120.10.100:6443');
    expect(kubeadm).toContain('node-ip: 192.168.2.1');
    expect(fileOf(init, '/usr/local/sbin/kubeplane-bootstrap')).toContain("readonly K8S_REPO='https://pkgs.k8s.io/core:/stable:/v1.30/deb/'");
    const certPath = join(work, 'reserved-ip.crt');
    writeFileSync(certPath, fileOf(init, '/etc/kubeplane/pki/apiserver.crt'));
    expect(run('openssl', ['x509', '-in', certPath, '-noout', '-ext', 'subjectAltName']).stdout).toContain('IP Address:3.120.10.100');
    const path = join(work, 'v1beta3.user-data');
    writeFileSync(path, init.cloudConfig.reveal());
    expect(run('cloud-init', ['schema', '--config-file', path]).status).toBe(0);
  });
});

/** The text of one bash function of a rendered script, to run it alone. */
function shellFunction(script: string, name: string): string {
  const match = new RegExp(`^${name}\\(\\) \\{\\n[\\s\\S]*?\\n\\}\\n`, 'm').exec(script);
  if (!match) throw new Error(`the script has no function ${name}`);
  return match[0];
}

describe('what each node does at boot', () => {
  it("mounts a storage disk only where the node's pool has one, and finds it by its cloud's id: not the root disk, not instance storage", () => {
    const withDisk = rendered.nodes.filter((n) => fileOf(n, '/usr/local/sbin/kubeplane-bootstrap').includes('\n  mount_storage_disk\n'));
    expect(withDisk.map((n) => n.name)).toEqual(['aws-worker-1', 'htz-worker-1']);
    const script = fileOf(rendered.nodes.find((n) => n.name === 'aws-worker-1')!, '/usr/local/sbin/kubeplane-bootstrap');
    expect(script).toContain("readonly STORAGE_DISK_MOUNT='/opt/claudie/data'");
    // An EC2 Nitro machine: root on nvme0n1, an instance-store NVMe disk, and the EBS storage volume.
    const bin = join(work, 'disk-bin');
    mkdirSync(bin, { recursive: true });
    const stub = (name: string, body: string) => writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
    stub('findmnt', 'echo /dev/nvme0n1p1');
    stub(
      'lsblk',
      'case "$*" in *PKNAME*) echo nvme0n1 ;; *NAME,TYPE*) printf "/dev/nvme0n1 disk\\n/dev/nvme1n1 disk\\n/dev/nvme2n1 disk\\n/dev/nvme2n1p1 part\\n" ;; esac',
    );
    const links = (disks: Record<string, string>) =>
      stub(
        'udevadm',
        `case "$*" in ${Object.entries(disks)
          .map(([dev, l]) => `*--name=${dev}) echo "${l}" ;;`)
          .join(' ')} esac`,
      );
    links({
      '/dev/nvme0n1': 'disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0aaaaaaaaaaaaaaaa disk/by-path/pci-0000:00:04.0-nvme-1',
      '/dev/nvme1n1': 'disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1 disk/by-path/pci-0000:00:1f.0-nvme-1',
      '/dev/nvme2n1': 'disk/by-id/nvme-nvme.1d0f-766f6c30 disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0bbbbbbbbbbbbbbbb',
    });
    const find = () => run('bash', ['-c', `PATH=${bin}:$PATH\n${shellFunction(script, 'storage_disk_device')}storage_disk_device`]);
    expect(find()).toMatchObject({ status: 0, stdout: '/dev/nvme2n1\n' });
    // Before the volume is attached, only the root and instance storage: nothing is taken.
    links({
      '/dev/nvme0n1': 'disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0aaaaaaaaaaaaaaaa',
      '/dev/nvme1n1': 'disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_AWS1',
    });
    expect(find()).toMatchObject({ status: 1, stdout: '' });
  });

  it('leaves /etc/kubernetes/pki/ca.crt on a worker to kubeadm discovery (join preflight refuses an existing one)', () => {
    // kubeadm's RunJoinNodeChecks adds FileAvailableCheck{CACertPath} for a node that is not a control plane.
    for (const node of rendered.nodes.filter((n) => n.mode === 'join')) {
      const script = fileOf(node, '/usr/local/sbin/kubeplane-bootstrap');
      expect(script, node.name).not.toContain('/etc/kubernetes/pki');
      expect(script, node.name).toContain('kubeadm join --config /etc/kubeplane/kubeadm.yaml');
      expect(
        node.files.map((f) => f.path).filter((p) => p.includes('/pki/')),
        node.name,
      ).toEqual([]);
    }
    for (const node of rendered.nodes.filter((n) => n.role === 'control')) {
      expect(fileOf(node, '/usr/local/sbin/kubeplane-bootstrap'), node.name).toContain('install -m 0600 "/etc/kubeplane/pki/$f" "/etc/kubernetes/pki/$f"');
    }
  });

  it("points containerd at the pause image kubeadm of the cluster's minor uses", () => {
    const defaults = '[plugins."io.containerd.grpc.v1.cri"]\n    sandbox_image = "registry.k8s.io/pause:3.8"\n    selinux_category_range = 1024\n';
    for (const node of rendered.nodes.filter((n) => n.role !== 'loadbalancer')) {
      const script = fileOf(node, '/usr/local/sbin/kubeplane-bootstrap');
      expect(script, node.name).toContain("readonly PAUSE_IMAGE='registry.k8s.io/pause:3.10'");
      // Run the script's own sed on containerd 1.7's default CRI section.
      const sed = /^\s*(sed -i -E "s\|\^\(\[\[:space:\]\]\*\)sandbox_image.*)$/m.exec(script)?.[1] ?? '';
      expect(sed, node.name).not.toBe('');
      const path = join(work, `${node.name}-config.toml`);
      writeFileSync(path, defaults);
      const result = run('bash', ['-c', `PAUSE_IMAGE='registry.k8s.io/pause:3.10'; ${sed.replace('/etc/containerd/config.toml', path)}`]);
      expect(result.status, result.stderr).toBe(0);
      expect(readFileSync(path, 'utf8')).toBe(defaults.replace('pause:3.8', 'pause:3.10'));
    }
  });

  it('installs the pkgs.k8s.io key only when it is the one pinned key, and lets a mirror pin its own', async () => {
    requireTool('gpg', 'gpg');
    const init = rendered.nodes[0]!;
    const script = fileOf(init, '/usr/local/sbin/kubeplane-bootstrap');
    expect(script).toContain("readonly K8S_KEY_FINGERPRINT='DE15B14486CD377B9E876E1A234654DA9A296436'");
    expect(script.indexOf('verify_release_key /tmp/kubernetes-release.key')).toBeLessThan(script.indexOf('--dearmor'));
    const verify = shellFunction(script, 'verify_release_key');
    const home = mkdtempSync(join(tmpdir(), 'kubeplane-gpg-'));
    const gpg = (...args: string[]) => run('gpg', ['--homedir', home, '--batch', '--pinentry-mode', 'loopback', '--passphrase', '', ...args]);
    const fingerprints: string[] = [];
    for (const who of ['release@example.com', 'other@example.com']) {
      expect(gpg('--quick-gen-key', who, 'ed25519', 'sign', '1d').status).toBe(0);
      const listed = gpg('--with-colons', '--list-keys', who).stdout;
      fingerprints.push(/^fpr:+([0-9A-F]{40}):/m.exec(listed)?.[1] ?? '');
    }
    const [good = '', other = ''] = fingerprints;
    writeFileSync(join(work, 'one.key'), gpg('--armor', '--export', good).stdout);
    writeFileSync(join(work, 'two.key'), gpg('--armor', '--export', good, other).stdout);
    const check = (file: string, pinned: string) =>
      run('bash', ['-c', `set -euo pipefail\n${verify}\nverify_release_key '${join(work, file)}' '${pinned}'\necho accepted`]);
    expect(check('one.key', good).stdout).toContain('accepted');
    const wrong = check('one.key', other);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toContain(`expected only ${other}, found: ${good}`);
    expect(check('two.key', good).status).not.toBe(0);
    rmSync(home, { recursive: true, force: true });
    const mirrored = await renderNode({ ...ctx, pki: rendered.pki, node: 'htz-worker-1', versions: { kubernetesReleaseKeyFingerprint: other } });
    expect(fileOf(mirrored, '/usr/local/sbin/kubeplane-bootstrap')).toContain(`readonly K8S_KEY_FINGERPRINT='${other}'`);
  });

  it("runs Cilium's VXLAN at the WireGuard MTU and denies every pod the metadata address at init", () => {
    const init = rendered.nodes.find((n) => n.mode === 'init')!;
    const script = fileOf(init, '/usr/local/sbin/kubeplane-bootstrap');
    expect(script).toContain("readonly OVERLAY_MTU='1420'");
    expect(script).toContain('--set MTU="${OVERLAY_MTU}"');
    expect(script).toMatch(
      /install_cilium\n\s+log "denying pods the instance metadata address"\n\s+retry 30 10 kubectl apply -f \/etc\/kubeplane\/metadata-deny\.yaml\n/,
    );
    const policy = fileOf(init, '/etc/kubeplane/metadata-deny.yaml');
    expect(policy).toBe(
      [
        'apiVersion: cilium.io/v2',
        'kind: CiliumClusterwideNetworkPolicy',
        'metadata:',
        '  name: kubeplane-deny-instance-metadata',
        'spec:',
        '  description: "kubeplane: pods may not reach the instance metadata service (it serves user-data holding node secrets)"',
        '  endpointSelector: {}',
        '  enableDefaultDeny:',
        '    egress: false',
        '    ingress: false',
        '  egressDeny:',
        '    - toCIDR:',
        '        - 169.254.169.254/32',
        '',
      ].join('\n'),
    );
    for (const node of rendered.nodes.filter((n) => n.mode !== 'init')) {
      expect(
        node.files.some((f) => f.path === '/etc/kubeplane/metadata-deny.yaml'),
        node.name,
      ).toBe(false);
    }
  });

  it('renews on control planes, daily, the kubeadm certificates that expire within 60 days', () => {
    requireTool('openssl', 'openssl');
    for (const node of rendered.nodes) {
      const script = fileOf(node, '/usr/local/sbin/kubeplane-bootstrap');
      expect(script.includes('systemctl enable --now kubeplane-cert-renew.timer'), node.name).toBe(node.role === 'control');
    }
    const cp = rendered.nodes.find((n) => n.mode === 'join-control-plane')!;
    const renew = fileOf(cp, '/usr/local/sbin/kubeplane-cert-renew');
    expect(renew).toContain('apiserver /etc/kubernetes/pki/apiserver.crt\n');
    expect(renew).toContain('kubeadm certs renew "$name"');
    expect(fileOf(cp, '/etc/systemd/system/kubeplane-cert-renew.timer')).toContain('OnCalendar=daily');
    const expiresSoon = shellFunction(renew, 'expires_soon');
    const cert = (days: number): string => {
      const key = join(work, `renew-${days}.key`);
      const crt = join(work, `renew-${days}.crt`);
      const made = run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        key,
        '-out',
        crt,
        '-days',
        String(days),
        '-subj',
        '/CN=t',
      ]);
      expect(made.status, made.stderr).toBe(0);
      return crt;
    };
    const soon = cert(30);
    const later = cert(300);
    const kubeconfig = join(work, 'renew-admin.conf');
    writeFileSync(kubeconfig, `users:\n- name: a\n  user:\n    client-certificate-data: ${Buffer.from(readFileSync(soon)).toString('base64')}\n`);
    const probe = (file: string) =>
      run('bash', [
        '-c',
        `set -euo pipefail\nreadonly WINDOW=$((60 * 86400))\n${expiresSoon}\nif expires_soon '${file}'; then echo renew; else echo keep; fi`,
      ]).stdout.trim();
    expect(probe(soon)).toBe('renew');
    expect(probe(later)).toBe('keep');
    expect(probe(kubeconfig)).toBe('renew');
  });
});

describe('a control plane on Hetzner, whose API takes user-data only as text', () => {
  it('gets text user-data within 32 KiB, its larger files gzip+base64 inside write_files, which cloud-init accepts', async () => {
    requireTool('cloud-init', 'cloud-init');
    const base = context();
    const cluster: BootstrapCluster = {
      ...base.cluster,
      nodes: base.cluster.nodes.map((n) => (n.role === 'control' ? { ...n, provider: 'hetzner', behindNat: false } : n)),
    };
    const result = await renderCluster({ ...base, cluster });
    const init = result.nodes.find((n) => n.mode === 'init')!;
    expect(init.provider).toBe('hetzner');
    expect(init.userData.encoding).toBe('gzip-files');
    expect(init.userData.compressed).toBe(false);
    expect(init.userData.size).toBeLessThanOrEqual(32_768);
    expect(init.userData.uncompressedSize).toBeGreaterThan(32_768);
    const text = Buffer.from(init.userData.bytes.reveal()).toString('utf8');
    expect(text).toBe(init.cloudConfig.reveal());
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    const path = join(work, 'hetzner-cp.user-data');
    writeFileSync(path, text);
    const schema = run('cloud-init', ['schema', '--config-file', path]);
    expect(schema.status, schema.stdout + schema.stderr).toBe(0);
    // What cloud-init writes is byte for byte what the node was rendered with.
    const doc = (await import('yaml')).parse(text) as { write_files: Array<{ path: string; encoding?: string; content: string }> };
    for (const f of init.files) {
      const written = doc.write_files.find((w) => w.path === f.path)!;
      const content = written.encoding === 'gz+b64' ? gunzipSync(Buffer.from(written.content, 'base64')).toString('utf8') : written.content;
      expect(content, f.path).toBe(f.content.reveal());
    }
  });
});
