// MAC addresses of servers' private network interfaces. Hetzner's start 86:00:00 (a locally administered prefix);
// each interface gets its own, derived from the sandbox's seed and the server and network ids: a world built the same
// way with the same seed repeats them, and they take nothing from the random sequence the rest of the world draws on.
import { createHash } from 'node:crypto';

/** A MAC for `server`'s interface in `network`, different from every one in `taken`. */
export function privateNetMac(seed: number, server: number, network: number, taken: ReadonlySet<string>): string {
  for (let attempt = 0; ; attempt++) {
    const digest = createHash('sha256').update(`${seed}/${server}/${network}/${attempt}`).digest();
    const mac = ['86', '00', '00', ...[0, 1, 2].map((i) => digest[i]!.toString(16).padStart(2, '0'))].join(':');
    if (!taken.has(mac)) return mac;
  }
}
