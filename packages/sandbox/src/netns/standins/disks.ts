// The data disks of a sandbox machine (a node's storage disk: an EBS volume, a Hetzner volume, a Crusoe disk), as the
// block-device tools inside it see them. Machines share the host's kernel and /dev, so they must never see or touch
// the host's disks: lsblk, udevadm, blkid, mkfs.ext4 and mount stand in, and a disk is a folder on the machine's own
// disk (`<machine>/data-disks/<by-id>/`): `fs.json` once formatted (type, UUID, label), `data/` what it holds.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StandinFailure } from './control-client.js';

/** Set by the world in each machine: JSON `[{byId, sizeGB}]` of the disks its cloud attached, and where they live. */
export const DISKS_ENV = 'KUBEPLANE_NETNS_DISKS';
export const DISK_DIR_ENV = 'KUBEPLANE_NETNS_DISK_DIR';

export interface MachineDisk {
  byId: string;
  sizeGB: number;
  /** The kernel name the machine sees (`/dev/kpdisk1`): a name only; no device node exists. */
  device: string;
  dir: string;
}

export interface DiskFilesystem {
  type: string;
  uuid: string;
  label: string;
}

export function machineDisks(): MachineDisk[] {
  const listed = JSON.parse(process.env[DISKS_ENV] ?? '[]') as Array<{ byId: string; sizeGB: number }>;
  const root = process.env[DISK_DIR_ENV] ?? '';
  return listed.map((d, i) => ({ ...d, device: `/dev/kpdisk${i + 1}`, dir: join(root, d.byId) }));
}

export function diskNamed(name: string): MachineDisk | undefined {
  return machineDisks().find((d) => d.device === name || `/dev/disk/by-id/${d.byId}` === name);
}

export function filesystemOf(disk: MachineDisk): DiskFilesystem | undefined {
  const file = join(disk.dir, 'fs.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DiskFilesystem) : undefined;
}

/** mkfs: a new filesystem, and the disk's content emptied (the folder `data/` made anew). */
export function makeFilesystem(disk: MachineDisk, type: string, label: string): DiskFilesystem {
  const fs: DiskFilesystem = { type, uuid: randomUUID(), label };
  mkdirSync(join(disk.dir, 'data'), { recursive: true });
  writeFileSync(join(disk.dir, 'fs.json'), JSON.stringify(fs));
  return fs;
}

/** The real program of that name, for what is no disk of the machine's (util-linux and udev on the host). */
export function refuseHostDevice(command: string, device: string): never {
  throw new StandinFailure(
    `${command}: ${device}: not a disk of this sandbox machine (its disks: ${
      machineDisks()
        .map((d) => d.device)
        .join(', ') || 'none'
    })`,
    32,
  );
}
