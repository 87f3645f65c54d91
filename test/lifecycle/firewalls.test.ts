// `access.apiAllowedCidrs` holds end to end: read back from the sandbox clouds, which firewall each machine is in
// and who may reach the API port through it, after a real apply.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kubeplane } from '@kubeplane/sdk';
import type { Sandbox } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

const examples = join(import.meta.dirname, '..', '..', 'examples');
const hybrid = readFileSync(join(examples, 'hybrid-aws-hetzner.yaml'), 'utf8');
const minimal = readFileSync(join(examples, 'minimal.yaml'), 'utf8');
const RESTRICTED = '203.0.113.0/24';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

async function applyAndRun(kp: Kubeplane, text: string, cluster: string): Promise<void> {
  await kp.apply(manifestOf(text));
  await kp.run({ maxMessages: 20_000 });
  const status = await kp.status(cluster);
  expect(status.clusters[cluster]?.state, JSON.stringify(status.clusters[cluster], null, 1)).toBe('DONE');
}

interface Machine {
  name: string;
  publicIp: string;
  /** Inbound rules of every firewall the machine is in: `tcp/6443` -> sources. */
  inbound: Array<{ port: string; sources: string[] }>;
}

/** Every live machine of the sandbox clouds with the inbound rules of the firewalls it is in, as the clouds keep them. */
function machines(s: Sandbox): Machine[] {
  const out: Machine[] = [];
  for (const ec2 of s.ec2Regions.values()) {
    for (const i of ec2.instances.values()) {
      if (i.terminateRequestedAt !== undefined) continue;
      const eip = [...ec2.addresses.values()].find((a) => a.instanceId === i.id)?.publicIp;
      const inbound = i.groups
        .flatMap((g) => ec2.securityGroups.get(g)?.ingress ?? [])
        .map((p) => ({ port: `${p.protocol}/${p.from}`, sources: p.cidrs.map((c) => c.cidr) }));
      out.push({ name: i.tags['kubeplane.dev/name'] ?? i.id, publicIp: eip ?? i.publicIp ?? '', inbound });
    }
  }
  for (const server of s.hetzner.servers.values()) {
    const inbound = server.firewalls
      .flatMap((id) => s.hetzner.firewalls.get(id)?.rules ?? [])
      .filter((r) => r['direction'] === 'in')
      .map((r) => ({ port: `${String(r['protocol'])}/${String(r['port'] ?? '')}`, sources: (r['source_ips'] as string[] | undefined) ?? [] }));
    out.push({ name: server.name, publicIp: server.ipv4?.ip ?? '', inbound });
  }
  return out;
}

const apiSources = (m: Machine) => m.inbound.filter((r) => r.port === 'tcp/6443').flatMap((r) => r.sources);

describe('firewalls per role', () => {
  it('behind an API load balancer, open no API port on control planes and the LB API role only to the allowed ranges and the machines', async () => {
    const w = sandboxWorld(3);
    sandbox = w.sandbox;
    await applyAndRun(w.kp, hybrid.replace('apiAllowedCidrs: [0.0.0.0/0]', `apiAllowedCidrs: [${RESTRICTED}]`), 'hybrid');
    const all = machines(w.sandbox);
    const control = all.filter((m) => m.name.includes('aws-control'));
    const lbs = all.filter((m) => m.name.includes('htz-lb'));
    const workers = all.filter((m) => m.name.includes('worker'));
    expect([control.length, lbs.length, workers.length]).toEqual([3, 2, 5]);
    for (const m of [...control, ...workers]) expect(apiSources(m), m.name).toEqual([]);
    const own = all.map((m) => `${m.publicIp}/32`).sort();
    for (const lb of lbs) {
      const sources = apiSources(lb);
      expect(sources, lb.name).not.toContain('0.0.0.0/0');
      expect([...sources].sort(), lb.name).toEqual([RESTRICTED, ...own].sort());
      // The other LB roles stay open to the world.
      expect(lb.inbound.find((r) => r.port === 'tcp/443')?.sources, lb.name).toEqual(['0.0.0.0/0']);
    }
    for (const m of all) expect(m.inbound.find((r) => r.port === 'udp/51820')?.sources, m.name).toEqual(['0.0.0.0/0']);
  });

  it("behind a reserved IP with a restricted list, let the workers (and every other machine) reach the control plane's API", async () => {
    const w = sandboxWorld(5);
    sandbox = w.sandbox;
    const restricted = minimal.replace('        compute: [workers]', `        compute: [workers]\n      access:\n        apiAllowedCidrs: [${RESTRICTED}]`);
    expect(restricted).not.toBe(minimal);
    await applyAndRun(w.kp, restricted, 'minimal');
    const all = machines(w.sandbox);
    const control = all.filter((m) => m.name.includes('control'));
    const workers = all.filter((m) => m.name.includes('workers'));
    expect([control.length, workers.length]).toEqual([1, 2]);
    const sources = apiSources(control[0]!);
    expect(sources).toContain(RESTRICTED);
    expect(sources).not.toContain('0.0.0.0/0');
    for (const worker of workers) expect(sources, worker.name).toContain(`${worker.publicIp}/32`);
    for (const worker of workers) expect(apiSources(worker), worker.name).toEqual([]);
  });
});
