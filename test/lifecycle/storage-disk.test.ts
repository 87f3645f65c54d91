// storageDiskSize through the whole lifecycle on the sandbox clouds: each compute node gets a separate disk of that
// size as its cloud makes one (an EBS volume in the EC2 launch, a Hetzner volume attached to the server), control
// planes get none, the default is the document kind's (Claudie 50, native 0), a replaced node gets its disk again,
// and destroy leaves no volume behind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DescribeInstancesCommand, DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import type { Kubeplane } from '@kubeplane/sdk';
import { type Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

/** A Claudie InputManifest: a Hetzner control plane, Hetzner workers without storageDiskSize, AWS workers with 200. */
const claudie = (htzWorkerDisk = '') => `apiVersion: claudie.io/v1beta1
kind: InputManifest
metadata:
  name: disks
spec:
  providers:
    - name: hetzner-1
      providerType: hetzner
      secretRef: { name: hetzner-secret, namespace: claudie }
    - name: aws-1
      providerType: aws
      secretRef: { name: aws-secret, namespace: claudie }
  nodePools:
    dynamic:
      - name: htz-ctrl
        providerSpec: { name: hetzner-1, region: fsn1, zone: fsn1-dc14 }
        count: 1
        serverType: cpx32
        image: ubuntu-24.04
        storageDiskSize: 100
      - name: htz-cmpt
        providerSpec: { name: hetzner-1, region: fsn1, zone: fsn1-dc14 }
        count: 2
        serverType: cpx32
        image: ubuntu-24.04${htzWorkerDisk}
      - name: aws-cmpt
        providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }
        count: 1
        serverType: t3.large
        image: ami-0965bd5ba4d59211c
        storageDiskSize: 200
  kubernetes:
    clusters:
      - name: disks
        version: v1.34.2
        network: 192.168.2.0/24
        pools:
          control: [htz-ctrl]
          compute: [htz-cmpt, aws-cmpt]
`;

/** The same cluster as a native document: no `spec`, the providers' credentials from the environment. */
function nativeOf(text: string): string {
  const [head = '', spec = ''] = text.split('spec:\n');
  return (
    head.replace('apiVersion: claudie.io/v1beta1\nkind: InputManifest', 'apiVersion: kubeplane.dev/v1\nkind: Manifest') +
    spec
      .replace(/^ {2}/gm, '')
      .replace('secretRef: { name: hetzner-secret, namespace: claudie }', 'secretRef: { env: { credentials: HCLOUD_TOKEN } }')
      .replace('secretRef: { name: aws-secret, namespace: claudie }', 'secretRef: { env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY } }')
  );
}

async function applyAndRun(kp: Kubeplane, text: string): Promise<void> {
  await kp.apply(manifestOf(text));
  const run = await kp.run({ maxMessages: 20_000 });
  expect(run.stopped).toBe('idle');
  expect((await kp.status('disks')).clusters.disks?.state).toBe('DONE');
}

interface HetznerVolume {
  id: number;
  name: string;
  size: number;
  server: number | null;
  format: string | null;
  labels: Record<string, string>;
}

/** GET /volumes of the sandbox's Hetzner project, as a client sees it. */
async function hetznerVolumes(): Promise<HetznerVolume[]> {
  const response = await fetch('https://api.hetzner.cloud/v1/volumes', { headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` } });
  return ((await response.json()) as { volumes: HetznerVolume[] }).volumes;
}

async function hetznerServerId(name: string): Promise<number> {
  const response = await fetch(`https://api.hetzner.cloud/v1/servers?name=${name}`, {
    headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` },
  });
  return ((await response.json()) as { servers: Array<{ id: number }> }).servers[0]?.id ?? -1;
}

const ec2 = () =>
  new EC2Client({
    region: 'eu-central-1',
    credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
  });

describe('storageDiskSize on the sandbox clouds', () => {
  it('gives every compute node a disk of that size (Claudie default 50 on Hetzner, 200 as an EBS volume) and the control plane none', async () => {
    const w = sandboxWorld(3);
    sandbox = w.sandbox;
    await applyAndRun(w.kp, claudie());

    const volumes = await hetznerVolumes();
    expect(volumes.map((v) => [v.name.replace(/^.*-(htz-\w+-\d+)-storage$/, '$1'), v.size, v.format]).sort()).toEqual([
      ['htz-cmpt-01', 50, 'ext4'],
      ['htz-cmpt-02', 50, 'ext4'],
    ]);
    for (const v of volumes) {
      // Attached to its node's server and labelled like it.
      expect(v.server).toBe(await hetznerServerId(v.name.replace(/-storage$/, '')));
      expect(v.labels).toMatchObject({ 'kubeplane.dev/nodepool': 'htz-cmpt' });
      expect(v.labels['kubeplane.dev/cluster-id']).toMatch(/^disks-/);
    }

    const client = ec2();
    const data = await client.send(new DescribeVolumesCommand({ Filters: [{ Name: 'attachment.device', Values: ['/dev/sdf'] }] }));
    expect(data.Volumes?.map((v) => [v.Size, v.VolumeType, v.Attachments?.[0]?.DeleteOnTermination, v.State])).toEqual([[200, 'gp3', true, 'in-use']]);
    const instanceId = data.Volumes?.[0]?.Attachments?.[0]?.InstanceId ?? '';
    const described = await client.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
    const instance = described.Reservations?.[0]?.Instances?.[0];
    expect(instance?.Tags?.find((t) => t.Key === 'kubeplane.dev/nodepool')?.Value).toBe('aws-cmpt');
    expect(instance?.BlockDeviceMappings?.map((m) => m.DeviceName)).toEqual(['/dev/sda1', '/dev/sdf']);
    client.destroy();

    // The control plane's storageDiskSize (100) is ignored, as Claudie ignores it for control pools.
    expect(w.sandbox.inventory().filter((i) => i.kind === 'volume' && i.cloud === 'hetzner')).toHaveLength(2);
  });

  it('gives a native document no disk where storageDiskSize is absent, and the written one where it is given', async () => {
    const w = sandboxWorld(4);
    sandbox = w.sandbox;
    await applyAndRun(w.kp, nativeOf(claudie()));
    expect(await hetznerVolumes()).toEqual([]);
    const client = ec2();
    const data = await client.send(new DescribeVolumesCommand({ Filters: [{ Name: 'attachment.device', Values: ['/dev/sdf'] }] }));
    expect(data.Volumes?.map((v) => v.Size)).toEqual([200]);
    client.destroy();
  });

  it('gives a replaced node a new disk (the old one deleted with its machine), and destroy leaves no volume in any cloud', async () => {
    const w = sandboxWorld(5);
    sandbox = w.sandbox;
    const text = claudie('\n        storageDiskSize: 60');
    await applyAndRun(w.kp, text);
    const before = await hetznerVolumes();
    expect(before.map((v) => v.size)).toEqual([60, 60]);
    const victim = before[0]!;
    const node = victim.name.replace(/-storage$/, '');
    const oldServer = await hetznerServerId(node);
    // Its kubelet hangs past remediation.notReadyMinutes: the engine deletes the machine and makes it again.
    expect(w.sandbox.kubernetes.hangKubelet(node)).toBe(true);
    w.sandbox.clock.advance(15 * 60_000);
    await w.kp.apply(manifestOf(text), { reconcile: true });
    expect((await w.kp.run({ maxMessages: 20_000 })).stopped).toBe('idle');
    const newServer = await hetznerServerId(node);
    expect(newServer).toBeGreaterThan(oldServer);
    const after = await hetznerVolumes();
    expect(after.filter((v) => v.name === victim.name).map((v) => [v.size, v.server])).toEqual([[60, newServer]]);
    expect(after.find((v) => v.name === victim.name)?.id).not.toBe(victim.id);
    expect(after).toHaveLength(2);

    await w.kp.destroy('disks');
    expect((await w.kp.run({ maxMessages: 20_000 })).stopped).toBe('idle');
    expect(w.sandbox.inventory()).toEqual([]);
    expect(await hetznerVolumes()).toEqual([]);
  });

  it("gives each Crusoe VM of a compute pool a data disk of that size (the engine passes it to Crusoe's provider too)", async () => {
    const example = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'hybrid-hetzner-crusoe-gpu.yaml'), 'utf8');
    const w = sandboxWorld(6);
    sandbox = w.sandbox;
    await w.kp.apply(manifestOf(example.replace('serverType: h100-80gb-sxm-ib.8x', 'serverType: h100-80gb-sxm-ib.8x\n      storageDiskSize: 500')));
    expect((await w.kp.run({ maxMessages: 20_000 })).stopped).toBe('idle');
    const vms = [...w.sandbox.crusoe.vms.values()];
    const disks = [...w.sandbox.crusoe.disks.values()];
    expect(vms).toHaveLength(2);
    expect(disks.map((d) => [d.name, d.sizeGiB, d.attachedTo]).sort()).toEqual(vms.map((v) => [`${v.name}-storage`, 500, v.id]).sort());
    // The Hetzner control plane has none.
    expect(await hetznerVolumes()).toEqual([]);
  });
});
