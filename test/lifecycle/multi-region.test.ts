// One cluster over several regions of one account: Hetzner pools in fsn1, nbg1 and hel1, AWS pools in two regions.
// Each goes through the whole lifecycle (apply -> DONE, a region dropped, destroy -> nothing left), and each
// resource is made once per the scope its cloud gives it: one Hetzner SSH key for the project, one key pair per
// EC2 region (Capabilities.scopes).
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '@kubeplane/sandbox';
import type { Kubeplane } from '@kubeplane/sdk';
import { liveMachines, manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

const pool = (name: string, provider: string, region: string, serverType: string, image: string, count: number, zone?: string) =>
  `    - name: ${name}\n      providerSpec: { name: ${provider}, region: ${region}${zone ? `, zone: ${zone}` : ''} }\n      count: ${count}\n      serverType: ${serverType}\n      image: ${image}\n`;

function hetznerManifest(locations: string[]): string {
  return `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata:
  name: spread
providers:
  - name: hetzner-1
    providerType: hetzner
    secretRef:
      env: { credentials: HCLOUD_TOKEN }
nodePools:
  dynamic:
${pool('control', 'hetzner-1', 'fsn1', 'cpx22', 'ubuntu-24.04', 1)}${locations.map((l) => pool(`workers-${l}`, 'hetzner-1', l, 'cpx32', 'ubuntu-24.04', 2)).join('')}kubernetes:
  clusters:
    - name: spread
      version: "1.34.2"
      network: 10.0.0.0/24
      pools:
        control: [control]
        compute: [${locations.map((l) => `workers-${l}`).join(', ')}]
`;
}

const AWS_MANIFEST = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata:
  name: two-regions
providers:
  - name: aws-1
    providerType: aws
    secretRef:
      env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY }
nodePools:
  dynamic:
${pool('control', 'aws-1', 'eu-central-1', 't3.medium', 'ami-0965bd5ba4d59211c', 1, 'eu-central-1a')}${pool('workers-fra', 'aws-1', 'eu-central-1', 't3.large', 'ami-0965bd5ba4d59211c', 1, 'eu-central-1b')}${pool('workers-dub', 'aws-1', 'eu-west-1', 't3.large', 'ami-0965bd5ba4d59211c', 2, 'eu-west-1a')}kubernetes:
  clusters:
    - name: two-regions
      version: "1.34.2"
      network: 10.0.0.0/24
      pools:
        control: [control]
        compute: [workers-fra, workers-dub]
`;

async function applyUntilDone(kp: Kubeplane, text: string, project: string): Promise<void> {
  await kp.apply(manifestOf(text));
  await kp.run({ maxMessages: 20_000 });
  const status = await kp.status(project);
  expect(status.clusters[project]?.state, JSON.stringify(status.clusters[project], null, 1)).toBe('DONE');
}

async function destroyToNothing(kp: Kubeplane, s: Sandbox, project: string): Promise<void> {
  await kp.destroy(project);
  await kp.run({ maxMessages: 20_000 });
  expect(await kp.findStatus(project)).toBeNull();
  expect(s.inventory()).toEqual([]);
}

describe('a cluster over several regions of one account', () => {
  it('Hetzner fsn1, nbg1 and hel1: one SSH key for the project, kept until the last location goes, nothing left after destroy', async () => {
    const w = sandboxWorld(21);
    sandbox = w.sandbox;
    const htz = w.sandbox.hetzner;
    await applyUntilDone(w.kp, hetznerManifest(['fsn1', 'nbg1', 'hel1']), 'spread');
    const servers = [...htz.servers.values()];
    expect(servers.map((s) => s.location.name).sort()).toEqual(['fsn1', 'fsn1', 'fsn1', 'hel1', 'hel1', 'nbg1', 'nbg1']);
    expect([...htz.sshKeys.values()].map((k) => k.name)).toHaveLength(1);
    const [key] = [...htz.sshKeys.values()];
    expect(liveMachines(w.sandbox)).toHaveLength(7);

    // nbg1 and hel1 go: their networks and firewalls go with them, the key stays for fsn1's machines.
    await applyUntilDone(w.kp, hetznerManifest(['fsn1']), 'spread');
    expect([...htz.servers.values()].map((s) => s.location.name).sort()).toEqual(['fsn1', 'fsn1', 'fsn1']);
    expect([...htz.sshKeys.values()].map((k) => k.id)).toEqual([key?.id]);
    expect([...htz.networks.values()].map((n) => n.name).filter((n) => /nbg1|hel1/.test(n))).toEqual([]);

    // A location comes back: its machines get the same key (a second upload would be uniqueness_error).
    await applyUntilDone(w.kp, hetznerManifest(['fsn1', 'hel1']), 'spread');
    expect([...htz.sshKeys.values()].map((k) => k.id)).toEqual([key?.id]);
    expect(liveMachines(w.sandbox)).toHaveLength(5);

    await destroyToNothing(w.kp, w.sandbox, 'spread');
  });

  it('AWS eu-central-1 and eu-west-1: a key pair and a VPC per region, nothing left after destroy', async () => {
    const w = sandboxWorld(22);
    sandbox = w.sandbox;
    await applyUntilDone(w.kp, AWS_MANIFEST, 'two-regions');
    const fra = w.sandbox.ec2Regions.get('eu-central-1');
    const dub = w.sandbox.ec2Regions.get('eu-west-1');
    const live = (ec2: typeof fra) => [...(ec2?.instances.values() ?? [])].filter((i) => i.terminateRequestedAt === undefined);
    expect([live(fra).length, live(dub).length]).toEqual([2, 2]);
    // EC2 key pairs exist only in the region they were imported to: one in each.
    expect([fra?.keyPairs.size, dub?.keyPairs.size]).toEqual([1, 1]);
    const own = (ec2: typeof fra) => [...(ec2?.vpcs.values() ?? [])].filter((v) => v.tags['kubeplane.dev/cluster-id']);
    expect([own(fra).length, own(dub).length]).toEqual([1, 1]);
    for (const i of [...live(fra), ...live(dub)]) expect(i.keyName).toBeTruthy();
    await destroyToNothing(w.kp, w.sandbox, 'two-regions');
  });
});
