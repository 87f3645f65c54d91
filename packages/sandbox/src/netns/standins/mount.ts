// `mount <mountpoint>` in a sandbox machine, for an /etc/fstab line `UUID=<uuid> <mountpoint> ...` of one of the
// machine's disks (mount(8): a single argument is looked up in fstab): the disk's content is bind-mounted there, in
// the machine's own mount namespace. Anything else goes to the real mount(8).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main, StandinFailure } from './control-client.js';
import { filesystemOf, machineDisks } from './disks.js';

function real(args: string[]): number {
  return spawnSync('/usr/bin/mount', args, { stdio: 'inherit' }).status ?? 1;
}

main(async (args) => {
  if (args.length !== 1 || !existsSync('/etc/fstab')) return real(args);
  const target = args[0] ?? '';
  const line = readFileSync('/etc/fstab', 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((f) => f[1] === target && f[0]?.startsWith('UUID='));
  const uuid = line?.[0]?.slice('UUID='.length);
  const disk = machineDisks().find((d) => filesystemOf(d)?.uuid === uuid);
  if (!line || !disk) {
    if (line) throw new StandinFailure(`mount: ${target}: can't find UUID=${uuid ?? ''}.`, 32);
    return real(args);
  }
  return real(['--bind', join(disk.dir, 'data'), target]);
});
