// EBS volumes made by RunInstances: the AMI's root volume and the request's `BlockDeviceMapping.N` volumes, attached
// from launch and deleted with the instance when DeleteOnTermination; DescribeVolumes and the instance's mappings.
// Sources: API_RunInstances.html, API_BlockDeviceMapping.html, API_EbsBlockDevice.html, API_DescribeVolumes.html.
import { EmulatorError } from '../emulator/index.js';
import { el, items, queryMembers, t } from '../xml.js';
import { type Ec2Routes, result } from './dialect.js';
import { offsetPage, selectDescribed, tagAttr } from './filters.js';
import type { Instance, Tags, Volume } from './resources.js';
import { tagsXml } from './tags.js';
import type { Ec2World } from './world.js';

/** Canonical's Ubuntu AMIs map their root device, /dev/sda1, to an 8 GiB snapshot (`aws ec2 describe-images`; catalog.ts). */
export const ROOT_DEVICE = '/dev/sda1';

/** EbsBlockDevice.VolumeSize bounds by type (API_EbsBlockDevice.html: gp2/gp3 1-16384, io1/io2 4-16384/65536, st1/sc1 125-16384, standard 1-1024). */
const SIZE_LIMITS: Record<string, [number, number]> = {
  gp2: [1, 16_384],
  gp3: [1, 16_384],
  io1: [4, 16_384],
  io2: [4, 65_536],
  st1: [125, 16_384],
  sc1: [125, 16_384],
  standard: [1, 1_024],
};

/** Device names a block device mapping may use on an HVM instance (device_naming.html: /dev/sd[a-z], /dev/xvd[a-z]…). */
const DEVICE_NAME = /^\/dev\/(sd[a-z][1-9]?|xvd[a-z]{1,2})$/;

export interface RequestedVolume {
  device: string;
  size: number;
  type: string;
  deleteOnTermination: boolean;
}

/** The request's `BlockDeviceMapping.N` EBS volumes, checked as EC2 checks them before it launches anything. */
export function requestedVolumes(p: URLSearchParams): RequestedVolume[] {
  const out: RequestedVolume[] = [];
  for (const m of queryMembers(p, 'BlockDeviceMapping')) {
    const device = m.get('DeviceName') ?? '';
    if (!DEVICE_NAME.test(device)) throw new EmulatorError(400, 'InvalidParameterValue', `Invalid device name ${device}`);
    if (out.some((v) => v.device === device)) throw new EmulatorError(400, 'InvalidParameterValue', `Duplicate device name ${device}`);
    if (m.get('NoDevice') !== null || m.get('VirtualName') !== null) continue;
    const type = m.get('Ebs.VolumeType') ?? 'gp2';
    const limits = SIZE_LIMITS[type];
    if (!limits) throw new EmulatorError(400, 'InvalidParameterValue', `Value (${type}) for parameter volumeType is invalid.`);
    const raw = m.get('Ebs.VolumeSize');
    if (raw === null) throw new EmulatorError(400, 'MissingParameter', `The request must contain the parameter size or snapshotId for ${device}`);
    const size = Number(raw);
    if (!Number.isInteger(size) || size < limits[0] || size > limits[1])
      throw new EmulatorError(400, 'InvalidParameterValue', `Volume of ${raw}GiB is out of range for volume type ${type}: ${limits[0]}-${limits[1]} GiB.`);
    const dot = m.get('Ebs.DeleteOnTermination');
    // "Default: true" for volumes a block device mapping creates at launch (API_EbsBlockDevice.html, DeleteOnTermination).
    out.push({ device, size, type, deleteOnTermination: dot === null ? true : dot === 'true' });
  }
  return out;
}

/** The AMI's root volume: its snapshot, size and type (catalog.ts, imageDetails). */
export interface RootVolume {
  snapshotId: string;
  size: number;
  type: string;
}

/**
 * Makes the launched instance's volumes: its root from the AMI's snapshot (the request may map the root itself, with
 * another size or type) and the requested ones.
 */
export function createVolumes(w: Ec2World, instance: Instance, requested: readonly RequestedVolume[], tags: Tags, root: RootVolume): void {
  const mapsRoot = requested.some((v) => v.device === ROOT_DEVICE);
  const all = mapsRoot ? requested : [{ device: ROOT_DEVICE, size: root.size, type: root.type, deleteOnTermination: true }, ...requested];
  for (const v of all) {
    const volume: Volume = {
      id: w.id('vol'),
      ...v,
      ...(v.device === ROOT_DEVICE ? { snapshotId: root.snapshotId } : {}),
      zone: instance.zone,
      createdAt: w.now(),
      tags: { ...tags },
      instanceId: instance.id,
    };
    w.volumes.set(volume.id, volume);
  }
}

/** The volumes attached to an instance, in mapping order: what DescribeInstances lists as its blockDeviceMapping. */
export function attachedVolumes(w: Ec2World, instanceId: string): Volume[] {
  return w.volumes.filter((v) => v.instanceId === instanceId && w.volumeState(v) === 'in-use');
}

/** An instance's `blockDeviceMapping` (InstanceBlockDeviceMapping: deviceName, ebs{volumeId, status, attachTime, deleteOnTermination}). */
export function blockDeviceMappingXml(w: Ec2World, instance: Instance): string {
  return items(
    'blockDeviceMapping',
    attachedVolumes(w, instance.id),
    (v) =>
      t('deviceName', v.device) +
      el(
        'ebs',
        t('volumeId', v.id),
        t('status', 'attached'),
        t('attachTime', new Date(v.createdAt).toISOString()),
        t('deleteOnTermination', v.deleteOnTermination),
      ),
  );
}

function volumeXml(w: Ec2World, v: Volume): string {
  const state = w.volumeState(v);
  return (
    t('volumeId', v.id) +
    t('size', v.size) +
    t('snapshotId', v.snapshotId ?? '') +
    t('availabilityZone', v.zone) +
    t('status', state) +
    t('createTime', new Date(v.createdAt).toISOString()) +
    items(
      'attachmentSet',
      state === 'in-use' ? [v] : [],
      (a) =>
        t('volumeId', a.id) +
        t('instanceId', a.instanceId) +
        t('device', a.device) +
        t('status', 'attached') +
        t('attachTime', new Date(a.createdAt).toISOString()) +
        t('deleteOnTermination', a.deleteOnTermination),
    ) +
    t('volumeType', v.type) +
    // gp3's baseline: 3,000 IOPS and 125 MiB/s whatever the size (ebs-volume-types.html).
    (v.type === 'gp3' ? t('iops', 3000) + t('throughput', 125) : v.type === 'gp2' ? t('iops', Math.min(16_000, Math.max(100, v.size * 3))) : '') +
    t('encrypted', false) +
    t('multiAttachEnabled', false) +
    tagsXml(v.tags)
  );
}

function volumeAttr(w: Ec2World, v: Volume, name: string): string[] {
  const attached = w.volumeState(v) === 'in-use';
  switch (name) {
    case 'volume-id':
      return [v.id];
    case 'size':
      return [String(v.size)];
    case 'volume-type':
      return [v.type];
    case 'status':
      return [w.volumeState(v)];
    case 'availability-zone':
      return [v.zone];
    case 'attachment.instance-id':
      return attached ? [v.instanceId] : [];
    case 'attachment.device':
      return attached ? [v.device] : [];
    case 'attachment.status':
      return attached ? ['attached'] : [];
    case 'attachment.delete-on-termination':
      return attached ? [String(v.deleteOnTermination)] : [];
    case 'attachment.attach-time':
      return attached ? [new Date(v.createdAt).toISOString()] : [];
    case 'create-time':
      return [new Date(v.createdAt).toISOString()];
    case 'snapshot-id':
      return v.snapshotId ? [v.snapshotId] : [];
    case 'encrypted':
    case 'multi-attach-enabled':
    case 'fast-restored':
      return ['false'];
    default:
      return tagAttr(v.tags, name);
  }
}

function describeVolumes(w: Ec2World, p: URLSearchParams): string {
  const live = w.volumes.filter((v) => w.volumeState(v) !== 'deleted');
  const matched = selectDescribed(
    live,
    p,
    'DescribeVolumes',
    'VolumeId',
    (v) => v.id,
    (v, n) => volumeAttr(w, v, n),
    (id) =>
      /^vol-(?:[0-9a-f]{8}|[0-9a-f]{17})$/.test(id)
        ? new EmulatorError(400, 'InvalidVolume.NotFound', `The volume '${id}' does not exist.`)
        : new EmulatorError(400, 'InvalidParameterValue', `Invalid id: "${id}" (expecting "vol-...")`),
  );
  const page = offsetPage(matched, p, 500);
  return items('volumeSet', page.items, (v) => volumeXml(w, v)) + t('nextToken', page.next);
}

export function volumeRoutes(w: Ec2World): Ec2Routes {
  return [['DescribeVolumes', ({ body }) => result(describeVolumes(w, body))]];
}
