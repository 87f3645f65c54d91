// What a load balancer's nginx forwards, read from the stream configuration its user-data writes (the subset kubeplane
// renders: `upstream NAME { server ADDR:PORT …; }` and `server { listen PORT [udp]; proxy_pass NAME; }`). The fast
// simulation asks it whether a connection to the load balancer's port reaches a control plane; the netns mode runs
// the real nginx. Sources: https://nginx.org/en/docs/stream/ngx_stream_core_module.html#listen and
// https://nginx.org/en/docs/stream/ngx_stream_upstream_module.html#server.

export interface NginxStream {
  upstreams: Map<string, string[]>;
  servers: Array<{ listen: number; udp: boolean; proxyPass: string }>;
}

export function parseNginxStream(text: string): NginxStream {
  const upstreams = new Map<string, string[]>();
  const servers: NginxStream['servers'] = [];
  const clean = text.replace(/#[^\n]*/g, '');
  for (const m of clean.matchAll(/upstream\s+(\S+)\s*\{([^}]*)\}/g)) {
    const targets = [...(m[2] ?? '').matchAll(/^\s*server\s+(\S+?)[\s;]/gm)].map((s) => s[1] ?? '');
    upstreams.set(m[1] ?? '', targets);
  }
  for (const m of clean.matchAll(/server\s*\{([^}]*)\}/g)) {
    const body = m[1] ?? '';
    const listen = /listen\s+(?:[\d.]+:)?(\d+)(\s+udp)?\s*;/.exec(body);
    const pass = /proxy_pass\s+(\S+?)\s*;/.exec(body);
    if (listen && pass) servers.push({ listen: Number(listen[1]), udp: listen[2] !== undefined, proxyPass: pass[1] ?? '' });
  }
  return { upstreams, servers };
}

/** Whether a TCP connection to the load balancer's `port` is forwarded to `target` (`addr:port`). */
export function forwardsTo(nginx: string, port: number, target: string): boolean {
  const stream = parseNginxStream(nginx);
  return stream.servers.some((s) => !s.udp && s.listen === port && (s.proxyPass === target || (stream.upstreams.get(s.proxyPass) ?? []).includes(target)));
}
