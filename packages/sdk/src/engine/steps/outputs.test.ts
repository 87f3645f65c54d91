// The metadata output's shape, pool by pool: dynamic pools by address with the cluster's key, static pools by the
// endpoint kubeplane reaches them at and never with the users' own keys, load-balancer pools under their LB cluster.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '../../index.js';
import { buildDesiredState } from '../../internal.js';
import { metadataOf } from './outputs.js';

const root = join(import.meta.dirname, '..', '..', '..', '..', '..');
const example = readFileSync(join(root, 'examples', 'static-and-dynamic.yaml'), 'utf8');

function onprem() {
  const manifest = validateManifestText(example).manifests[0];
  if (!manifest) throw new Error('examples/static-and-dynamic.yaml did not validate');
  const [spec] = buildDesiredState(manifest).clusters;
  if (!spec) throw new Error('no cluster');
  // What create-nodes records: each dynamic machine's public address.
  const nodes: Record<string, { pool: string; publicIPv4: string }> = {};
  let n = 0;
  for (const pool of [...spec.pools, ...spec.loadBalancers.flatMap((lb) => lb.pools)])
    if (pool.kind === 'dynamic') for (const node of pool.nodes) nodes[node.name] = { pool: pool.name, publicIPv4: `198.18.0.${(n += 1)}` };
  return { spec, ledger: { nodes } };
}

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nkey\n-----END OPENSSH PRIVATE KEY-----\n';

describe('the metadata output of a cluster with static and dynamic pools and a load balancer', () => {
  it("lists static machines by endpoint, port and user, apart from the dynamic nodes, and none of the users' keys", () => {
    const { spec, ledger } = onprem();
    const md = metadataOf(spec, ledger, KEY);
    const info = md.static_nodepools.node_info;
    expect(Object.values(info).map((i) => `${i.username}@${i.endpoint}:${i.port}`)).toEqual([
      'root@198.51.100.10:2222',
      'root@198.51.100.11:2222',
      'root@198.51.100.12:2222',
      'ubuntu@198.51.100.20:22',
    ]);
    expect(Object.keys(md.nodepools.static_nodepools).sort()).toEqual(['rack-control', 'rack-gpu']);
    expect(Object.keys(md.dynamic_nodepools.node_ips).some((name) => name in info)).toBe(false);
    expect(Object.keys(md.dynamic_nodepools.node_ips)).toHaveLength(4);
    // The cluster's key logs in to the machines kubeplane made, and to those only.
    expect(JSON.stringify(md.static_nodepools)).not.toContain('private_key');
    expect(JSON.stringify(md.nodepools.static_nodepools)).not.toContain('private_key');
  });

  it("gives the guide's top level (Claudie v0.8) and every pool under nodepools (Claudie v0.9+), with the same addresses", () => {
    const { spec, ledger } = onprem();
    const md = metadataOf(spec, ledger, KEY);
    expect(md.cluster_private_key).toBe(KEY);
    expect(md.nodepools.dynamic_nodepools['htz-overflow']?.nodepool_private_key).toBe(KEY);
    expect(md.nodepools.dynamic_nodepools['htz-overflow']?.node_ips).toEqual(md.dynamic_nodepools.node_ips);
    expect(md.dynamic_load_balancer_nodepools).toEqual({
      'onprem-api': { cluster_private_key: KEY, node_ips: md.nodepools.dynamic_load_balancer_nodepools['onprem-api']?.['api-lb']?.node_ips },
    });
    const lbNodes = Object.values(md.dynamic_load_balancer_nodepools['onprem-api']?.node_ips ?? {});
    expect(lbNodes).toHaveLength(2);
    expect(lbNodes.every((ip) => ip.public_ip.startsWith('198.18.0.') && ip.private_ip.startsWith('10.20.0.'))).toBe(true);
  });
});
