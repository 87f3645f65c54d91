import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { render } from './render.js';

const repo = resolve(fileURLToPath(import.meta.url), '../../../../../..');

function io(cwd: string): { stdout: PassThrough; stderr: PassThrough; cwd: string; env: NodeJS.ProcessEnv; text: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stdout.on('data', (c: Buffer) => (text += c.toString()));
  return { stdout, stderr, cwd, env: {}, text: () => text };
}

const out = mkdtempSync(join(tmpdir(), 'kubeplane-render-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('kubeplane render', () => {
  it('writes every node of the hybrid example with its secrets beside it, private files 0600', async () => {
    const cli = io(repo);
    const code = await render(['examples/hybrid-aws-hetzner.yaml', '--out', out], cli);
    expect(code).toBe(0);
    const base = join(out, 'hybrid');
    const nodes = readdirSync(base).filter((d) => !['secrets', 'pki', 'mesh.yaml'].includes(d));
    expect(nodes.length).toBeGreaterThan(0);
    expect(cli.text()).toContain(`hybrid: ${nodes.length} nodes`);
    for (const node of nodes) {
      expect(statSync(join(base, node, 'user-data')).mode & 0o777, node).toBe(0o600);
      expect(readFileSync(join(base, node, 'cloud-config.yaml'), 'utf8')).toMatch(/^#cloud-config\n/);
      expect(statSync(join(base, node, 'files/etc/wireguard/wg0.conf')).mode & 0o777).toBe(0o600);
    }
    expect(statSync(join(base, 'secrets')).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(join(base, 'secrets'))) expect(statSync(join(base, 'secrets', f)).mode & 0o777, f).toBe(0o600);
    expect(readFileSync(join(base, 'secrets/bootstrap-token'), 'utf8')).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}\n$/);
    const caKeyLine = readFileSync(join(base, 'secrets/ca.key'), 'utf8').split('\n')[2] ?? '';
    const worker = nodes.find((n) => n.includes('worker'));
    expect(worker).toBeDefined();
    expect(readFileSync(join(base, `${worker}/cloud-config.yaml`), 'utf8')).not.toContain(caKeyLine);
    const control = nodes.find((n) => n.includes('control'));
    expect(readFileSync(join(base, `${control}/cloud-config.yaml`), 'utf8')).toContain(caKeyLine);
    // The mesh signing key is in secrets/ only; every node carries its public half.
    const signingLine = readFileSync(join(base, 'secrets/mesh-signing.key'), 'utf8').split('\n')[1] ?? '';
    expect(signingLine).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    for (const node of nodes) {
      expect(readFileSync(join(base, `${node}/cloud-config.yaml`), 'utf8'), node).not.toContain(signingLine);
      expect(readFileSync(join(base, `${node}/files/etc/kubeplane/mesh-signing.pub`), 'utf8'), node).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    }
  });

  it('exits 1 and prints the issues of an invalid manifest, writing nothing', async () => {
    const cli = io(repo);
    const empty = mkdtempSync(join(tmpdir(), 'kubeplane-render-bad-'));
    const code = await render([join(repo, 'packages/handlers/src/cli/commands/render.ts'), '--out', empty], cli);
    expect(code).toBe(1);
    expect(cli.text()).not.toBe('');
    expect(readdirSync(empty)).toEqual([]);
    rmSync(empty, { recursive: true, force: true });
  });

  it('requires --out', async () => {
    await expect(render(['examples/hybrid-aws-hetzner.yaml'], io(repo))).rejects.toThrow(/--out/);
  });

  it('shows the installation proxy and writes its files on every node; a password in the URL is not printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-render-proxy-'));
    try {
      const manifest = readFileSync(join(repo, 'examples/minimal.yaml'), 'utf8').replace(
        '      network: 10.0.0.0/24\n',
        '      network: 10.0.0.0/24\n      installationProxy: { mode: default, endpoint: "http://user:s3cret@proxy.example.com:3128", noProxy: .corp.example.com }\n',
      );
      writeFileSync(join(dir, 'proxy.yaml'), manifest);
      const cli = io(dir);
      expect(await render(['proxy.yaml', '--out', 'out', '--api-host', '198.51.100.7'], cli)).toBe(0);
      expect(cli.text()).toContain('installation proxy http://user:***@proxy.example.com:3128/ (apt, containerd, kubelet, /etc/environment); NO_PROXY=');
      expect(cli.text()).toMatch(
        /NO_PROXY=127\.0\.0\.1\/8,localhost,cluster\.local,10\.244\.0\.0\/16,10\.96\.0\.0\/12,10\.0\.0\.0\/24,.*,169\.254\.169\.254,\.corp\.example\.com\n/,
      );
      expect(cli.text()).not.toContain('s3cret');
      const nodes = readdirSync(join(dir, 'out', 'minimal')).filter((d) => !['secrets', 'pki', 'mesh.yaml'].includes(d));
      expect(nodes).toHaveLength(3);
      for (const node of nodes) {
        for (const f of [
          'etc/apt/apt.conf.d/90kubeplane-proxy.conf',
          'etc/kubeplane/proxy.env',
          'etc/systemd/system/containerd.service.d/90-kubeplane-proxy.conf',
        ])
          expect(existsSync(join(dir, 'out', 'minimal', node, 'files', f)), `${node}: ${f}`).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says a cluster without installationProxy installs without one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-render-noproxy-'));
    try {
      const cli = io(repo);
      expect(await render(['examples/minimal.yaml', '--out', dir, '--api-host', '198.51.100.7'], cli)).toBe(0);
      expect(cli.text()).toContain('  installation proxy: none\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
