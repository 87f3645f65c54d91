// The sandbox clouds' public IPv4 addresses: all in 198.18.0.0/15, the range RFC 2544 sets aside for benchmarking,
// which is never routed on the Internet. So an address a sandbox machine gets can become a real address on a bridge
// with no uplink (the netns mode) and nothing can ever leave the host for it. Each cloud (and each EC2 region) has a
// block of its own, so addresses never collide across clouds.

const BASE = (198 << 24) + (18 << 16);
const BLOCK_SIZE = 4096;
const BLOCKS = 32;

/**
 * Fixed blocks, in the order they were given out: Crusoe, Hetzner (servers and primary IPs), then EC2 regions (others
 * hash into the rest). Addresses already handed out live on in saved worlds, so the order never changes. A cloud's
 * descriptor names the owners it asks for (`publicAddressOwners`), and clouds/index.test.ts checks that no two clouds
 * share a block; the emulators import this file, so it cannot read the registry itself.
 */
const FIXED = [
  'crusoe',
  'hetzner',
  'ec2:eu-central-1',
  'ec2:eu-central-2',
  'ec2:eu-west-1',
  'ec2:eu-north-1',
  'ec2:us-east-1',
  'ec2:us-east-2',
  'ec2:us-west-2',
  'ec2:ap-southeast-1',
  // The other Regions every AWS account has enabled, served by default since the sandbox's account is a new account's.
  'ec2:us-west-1',
  'ec2:ca-central-1',
  'ec2:sa-east-1',
  'ec2:eu-west-2',
  'ec2:eu-west-3',
  'ec2:ap-northeast-1',
  'ec2:ap-northeast-2',
  'ec2:ap-northeast-3',
  'ec2:ap-southeast-2',
  'ec2:ap-south-1',
];

/** The block (0-31) of 198.18.0.0/15 whose addresses `owner` gets. */
export function publicAddressBlock(owner: string): number {
  const fixed = FIXED.indexOf(owner);
  if (fixed >= 0) return fixed;
  let h = 0;
  for (const c of owner) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return FIXED.length + (h % (BLOCKS - FIXED.length));
}

/** The `seq`-th public address of `owner` (a cloud's name, or `<cloud>:<region>`); 1-based, skipping .0 and .255. */
export function sandboxPublicAddress(owner: string, seq: number): string {
  const usable = Math.floor(BLOCK_SIZE / 256) * 254;
  const n = ((seq % usable) + usable) % usable;
  const value = BASE + publicAddressBlock(owner) * BLOCK_SIZE + Math.floor(n / 254) * 256 + (n % 254) + 1;
  return [24, 16, 8, 0].map((s) => (value >>> s) & 255).join('.');
}

/** True for addresses in 198.18.0.0/15. */
export function isSandboxPublicAddress(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number);
  return a === 198 && (b === 18 || b === 19);
}
