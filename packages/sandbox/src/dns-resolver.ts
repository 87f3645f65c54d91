// The sandbox's DNS as a resolver sees it: the A records of every zone the DNS emulators hold (Route 53, Hetzner DNS,
// Cloudflare), following CNAMEs. The netns mode gives it to the machines, which have no other DNS: the name of an API
// load balancer resolves to the load-balancer machines' addresses only once the engine's dns step wrote the record.
import type { Sandbox } from './sandbox.js';

const canonical = (name: string) => name.toLowerCase().replace(/\.$/, '');

function records(sandbox: Sandbox, name: string): Array<{ type: string; value: string }> {
  const want = canonical(name);
  const out: Array<{ type: string; value: string }> = [];
  for (const zone of sandbox.route53.zones.values()) {
    for (const r of zone.records) if (canonical(r.name) === want) for (const v of r.values) out.push({ type: r.type, value: v });
  }
  for (const zone of sandbox.hetzner.zones.values()) {
    for (const r of sandbox.hetzner.rrsets) {
      if (r.zone !== zone.id) continue;
      const fqdn = r.name === '@' ? canonical(zone.name) : `${r.name}.${canonical(zone.name)}`;
      if (fqdn === want) for (const v of r.records) out.push({ type: r.type, value: v.value });
    }
  }
  for (const r of sandbox.cloudflare.records.values()) if (canonical(r.name) === want) out.push({ type: r.type, value: r.content });
  return out;
}

/** IPv4 addresses `name` resolves to in the sandbox (CNAMEs followed, at most 8 deep); [] when nothing answers. */
export function resolveSandboxName(sandbox: Sandbox, name: string, depth = 0): string[] {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return [name];
  const found = records(sandbox, name);
  const a = found.filter((r) => r.type === 'A').map((r) => r.value);
  if (a.length > 0 || depth >= 8) return [...new Set(a)];
  return [...new Set(found.filter((r) => r.type === 'CNAME').flatMap((r) => resolveSandboxName(sandbox, r.value, depth + 1)))];
}
