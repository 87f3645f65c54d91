// `udevadm info --query=symlink --name=<dev>` in a sandbox machine: the by-id link udev makes for the disk on the real
// cloud (SandboxVm.dataDisks), relative to /dev as udevadm prints it.
import { main } from './control-client.js';
import { diskNamed, refuseHostDevice } from './disks.js';

main(async (args) => {
  const name = args.find((a) => a.startsWith('--name='))?.slice('--name='.length) ?? '';
  const disk = diskNamed(name);
  if (!disk) refuseHostDevice('udevadm', name);
  process.stdout.write(`disk/by-id/${disk.byId}\n`);
});
