// Load-balancer nodes: an nginx stream (L4) configuration per LB cluster. nginx's stream module proxies TCP and
// UDP, speaks PROXY protocol and hashes the client address for stickiness; open-source HAProxy has no UDP.
import type { BootstrapCluster, BootstrapLoadBalancer, BootstrapLbRole } from './input.js';

/** The TCP port DNS failover health checks probe (Claudie's reserved 65534). */
export const LB_HEALTH_PORT = 65534;
export const NGINX_CONFIG_PATH = '/etc/nginx/nginx.conf';

function upstreamName(role: BootstrapLbRole): string {
  return `role_${role.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

function renderRole(role: BootstrapLbRole): string[] {
  if (role.targets.length === 0) {
    throw new Error(`load-balancer role ${role.name} has no targets; nginx refuses an empty upstream`);
  }
  if (role.port === LB_HEALTH_PORT) throw new Error(`load-balancer role ${role.name} uses the health port ${LB_HEALTH_PORT}`);
  const udp = role.protocol === 'udp';
  const lines = [`  # role ${role.name}: ${role.protocol} ${role.port} -> ${role.targetPort}`, `  upstream ${upstreamName(role)} {`];
  if (role.stickySessions) lines.push('    hash $remote_addr consistent;');
  for (const target of [...role.targets].sort()) {
    lines.push(`    server ${target}:${role.targetPort} max_fails=2 fail_timeout=10s;`);
  }
  lines.push('  }', '  server {', `    listen ${role.port}${udp ? ' udp' : ''};`, `    proxy_pass ${upstreamName(role)};`);
  if (!udp) lines.push('    proxy_connect_timeout 5s;');
  // PROXY protocol carries the client address to TCP backends; nginx cannot send it over UDP.
  if (role.proxyProtocol && !udp) lines.push('    proxy_protocol on;');
  lines.push('  }');
  return lines;
}

/**
 * `/etc/nginx/nginx.conf` for the nodes of one LB cluster. Modules come from Debian/Ubuntu's modules-enabled
 * (libnginx-mod-stream); pid and error log stay at the package defaults.
 */
export function renderNginxConfig(cluster: BootstrapCluster, lb: BootstrapLoadBalancer): string {
  const ports = new Set<string>();
  for (const role of lb.roles) {
    const id = `${role.protocol}/${role.port}`;
    if (ports.has(id)) throw new Error(`load balancer ${lb.name} listens twice on ${id}`);
    ports.add(id);
  }
  const lines = [
    `# kubeplane load balancer ${lb.name} of cluster ${cluster.name}: L4 proxy to overlay IPs`,
    'user www-data;',
    'worker_processes auto;',
    'worker_rlimit_nofile 65536;',
    'include /etc/nginx/modules-enabled/*.conf;',
    '',
    'events {',
    '  worker_connections 16384;',
    '}',
    '',
    'stream {',
    "  log_format kubeplane '$remote_addr [$time_local] $protocol $server_port -> $upstream_addr $status $session_time';",
    '  access_log /var/log/nginx/stream.log kubeplane;',
    '',
  ];
  for (const role of [...lb.roles].sort((a, b) => a.name.localeCompare(b.name))) lines.push(...renderRole(role), '');
  lines.push(
    `  # health endpoint for DNS failover: answers while nginx runs`,
    '  server {',
    `    listen ${LB_HEALTH_PORT};`,
    '    return "ok\\n";',
    '  }',
    '}',
  );
  return `${lines.join('\n')}\n`;
}
