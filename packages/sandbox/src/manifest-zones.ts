// The sandbox accounts hold the DNS zones a manifest names, as the user's real accounts would (a zone is made by its
// owner, never by kubeplane): each `dnsZone` is added to the sandbox cloud that holds its provider's DNS zones.
import type { Manifest } from '@kubeplane/sdk';
import { dnsCloudOf } from './clouds/index.js';
import type { Sandbox } from './sandbox.js';

/** The zones added (`<provider type> <zone>`), for the CLI to say so. Zones that exist are left as they are. */
export function holdManifestDnsZones(sandbox: Sandbox, manifest: Manifest): string[] {
  const uses = [...manifest.kubernetes.clusters.flatMap((c) => (c.apiDns ? [c.apiDns] : [])), ...manifest.loadBalancers.clusters.map((lb) => lb.dns)];
  const added: string[] = [];
  for (const use of uses) {
    const type = manifest.providers.find((p) => p.name === use.provider)?.providerType;
    const zone = use.dnsZone.replace(/\.$/, '');
    const cloud = type === undefined ? undefined : dnsCloudOf(type);
    const emulator = cloud && sandbox.emulatorOf(cloud);
    if (!cloud || emulator === undefined) continue;
    const before = cloud.dns.zoneCount(emulator);
    cloud.dns.addZone(emulator, zone);
    if (cloud.dns.zoneCount(emulator) > before) added.push(`${type} ${zone}`);
  }
  return added;
}
