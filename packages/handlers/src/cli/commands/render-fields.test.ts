// Manifest fields whose effect is in what the machines are handed, proven through `kubeplane render`: secrets-at-rest
// encryption (an EncryptionConfiguration and the apiserver flag, or neither) and a load-balancer role's PROXY protocol
// and sticky sessions (nginx on the LB nodes), with the defaults the manifest gives when they are left out.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { render } from './render.js';

const dir = mkdtempSync(join(tmpdir(), 'kubeplane-render-fields-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(): { stdout: PassThrough; stderr: PassThrough; cwd: string; env: NodeJS.ProcessEnv; text: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stdout.on('data', (c: Buffer) => (text += c.toString()));
  return { stdout, stderr, cwd: dir, env: {}, text: () => text };
}

/** A Hetzner cluster with two load-balancer nodes; `cluster` and `roles` are YAML spliced in. */
function manifest(name: string, cluster: string, roles: string): string {
  return `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: ${name} }
providers:
  - name: hetzner-1
    providerType: hetzner
    secretRef: { env: { credentials: HCLOUD_TOKEN } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
    - { name: workers, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx32, image: ubuntu-24.04 }
    - { name: lb, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - name: ${name}
      version: "1.34.2"
      network: 10.0.0.0/24
      pools: { control: [control], compute: [workers] }
${cluster}
loadBalancers:
  roles:
${roles}
  clusters:
    - name: ${name}-lb
      roles: [${[...roles.matchAll(/name: ([a-z0-9-]+)/g)].map((m) => m[1]).join(', ')}]
      dns: { dnsZone: example.com, provider: hetzner-1, hostname: ${name} }
      targetedK8s: ${name}
      pools: [lb]
`;
}

const apiRole = '    - { name: api, protocol: tcp, port: 6443, targetPort: 6443, targetPools: [control] }';

/** Renders the manifest and returns the folder of its cluster. */
async function rendered(name: string, text: string): Promise<string> {
  writeFileSync(join(dir, `${name}.yaml`), text);
  const io = cli();
  const code = await render([`${name}.yaml`, '--out', 'out'], io);
  expect(code, io.text()).toBe(0);
  return join(dir, 'out', name);
}

/** The rendered files of the cluster's first node whose name contains `pool`. */
function nodeFiles(base: string, pool: string): string {
  const node = readdirSync(base).find((d) => d.includes(`-${pool}-01`));
  if (!node) throw new Error(`no ${pool} node rendered in ${base}`);
  return join(base, node, 'files');
}

describe('kubernetes.clusters[].encryption.secretsAtRest through kubeplane render', () => {
  it('secretsAtRest true: the control plane gets an EncryptionConfiguration and the apiserver reads it', async () => {
    const base = await rendered('enc-on', manifest('enc-on', '      encryption: { secretsAtRest: true }', apiRole));
    const files = nodeFiles(base, 'control');
    const config = readFileSync(join(files, 'etc/kubeplane/encryption-config.yaml'), 'utf8');
    expect(config).toMatch(/kind: EncryptionConfiguration/);
    expect(config).toMatch(/- secrets/);
    const kubeadm = readFileSync(join(files, 'etc/kubeplane/kubeadm.yaml'), 'utf8');
    expect(kubeadm).toMatch(/name: encryption-provider-config\n\s+value: \/etc\/kubernetes\/encryption\/config\.yaml/);
    expect(readdirSync(join(base, 'secrets'))).toContain('encryption-config.yaml');
  });

  it('secretsAtRest false: no EncryptionConfiguration anywhere, and no encryption-provider-config flag on the apiserver', async () => {
    const base = await rendered('enc-off', manifest('enc-off', '      encryption: { secretsAtRest: false }', apiRole));
    const files = nodeFiles(base, 'control');
    expect(readdirSync(join(files, 'etc/kubeplane'))).not.toContain('encryption-config.yaml');
    expect(readdirSync(join(base, 'secrets'))).not.toContain('encryption-config.yaml');
    const kubeadm = readFileSync(join(files, 'etc/kubeplane/kubeadm.yaml'), 'utf8');
    expect(kubeadm).toMatch(/kind: ClusterConfiguration/);
    expect(kubeadm).not.toMatch(/encryption/);
  });
});

describe('loadBalancers.roles[].settings through kubeplane render', () => {
  /** The nginx `upstream` and `server` blocks of one role in the LB node's configuration. */
  function roleBlock(nginx: string, role: string): string {
    const start = nginx.indexOf(`  # role ${role}:`);
    if (start < 0) throw new Error(`role ${role} is not in the nginx configuration:\n${nginx}`);
    const end = nginx.indexOf('\n  #', start + 1);
    return nginx.slice(start, end < 0 ? undefined : end);
  }

  it('PROXY protocol on for a TCP role by default and off when settings say so, never on the API role or a UDP role; sticky only when asked', async () => {
    const roles = [
      // The API role asks for both: the apiserver speaks no PROXY protocol, and every client must reach any apiserver.
      '    - { name: api, protocol: tcp, port: 6443, targetPort: 6443, targetPools: [control], settings: { proxyProtocol: true, stickySessions: true } }',
      '    - { name: plain, protocol: tcp, port: 80, targetPort: 30080, targetPools: [workers] }',
      '    - { name: noproxy, protocol: tcp, port: 8080, targetPort: 30081, targetPools: [workers], settings: { proxyProtocol: false } }',
      '    - { name: sticky, protocol: tcp, port: 443, targetPort: 30443, targetPools: [workers], settings: { stickySessions: true } }',
      '    - { name: dns, protocol: udp, port: 53, targetPort: 30053, targetPools: [workers], settings: { proxyProtocol: true } }',
    ].join('\n');
    const base = await rendered('lbset', manifest('lbset', '', roles));
    const nginx = readFileSync(join(nodeFiles(base, 'lb'), 'etc/kubeplane/nginx.conf'), 'utf8');
    const proxy = (role: string) => roleBlock(nginx, role).includes('proxy_protocol on;');
    const sticky = (role: string) => roleBlock(nginx, role).includes('hash $remote_addr consistent;');
    expect({ api: proxy('api'), plain: proxy('plain'), noproxy: proxy('noproxy'), sticky: proxy('sticky'), dns: proxy('dns') }).toEqual({
      api: false,
      plain: true,
      noproxy: false,
      sticky: true,
      dns: false,
    });
    expect({ api: sticky('api'), plain: sticky('plain'), noproxy: sticky('noproxy'), sticky: sticky('sticky'), dns: sticky('dns') }).toEqual({
      api: false,
      plain: false,
      noproxy: false,
      sticky: true,
      dns: false,
    });
    expect(roleBlock(nginx, 'dns')).toContain('listen 53 udp;');
  });
});
