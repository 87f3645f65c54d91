// installationProxy from the manifest to the files on a node, as Claudie documents it: mode on, off and default (a
// proxy only with a Hetzner node), its NO_PROXY list, and the apt, containerd, kubelet and environment files written
// before the bootstrap script's first download; checked by cloud-init and shellcheck.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { validateManifestText } from '../manifest/validate.js';
import type { Manifest } from '../manifest/schema.js';
import { buildDesiredState } from '../model/desired-state.js';
import { Redacted } from '../redacted.js';
import { bootstrapClusterFromSpec } from './from-spec.js';
import type { BootstrapCluster } from './input.js';
import type { ClusterKeys, PemKeyPair } from './pki.js';
import { seededRandomSource } from './random.js';
import { renderCluster, type RenderedNode } from './render.js';
import { generateWireguardKeyPair } from './wireguard-keys.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../../../..');
const example = (name: string) => readFileSync(join(repo, 'examples', name), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'kubeplane-proxy-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const APT = '/etc/apt/apt.conf.d/90kubeplane-proxy.conf';
const ENV = '/etc/kubeplane/proxy.env';
const CONTAINERD = '/etc/systemd/system/containerd.service.d/90-kubeplane-proxy.conf';
const KUBELET = '/etc/systemd/system/kubelet.service.d/90-kubeplane-proxy.conf';

function manifestOf(text: string): Manifest {
  const r = validateManifestText(text);
  expect(r.errors).toEqual([]);
  return r.manifests[0] as Manifest;
}

/** A cluster's bootstrap input, with `proxy` (YAML flow mapping) as its installationProxy. */
function clusterOf(text: string, proxy: string | undefined, network: string, apiHost?: string): BootstrapCluster {
  const withProxy = proxy ? text.replace(`      network: ${network}\n`, `      network: ${network}\n      installationProxy: ${proxy}\n`) : text;
  const [spec] = buildDesiredState(manifestOf(withProxy)).clusters;
  if (!spec) throw new Error('no cluster');
  return bootstrapClusterFromSpec(spec, apiHost ? { apiHost } : {});
}

const hetzner = (proxy?: string) => clusterOf(example('minimal.yaml'), proxy, '10.0.0.0/24', '198.51.100.7');
const hybrid = (proxy?: string) => clusterOf(example('hybrid-aws-hetzner.yaml'), proxy, '192.168.2.0/24');
/** The hybrid example with AWS workers only: its load balancers stay on Hetzner, but no Kubernetes node is. */
const awsOnly = (proxy?: string) =>
  clusterOf(
    example('hybrid-aws-hetzner.yaml')
      .replace(/ {4}- name: htz-worker\n(?: {6}.*\n| {8}.*\n)*/, '')
      .replace('compute: [aws-worker, htz-worker]', 'compute: [aws-worker]')
      .replace('targetPools: [aws-worker, htz-worker]', 'targetPools: [aws-worker]'),
    proxy,
    '192.168.2.0/24',
  );

describe('whether the nodes install through a proxy', () => {
  it('not without installationProxy, nor with mode off', () => {
    expect(hetzner().installationProxy).toBeUndefined();
    expect(hetzner('{ mode: "off" }').installationProxy).toBeUndefined();
    expect(hybrid('{ mode: "off", endpoint: "http://proxy.example.com:3128" }').installationProxy).toBeUndefined();
  });

  it("with mode on, through Claudie's proxy unless an endpoint is given, with Hetzner nodes or without", () => {
    expect(awsOnly('{ mode: "on" }').installationProxy?.endpoint).toBe('http://proxy.claudie.io:8880');
    expect(hetzner('{ mode: "on", endpoint: "http://proxy.example.com:3128" }').installationProxy?.endpoint).toBe('http://proxy.example.com:3128');
  });

  it('with mode default, only when a Kubernetes node of the cluster is on Hetzner', () => {
    expect(hetzner('{ mode: default }').installationProxy?.endpoint).toBe('http://proxy.claudie.io:8880');
    expect(hybrid('{ mode: default }').installationProxy?.endpoint).toBe('http://proxy.claudie.io:8880');
    expect(awsOnly('{ mode: default }').installationProxy).toBeUndefined();
  });

  it("lists in NO_PROXY Claudie's defaults with the cluster's own ranges, its networks, the API names, the metadata address and the user's", () => {
    const proxy = hybrid('{ mode: on, noProxy: ".corp.example.com,10.50.0.0/16" }').installationProxy;
    const spec = buildDesiredState(manifestOf(example('hybrid-aws-hetzner.yaml'))).clusters[0];
    expect(proxy?.noProxy).toEqual([
      '127.0.0.1/8',
      'localhost',
      'cluster.local',
      '10.244.0.0/16',
      '10.96.0.0/12',
      '192.168.2.0/24',
      ...(spec?.networks.map((n) => n.cidr) ?? []),
      'hybrid.example.com',
      '169.254.169.254',
      '.corp.example.com',
      '10.50.0.0/16',
    ]);
    expect(spec?.networks.length).toBeGreaterThan(0);
    // A reserved-IP endpoint: its address.
    expect(hetzner('{ mode: on }').installationProxy?.noProxy).toContain('198.51.100.7');
  });
});

describe('installationProxy in validation', () => {
  const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('warns that a managed control plane does not use it, with its path and line', () => {
    const text = example('crusoe-cmk.yaml').replace('      controlPlane: managed\n', '      controlPlane: managed\n      installationProxy: { mode: "on" }\n');
    const r = validateManifestText(text, { file: 'cmk.yaml' });
    expect(r.ok).toBe(true);
    expect(r.warnings).toContainEqual(
      expect.objectContaining({ path: 'kubernetes.clusters[0].installationProxy', line: lineOf(text, 'installationProxy'), file: 'cmk.yaml' }),
    );
    expect(r.warnings.find((w) => w.path.endsWith('installationProxy'))?.message).toContain('not used on a managed control plane');
  });

  it('refuses a noProxy entry or an endpoint that would break the files it is written into', () => {
    const text = example('minimal.yaml').replace(
      '      network: 10.0.0.0/24\n',
      '      network: 10.0.0.0/24\n      installationProxy: { mode: "on", endpoint: "http://proxy.example.com:3128/$x", noProxy: "a.example.com,b c" }\n',
    );
    const r = validateManifestText(text);
    expect(r.errors.map((e) => e.path)).toEqual(['kubernetes.clusters[0].installationProxy.endpoint', 'kubernetes.clusters[0].installationProxy.noProxy']);
    expect(r.errors[0]?.message).toContain('"http://proxy.example.com:3128/$x" is not a URL');
    expect(r.errors[1]?.message).toContain('"b c" is not a host, domain, IP address or CIDR');
  });
});

function loadKeys(): ClusterKeys {
  const raw = JSON.parse(readFileSync(join(repo, 'test/golden/hybrid/keys.json'), 'utf8')) as Record<
    string,
    { publicKeyPem: string; privateKeyPem: string } | Record<string, { publicKeyPem: string; privateKeyPem: string }>
  >;
  const pair = (p: { publicKeyPem: string; privateKeyPem: string }): PemKeyPair => ({
    publicKeyPem: p.publicKeyPem,
    privateKeyPem: Redacted.of(p.privateKeyPem),
  });
  const single = (name: string) => pair(raw[name] as { publicKeyPem: string; privateKeyPem: string });
  const many = (name: string) =>
    Object.fromEntries(Object.entries(raw[name] as Record<string, { publicKeyPem: string; privateKeyPem: string }>).map(([k, v]) => [k, pair(v)]));
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

/** The reviewed hybrid cluster (test/golden/hybrid), rendered with `proxy` as its installation proxy. */
async function rendered(proxy: BootstrapCluster['installationProxy']): Promise<RenderedNode[]> {
  const golden = JSON.parse(readFileSync(join(repo, 'test/golden/hybrid/cluster.json'), 'utf8')) as BootstrapCluster;
  const cluster = { ...golden, ...(proxy ? { installationProxy: proxy } : {}) };
  const random = seededRandomSource('proxy/wireguard');
  const wireguardKeys = Object.fromEntries(cluster.nodes.map((n) => [n.name, generateWireguardKeyPair(random)]));
  return (await renderCluster({ cluster, keys: loadKeys(), wireguardKeys, random: seededRandomSource('proxy'), now: new Date('2026-01-01T00:00:00Z') })).nodes;
}

const fileOf = (node: RenderedNode | undefined, path: string) => node?.files.find((f) => f.path === path)?.content.reveal();

describe('the files a node gets for the proxy', () => {
  const proxy = { endpoint: 'http://proxy.example.com:3128', noProxy: ['127.0.0.1/8', 'localhost', '10.96.0.0/12', '.corp.example.com'] };
  const noProxy = '127.0.0.1/8,localhost,10.96.0.0/12,.corp.example.com';

  it('gives apt its proxy, containerd and the kubelet the variables in both cases, and the environment file, first', async () => {
    const nodes = await rendered(proxy);
    const worker = nodes.find((n) => n.mode === 'join');
    expect(worker?.files.slice(0, 4).map((f) => f.path)).toEqual([ENV, APT, CONTAINERD, KUBELET]);
    expect(fileOf(worker, APT)).toBe('Acquire::http::Proxy "http://proxy.example.com:3128";\nAcquire::https::Proxy "http://proxy.example.com:3128";\n');
    for (const unit of [CONTAINERD, KUBELET]) {
      expect(fileOf(worker, unit)).toBe(
        '[Service]\n' +
          'Environment="HTTP_PROXY=http://proxy.example.com:3128"\n' +
          'Environment="HTTPS_PROXY=http://proxy.example.com:3128"\n' +
          `Environment="NO_PROXY=${noProxy}"\n` +
          'Environment="http_proxy=http://proxy.example.com:3128"\n' +
          'Environment="https_proxy=http://proxy.example.com:3128"\n' +
          `Environment="no_proxy=${noProxy}"\n`,
      );
    }
    expect(fileOf(worker, ENV)).toBe(
      'HTTP_PROXY="http://proxy.example.com:3128"\nHTTPS_PROXY="http://proxy.example.com:3128"\n' +
        `NO_PROXY="${noProxy}"\nhttp_proxy="http://proxy.example.com:3128"\nhttps_proxy="http://proxy.example.com:3128"\nno_proxy="${noProxy}"\n`,
    );
    // A load balancer installs nginx through apt: the proxy, but no containerd or kubelet drop-in.
    const lb = nodes.find((n) => n.mode === 'loadbalancer');
    expect(lb?.files.slice(0, 2).map((f) => f.path)).toEqual([ENV, APT]);
    expect(fileOf(lb, CONTAINERD)).toBeUndefined();
  });

  it('has the bootstrap script take the variables, and put them in /etc/environment, before its first download', async () => {
    for (const node of await rendered(proxy)) {
      const script = fileOf(node, '/usr/local/sbin/kubeplane-bootstrap') ?? '';
      const main = script.slice(script.indexOf('\nmain() {'));
      expect(main.indexOf('use_installation_proxy'), node.name).toBeGreaterThan(0);
      expect(main.indexOf('use_installation_proxy'), node.name).toBeLessThan(main.indexOf('prepare_host'));
      expect(script).toContain(`done <${ENV}`);
      expect(script).toContain(`cat ${ENV} >>/etc/environment`);
    }
  });

  it('writes nothing of it without a proxy', async () => {
    for (const node of await rendered(undefined)) {
      for (const path of [ENV, APT, CONTAINERD, KUBELET]) expect(fileOf(node, path), `${node.name} ${path}`).toBeUndefined();
      expect(fileOf(node, '/usr/local/sbin/kubeplane-bootstrap')).not.toContain('use_installation_proxy');
    }
  });

  it('gives user-data that `cloud-init schema` accepts and a bootstrap script shellcheck passes', async () => {
    for (const node of await rendered(proxy)) {
      const userData = join(work, `${node.name}.user-data`);
      writeFileSync(userData, node.cloudConfig.reveal());
      const schema = spawnSync('cloud-init', ['schema', '--config-file', userData], { encoding: 'utf8' });
      if (schema.error) throw new Error("validator 'cloud-init' is not installed; install the Debian package 'cloud-init'");
      expect(schema.status, `${node.name}: ${schema.stdout}${schema.stderr}`).toBe(0);
      const script = join(work, `${node.name}.sh`);
      writeFileSync(script, fileOf(node, '/usr/local/sbin/kubeplane-bootstrap') ?? '');
      const check = spawnSync('shellcheck', ['--severity=style', script], { encoding: 'utf8' });
      if (check.error) throw new Error("validator 'shellcheck' is not installed; install the Debian package 'shellcheck'");
      expect(check.stdout + check.stderr, node.name).toBe('');
    }
  });
});
