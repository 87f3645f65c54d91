// `lsblk` in a sandbox machine (util-linux lsblk(8)): lists only the machine's own data disks (disks.ts), never the
// host's. Forms the bootstrap uses: `-dnpo NAME,TYPE` (every disk, full path), `-dno TYPE <dev>`, `-no PKNAME <dev>`
// (the machine's root is an overlay, on no disk: empty).
import { main, StandinFailure } from './control-client.js';
import { diskNamed, machineDisks } from './disks.js';

main(async (args) => {
  const columns = args.find((a, i) => args[i - 1]?.endsWith('o') && a === a.toUpperCase())?.split(',') ?? [];
  const device = args.find((a) => a.startsWith('/'));
  if (columns.length === 0) throw new StandinFailure('lsblk: the sandbox stands in for -o NAME,TYPE,PKNAME,SIZE only', 1);
  const disks = device ? [diskNamed(device)].filter((d) => d !== undefined) : machineDisks();
  if (device && disks.length === 0) return 32;
  for (const d of disks) {
    const cell = (c: string) => (c === 'NAME' ? d.device : c === 'TYPE' ? 'disk' : c === 'SIZE' ? `${d.sizeGB}G` : c === 'PKNAME' ? '' : '');
    process.stdout.write(`${columns.map(cell).join(' ')}\n`);
  }
});
