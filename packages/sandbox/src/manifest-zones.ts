// The sandbox accounts hold the DNS zones a manifest names, as the user's real accounts would (a zone is made by its
// owner, never by kubeplane): each `dnsZone` is added to the sandbox cloud of the provider that serves it.
import type { Manifest } from '@kubeplane/sdk';
import type { Sandbox } from './sandbox.js';

/** The zones added (`<cloud> <zone>`), for the CLI to say so. Zones that exist are left as they are. */
export function holdManifestDnsZones(sandbox: Sandbox, manifest: Manifest): string[] {
  const uses = [...manifest.kubernetes.clusters.flatMap((c) => (c.apiDns ? [c.apiDns] : [])), ...manifest.loadBalancers.clusters.map((lb) => lb.dns)];
  const added: string[] = [];
  for (const use of uses) {
    const type = manifest.providers.find((p) => p.name === use.provider)?.providerType;
    const zone = use.dnsZone.replace(/\.$/, '');
    const before = sandbox.route53.zones.size + sandbox.hetzner.zones.size + sandbox.cloudflare.zones.size;
    if (type === 'aws') sandbox.route53.addZone(zone);
    else if (type === 'hetzner') sandbox.hetzner.addDnsZone(zone);
    else if (type === 'cloudflare') sandbox.cloudflare.addZone(zone);
    else continue;
    const after = sandbox.route53.zones.size + sandbox.hetzner.zones.size + sandbox.cloudflare.zones.size;
    if (after > before) added.push(`${type} ${zone}`);
  }
  return added;
}
