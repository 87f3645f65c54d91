// Storage: persistent SSD disks and shared volumes, created and deleted by operations; a disk attached to a VM
// stays until the VM is deleted, then outlives it detached.
import { createHash } from 'node:crypto';
import { type Json, reply } from '../emulator/index.js';
import { badRequest, conflict, notFound } from './dialect.js';
import { CRUSOE_LATENCY, type Disk } from './model.js';
import { type CrusoeRouter, idOf } from './router.js';
import type { CrusoeWorld } from './world.js';

/** AttachedDiskV1.block_size / DiskV1.block_size: bytes; the swagger's example and the default of DisksPostRequestV1. */
const DISK_BLOCK_SIZE = 4096;
/** The creation time of disks saved before the emulator kept one. */
const DISK_EPOCH = '2026-01-01T00:00:00Z';

/** DiskV1.serial_number, in the example's form (19 upper-case hex digits), from the disk's id. */
export function diskSerialNumber(id: string): string {
  return createHash('sha256').update(`disk-serial/${id}`).digest('hex').slice(0, 19).toUpperCase();
}

/** The fields DiskV1 and AttachedDiskV1 share (crusoe-api-v1-swagger.json), all of them required there. */
export function diskFields(w: CrusoeWorld, d: Pick<Disk, 'id' | 'name' | 'type' | 'sizeGiB' | 'location' | 'createdAt'>): Json {
  const created = d.createdAt === undefined ? DISK_EPOCH : w.iso(d.createdAt);
  return {
    id: d.id,
    name: d.name,
    type: d.type,
    size: `${d.sizeGiB}GiB`,
    location: d.location,
    block_size: DISK_BLOCK_SIZE,
    serial_number: diskSerialNumber(d.id),
    created_at: created,
    updated_at: created,
  };
}

export function diskJson(w: CrusoeWorld, d: Disk): Json {
  return { ...diskFields(w, d), attached_to: d.attachedTo ? [{ vm_id: d.attachedTo, attachment_type: 'data', mode: 'read-write' }] : [] };
}

export function storageRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  const requireDisk = (id: string) => w.disks.require(id, () => notFound(`disk ${id} not found`));
  r.project('GET /storage/disks', () => reply({ items: [...w.disks.values()].map((d) => diskJson(w, d)) }));
  r.project('POST /storage/disks', ({ body }) => {
    const type = String(body['type'] ?? 'persistent-ssd');
    if (type !== 'persistent-ssd' && type !== 'shared-volume') throw badRequest(`disk type must be persistent-ssd or shared-volume`);
    const m = /^(\d+)(GiB|TiB)$/.exec(String(body['size'] ?? ''));
    if (!m) throw badRequest('size must look like 100GiB or 1TiB');
    const sizeGiB = Number(m[1]) * (m[2] === 'TiB' ? 1024 : 1);
    // Limits from the CSI driver, which cites the docs (crusoe-notes.md §2.4).
    if (type === 'persistent-ssd' && (sizeGiB < 1 || sizeGiB > 10 * 1024)) throw badRequest('persistent-ssd disks are 1 GiB to 10 TiB');
    if (type === 'shared-volume' && (sizeGiB < 1024 || sizeGiB % 1024 !== 0)) throw badRequest('shared volumes are at least 1 TiB, in whole TiB');
    const d: Disk = {
      id: w.uuid(),
      name: w.name(body['name'], w.disks.values(), 'disk'),
      type,
      sizeGiB,
      location: w.location(body['location']),
      ready: false,
      createdAt: w.now(),
    };
    w.disks.set(d.id, d);
    return reply(w.startOperation('storage/disks', d.id, CRUSOE_LATENCY.diskCreate, { kind: 'disk-created', id: d.id }));
  });
  r.project('GET /storage/disks/{id}', (call) => reply(diskJson(w, requireDisk(idOf(call)))));
  r.project('DELETE /storage/disks/{id}', (call) => {
    const d = requireDisk(idOf(call));
    if (d.attachedTo) throw conflict('in_use', `disk ${d.name} is attached to VM ${d.attachedTo}; detach it or delete the VM first`);
    return reply(w.startOperation('storage/disks', d.id, CRUSOE_LATENCY.diskDelete, { kind: 'disk-deleted', id: d.id }));
  });
  r.otherMethods('/storage/disks/{id}', (call) => {
    requireDisk(idOf(call));
    return badRequest(`${call.method} on a disk is not modelled by the sandbox`);
  });
}
