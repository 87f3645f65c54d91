// `blkid -s <TYPE|UUID|LABEL> -o value <dev>` in a sandbox machine: the filesystem mkfs.ext4 recorded on the disk; exit 2
// and nothing printed when it holds none (blkid(8): "no identified devices").
import { main } from './control-client.js';
import { diskNamed, filesystemOf, refuseHostDevice } from './disks.js';

main(async (args) => {
  const tag = args[args.indexOf('-s') + 1] ?? 'TYPE';
  const device = args[args.length - 1] ?? '';
  const disk = diskNamed(device);
  if (!disk) refuseHostDevice('blkid', device);
  const fs = filesystemOf(disk);
  if (!fs) return 2;
  process.stdout.write(`${tag === 'UUID' ? fs.uuid : tag === 'LABEL' ? fs.label : fs.type}\n`);
});
