import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '../manifest/validate.js';
import { buildDesiredState } from './desired-state.js';
import { clusterId } from './ids.js';
import { cidrsOverlap, parseCidr, type Cidr } from './ipv4.js';
import { allNodes } from './types.js';

const read = (f: string) => readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'examples', f), 'utf8');
const manifestOf = (text: string) => {
  const m = validateManifestText(text).manifests[0];
  if (!m) throw new Error('no manifest');
  return m;
};

describe('the desired state', () => {
  it('is the same for the same manifest, down to every name and address', () => {
    const m = manifestOf(read('hybrid-aws-hetzner.yaml'));
    expect(buildDesiredState(m)).toEqual(buildDesiredState(structuredClone(m)));
  });

  it('gives each cluster an id unique to its project, and each node a DNS-safe name under 64 characters', () => {
    expect(clusterId('a', 'prod')).not.toBe(clusterId('b', 'prod'));
    expect(clusterId('a', 'prod')).toMatch(/^prod-[a-z0-9]{7}$/);
    const state = buildDesiredState(manifestOf(read('hybrid-aws-hetzner.yaml')));
    const cluster = state.clusters[0];
    if (!cluster) throw new Error('no cluster');
    const nodes = allNodes(cluster);
    expect(nodes).toHaveLength(10);
    for (const n of nodes) expect(n.name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(nodes.map((n) => n.name)).toContain(`${cluster.id}-aws-control-01`);
    expect(cluster.loadBalancers[0]?.pools[0]?.nodes.map((n) => n.name)).toEqual([
      `${cluster.loadBalancers[0]?.id}-htz-lb-01`,
      `${cluster.loadBalancers[0]?.id}-htz-lb-02`,
    ]);
  });

  it('gives every node, load balancers included, its own overlay address inside the cluster network', () => {
    const cluster = buildDesiredState(manifestOf(read('hybrid-aws-hetzner.yaml'))).clusters[0];
    if (!cluster) throw new Error('no cluster');
    const ips = allNodes(cluster).map((n) => n.overlayIp);
    expect(new Set(ips).size).toBe(ips.length);
    expect(ips[0]).toBe('192.168.2.1');
    for (const ip of ips) expect(ip.startsWith('192.168.2.')).toBe(true);
  });

  it('uses the API load balancer hostname as the endpoint, or a reserved IP on the first control plane', () => {
    const withLb = buildDesiredState(manifestOf(read('hybrid-aws-hetzner.yaml'))).clusters[0];
    expect(withLb?.apiEndpoint).toEqual({ kind: 'load-balancer', host: 'hybrid.example.com', port: 6443, loadBalancer: 'hybrid-lb' });
    const minimal = buildDesiredState(manifestOf(read('minimal.yaml'))).clusters[0];
    expect(minimal?.apiEndpoint).toMatchObject({ kind: 'reserved-ip', node: `${minimal?.id}-control-01` });
  });

  it('keeps an autoscaled pool at its current size while within the limits, and starts it at min', () => {
    const m = manifestOf(read('autoscaled.yaml'));
    const first = buildDesiredState(m);
    const general = first.clusters[0]?.pools.find((p) => p.name === 'general');
    expect(general?.count).toBe(1);
    const grown = structuredClone(first);
    const pool = grown.clusters[0]?.pools.find((p) => p.name === 'general');
    if (!pool) throw new Error('no pool');
    pool.count = 7;
    pool.nodes = Array.from({ length: 7 }, (_, i) => ({ ...pool.nodes[0]!, index: i + 1, name: `x-${i + 1}`, overlayIp: '' }));
    expect(buildDesiredState(m, grown).clusters[0]?.pools.find((p) => p.name === 'general')?.count).toBe(7);
    const capped = structuredClone(m);
    capped.nodePools.dynamic[1]!.autoscaler = { min: 1, max: 4 };
    expect(buildDesiredState(capped, grown).clusters[0]?.pools.find((p) => p.name === 'general')?.count).toBe(4);
  });

  it('allocates one cloud network per provider region that overlaps neither the overlay nor the pod and service ranges', () => {
    const cluster = buildDesiredState(manifestOf(read('hybrid-aws-hetzner.yaml'))).clusters[0];
    if (!cluster) throw new Error('no cluster');
    expect(cluster.networks.map((n) => `${n.provider}/${n.region}`)).toEqual(['aws-1/eu-central-1', 'hetzner-1/fsn1']);
    expect(cluster.networks[0]?.subnets.map((s) => s.zone)).toEqual(['eu-central-1a', 'eu-central-1b']);
    const avoid = [cluster.network, cluster.podCidr, cluster.serviceCidr].map((c) => parseCidr(c) as Cidr);
    for (const n of cluster.networks) {
      const c = parseCidr(n.cidr) as Cidr;
      for (const a of avoid) expect(cidrsOverlap(a, c)).toBe(false);
    }
  });

  it("identifies static machines by endpoint, so removing one keeps the others' names", () => {
    const text = read('static-and-dynamic.yaml');
    const first = buildDesiredState(manifestOf(text));
    const without = text.replace('        - { endpoint: 198.51.100.11, secretRef: { env: { privatekey: RACK_SSH_KEY } } }\n', '');
    const second = buildDesiredState(manifestOf(without), first);
    const names = (s: typeof first) => s.clusters[0]?.pools[0]?.nodes.map((n) => `${n.name}@${n.staticEndpoint}`);
    expect(names(first)?.filter((n) => !n.includes('198.51.100.11'))).toEqual(names(second));
  });
});
