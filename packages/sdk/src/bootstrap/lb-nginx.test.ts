import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BootstrapCluster, BootstrapLoadBalancer } from './input.js';
import { renderNginxConfig } from './lb-nginx.js';

const cluster = { name: 'demo' } as BootstrapCluster;
const lb: BootstrapLoadBalancer = {
  name: 'edge',
  pools: ['lb'],
  roles: [
    { name: 'api', protocol: 'tcp', port: 6443, targetPort: 6443, targets: ['192.168.2.2', '192.168.2.1'], proxyProtocol: false, stickySessions: false },
    { name: 'web', protocol: 'tcp', port: 443, targetPort: 30443, targets: ['192.168.2.21'], proxyProtocol: true, stickySessions: true },
    { name: 'dns', protocol: 'udp', port: 53, targetPort: 30053, targets: ['192.168.2.21'], proxyProtocol: true, stickySessions: false },
  ],
};

function serverBlock(config: string, listen: string): string {
  const start = config.indexOf(`listen ${listen};`);
  return config.slice(start, config.indexOf('}', start));
}

describe('nginx stream config for a load balancer', () => {
  const config = renderNginxConfig(cluster, lb);

  it('forwards each role port to its target port on the overlay IPs', () => {
    expect(config).toContain('upstream role_api {\n    server 192.168.2.1:6443 max_fails=2 fail_timeout=10s;\n    server 192.168.2.2:6443');
    expect(serverBlock(config, '6443')).toContain('proxy_pass role_api;');
    expect(serverBlock(config, '53 udp')).toContain('proxy_pass role_dns;');
  });

  it('sends PROXY protocol on TCP roles that ask for it, never on UDP', () => {
    expect(serverBlock(config, '443')).toContain('proxy_protocol on;');
    expect(serverBlock(config, '6443')).not.toContain('proxy_protocol');
    expect(serverBlock(config, '53 udp')).not.toContain('proxy_protocol');
  });

  it('hashes the client address consistently only for sticky roles', () => {
    expect(config.match(/hash \$remote_addr consistent;/g)).toHaveLength(1);
    expect(config).toMatch(/upstream role_web \{\n {4}hash \$remote_addr consistent;/);
  });

  it('answers TCP health checks on port 65534', () => {
    expect(serverBlock(config, '65534')).toContain('return "ok\\n";');
  });

  it('is accepted by `nginx -t`, and a broken one is not', () => {
    const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
    if (found.status !== 0) throw new Error("validator 'nginx' is not installed; install 'nginx' and 'libnginx-mod-stream'");
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-nginx-'));
    const check = (text: string): number | null => {
      const path = join(dir, 'nginx.conf');
      writeFileSync(path, text);
      return spawnSync('nginx', ['-t', '-c', path, '-e', join(dir, 'error.log'), '-g', `pid ${join(dir, 'nginx.pid')};`]).status;
    };
    expect(check(config)).toBe(0);
    expect(check(config.replace('proxy_pass role_api;', 'proxy_pass role_missing;'))).not.toBe(0);
  });

  it('refuses a role without targets and a role on the health port', () => {
    const empty = { ...lb, roles: [{ ...lb.roles[0]!, targets: [] }] };
    expect(() => renderNginxConfig(cluster, empty)).toThrow(/no targets/);
    const clash = { ...lb, roles: [{ ...lb.roles[0]!, port: 65534 }] };
    expect(() => renderNginxConfig(cluster, clash)).toThrow(/health port/);
  });
});
