// Manifest fields whose effect only an applied cluster shows, each proven through the SDK on the sandbox clouds: the
// overlay network the nodes' addresses come from, the upgrade strategy and batch size, and a load balancer's
// alternative DNS names, read back from the DNS provider and gone after destroy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isPending } from '@kubeplane/sdk/provider';
import type { Kubeplane, Manifest } from '@kubeplane/sdk';
import { sandboxKubernetes, sandboxProviders, type Sandbox } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const workers = (n: number) => minimal.replace(/count: 2\n(\s+)serverType: cpx32/, `count: ${n}\n$1serverType: cpx32`);
/** The cluster's upgrade settings (YAML flow), spliced under the cluster. */
const withUpgrade = (text: string, upgrade: string) => text.replace('      pools:\n', `      upgrade: ${upgrade}\n      pools:\n`);
const toVersion = (text: string, version: string) => text.replace('"1.34.2"', `"${version}"`);

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());
function world(seed: number) {
  const w = sandboxWorld(seed);
  sandbox = w.sandbox;
  return w;
}

async function applied(kp: Kubeplane, text: string, project = 'minimal') {
  await kp.apply(manifestOf(text));
  const run = await kp.run();
  expect(run.stopped).toBe('idle');
  const status = await kp.status(project);
  expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
}

/** The cluster's Nodes as its API serves them, through the admin kubeconfig. */
async function nodesOf(kp: Kubeplane, s: Sandbox, project = 'minimal', cluster = project) {
  return sandboxKubernetes(s)(await kp.kubeconfig(project, cluster)).listNodes();
}

/** 10.77.0.0/24 holds the address: the four octets are compared with the /24's. */
const inNet = (ip: string | undefined, prefix: string) => typeof ip === 'string' && ip.startsWith(prefix) && Number(ip.split('.')[3]) > 0;

describe('kubernetes.clusters[].network', () => {
  it("gives every node an overlay address in the manifest's network: the SDK's current state and each Node's InternalIP", async () => {
    const { kp, sandbox } = world(41);
    await applied(kp, minimal.replace('network: 10.0.0.0/24', 'network: 10.77.3.0/24'));
    const [cluster] = (await kp.currentState('minimal')).clusters;
    const overlay = Object.fromEntries((cluster?.pools ?? []).flatMap((p) => p.nodes.map((n) => [n.name, n.overlayIp])));
    expect(Object.keys(overlay)).toHaveLength(3);
    for (const [name, ip] of Object.entries(overlay)) expect(inNet(ip, '10.77.3.'), `${name} ${ip}`).toBe(true);
    expect(new Set(Object.values(overlay)).size).toBe(3);
    // The kubelets registered with those addresses: the cluster's traffic runs on the overlay.
    const nodes = await nodesOf(kp, sandbox);
    expect(Object.fromEntries(nodes.map((n) => [n.name, n.internalIp]))).toEqual(overlay);
  });
});

describe('kubernetes.clusters[].upgrade', () => {
  /** The batches of an upgrade, in order, from its waiting events: `<node> <kubeadm mode>` each. */
  async function upgradeBatches(kp: Kubeplane, text: string): Promise<string[][]> {
    const batches: string[][] = [];
    const off = kp.on((e) => {
      const m = e.type === 'waiting' && e.step === 'upgrade' ? /^upgrading (.+) to v\S+ \(kubeadm upgrade (\w+)\)/.exec(e.reason) : null;
      if (m) batches.push((m[1] ?? '').split(', ').map((n) => `${n.replace(/^.*-(\w+-\d\d)$/, '$1')} ${m[2]}`));
    });
    await applied(kp, text);
    off();
    return batches;
  }

  it('rolling with maxSurge 2: workers are drained and upgraded two at a time, after the control plane', async () => {
    const { kp, sandbox } = world(42);
    await applied(kp, withUpgrade(workers(3), '{ strategy: rolling, maxSurge: 2 }'));
    const batches = await upgradeBatches(kp, toVersion(withUpgrade(workers(3), '{ strategy: rolling, maxSurge: 2 }'), '1.35.0'));
    expect(batches).toEqual([['control-01 apply'], ['workers-01 node', 'workers-02 node'], ['workers-03 node']]);
    expect((await nodesOf(kp, sandbox)).map((n) => n.kubeletVersion)).toEqual(['v1.35.0', 'v1.35.0', 'v1.35.0', 'v1.35.0']);
  });

  it('rolling with maxSurge 0 or left out: one worker at a time', async () => {
    const { kp } = world(43);
    await applied(kp, withUpgrade(workers(2), '{ maxSurge: 0 }'));
    const batches = await upgradeBatches(kp, toVersion(withUpgrade(workers(2), '{ maxSurge: 0 }'), '1.35.0'));
    expect(batches).toEqual([['control-01 apply'], ['workers-01 node'], ['workers-02 node']]);
  });

  it('on-delete: the control plane moves to the new version, the workers keep theirs until replaced', async () => {
    const { kp, sandbox, events } = world(44);
    const text = withUpgrade(workers(2), '{ strategy: on-delete }');
    await applied(kp, text);
    const machines = sandbox
      .liveMachines()
      .map((m) => m.id)
      .sort();
    const batches = await upgradeBatches(kp, toVersion(text, '1.35.0'));
    expect(batches).toEqual([['control-01 apply']]);
    const versions = Object.fromEntries((await nodesOf(kp, sandbox)).map((n) => [n.name.replace(/^.*-(\w+-\d\d)$/, '$1'), n.kubeletVersion]));
    expect(versions).toEqual({ 'control-01': 'v1.35.0', 'workers-01': 'v1.34.2', 'workers-02': 'v1.34.2' });
    // No machine was replaced to get there.
    expect(
      sandbox
        .liveMachines()
        .map((m) => m.id)
        .sort(),
    ).toEqual(machines);
    const said = events.filter((e) => e.type === 'step-done' && e.step === 'upgrade').map((e) => (e.type === 'step-done' ? e.message : ''));
    expect(said.at(-1)).toBe('the control planes run v1.35.0; 2 workers keep their version until replaced (upgrade.strategy on-delete)');
  });
});

describe('loadBalancers.clusters[].dns.alternativeNames', () => {
  // An ingress load balancer (not the API's, which may have no other names) with its name and two more in Route 53.
  const withIngress = minimal
    .replace(
      'nodePools:\n',
      '  - name: aws-1\n    providerType: aws\n    secretRef:\n      env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY }\nnodePools:\n',
    )
    .replace(
      'kubernetes:\n',
      '    - { name: lb, providerSpec: { name: hetzner-1, region: fsn1 }, count: 2, serverType: cpx22, image: ubuntu-24.04 }\nkubernetes:\n',
    )
    .concat(
      'loadBalancers:\n',
      '  roles:\n',
      '    - { name: https, protocol: tcp, port: 443, targetPort: 30443, targetPools: [workers] }\n',
      '  clusters:\n',
      '    - name: ingress\n',
      '      roles: [https]\n',
      '      dns: { dnsZone: example.com, provider: aws-1, hostname: shop, alternativeNames: [www, store] }\n',
      '      targetedK8s: minimal\n',
      '      pools: [lb]\n',
    );

  async function route53Records(s: Sandbox) {
    const aws = await sandboxProviders(s)({ name: 'aws-1', providerType: 'aws', secretRef: { env: {} } } as Manifest['providers'][number], 'us-east-1');
    const listed = await aws.dns?.listRecords('example.com');
    if (!listed || isPending(listed)) throw new Error('Route 53 records were not listed');
    return listed.value.filter((r) => /^(shop|www|store)\.example\.com$/.test(r.name));
  }

  it('gives each alternative name a record pointing at the load balancer, read back from Route 53, and removes them on destroy', async () => {
    const { kp, sandbox } = world(45);
    await applied(kp, withIngress);
    const records = await route53Records(sandbox);
    // The LB nodes' public addresses as Hetzner reports them.
    const lbIps = sandbox
      .listVms()
      .filter((m) => m.state === 'running' && /-lb-0\d$/.test(m.name))
      .map((m) => m.publicIPv4)
      .sort();
    expect(lbIps).toHaveLength(2);
    // The load balancer's own name: one A record per LB node (health-checked failover sets).
    expect(
      records
        .filter((r) => r.name === 'shop.example.com')
        .flatMap((r) => r.values)
        .sort(),
    ).toEqual(lbIps);
    // Each alternative name points at it.
    for (const alt of ['www', 'store'])
      expect(records.filter((r) => r.name === `${alt}.example.com`)).toEqual([expect.objectContaining({ type: 'CNAME', values: ['shop.example.com'] })]);
    await kp.destroy('minimal');
    await kp.run();
    expect(await kp.findStatus('minimal')).toBeNull();
    expect(await route53Records(sandbox)).toEqual([]);
  });
});
