// MAC addresses of servers' private network interfaces. Hetzner's start 86:00:00 (a locally administered prefix);
// each interface gets its own, derived from the server and network ids, so a world built the same way (a seeded
// sandbox) repeats them without drawing on the sandbox's random sequence.
import { createHash } from 'node:crypto';

/** A MAC for `server`'s interface in `network`, different from every one in `taken`. */
export function privateNetMac(server: number, network: number, taken: ReadonlySet<string>): string {
  for (let attempt = 0; ; attempt++) {
    const digest = createHash('sha256').update(`${server}/${network}/${attempt}`).digest();
    const mac = ['86', '00', '00', ...[0, 1, 2].map((i) => digest[i]!.toString(16).padStart(2, '0'))].join(':');
    if (!taken.has(mac)) return mac;
  }
}
