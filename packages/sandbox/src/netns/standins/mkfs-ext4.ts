// `mkfs.ext4 [-q] [-L label] <dev>` in a sandbox machine: records a new ext4 filesystem on the machine's disk (a new
// UUID, the content gone), as mke2fs(8) does; it refuses anything that is not one of the machine's disks.
import { main } from './control-client.js';
import { diskNamed, makeFilesystem, refuseHostDevice } from './disks.js';

main(async (args) => {
  const device = args[args.length - 1] ?? '';
  const disk = diskNamed(device);
  if (!disk) refuseHostDevice('mkfs.ext4', device);
  makeFilesystem(disk, 'ext4', args[args.indexOf('-L') + 1] ?? '');
});
