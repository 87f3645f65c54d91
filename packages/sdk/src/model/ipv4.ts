// IPv4 addresses and CIDR blocks as numbers: parsing, containment and host allocation for overlays.

/** An IPv4 CIDR block. */
export interface Cidr {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
  text: string;
}

const OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const OCTET_GROUP = OCTET.source.slice(1, -1);

/** What parseIPv4 and parseCidr accept, as JSON Schema patterns (host bits are left to parseCidr). */
export const IPV4_PATTERNS = {
  address: `^${OCTET_GROUP}(\\.${OCTET_GROUP}){3}$`,
  cidr: `^${OCTET_GROUP}(\\.${OCTET_GROUP}){3}/(3[0-2]|[0-2]?\\d)$`,
} as const;

/** An IPv4 address as an unsigned 32-bit number, or null when the text is not one. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => OCTET.test(p))) return null;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

/** An unsigned 32-bit number as a dotted IPv4 address. */
export function formatIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** Parses `a.b.c.d/n`; host bits must be zero so the written block is the block meant. */
export function parseCidr(text: string): Cidr | { error: string } {
  const m = /^([^/]+)\/(\d{1,2})$/.exec(text);
  if (!m) return { error: `"${text}" is not a CIDR block; write it as a.b.c.d/prefix, e.g. 10.0.0.0/24` };
  const ip = parseIPv4(m[1] ?? '');
  const prefix = Number(m[2]);
  if (ip === null) return { error: `"${m[1]}" in "${text}" is not an IPv4 address` };
  if (prefix > 32) return { error: `prefix /${prefix} in "${text}" is larger than 32` };
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  if ((ip & mask) >>> 0 !== ip) {
    return { error: `"${text}" has host bits set; the network address for /${prefix} is ${formatIPv4((ip & mask) >>> 0)}/${prefix}` };
  }
  return { base: ip, prefix, text };
}

/** Whether parsing a CIDR gave a block rather than an error. */
export function isCidr(value: Cidr | { error: string }): value is Cidr {
  return 'base' in value;
}

/** Usable host addresses (network and broadcast excluded for prefixes up to /30). */
export function usableHosts(cidr: Cidr): number {
  const size = 2 ** (32 - cidr.prefix);
  return cidr.prefix >= 31 ? size : size - 2;
}

/** The n-th usable host (0-based) of the block. */
export function hostAt(cidr: Cidr, index: number): string {
  const offset = cidr.prefix >= 31 ? index : index + 1;
  return formatIPv4(cidr.base + offset);
}

/** The index of an address among the block's usable hosts, or null when it is not one of them. */
export function hostIndexOf(cidr: Cidr, ip: string): number | null {
  const n = parseIPv4(ip);
  if (n === null) return null;
  const offset = n - cidr.base - (cidr.prefix >= 31 ? 0 : 1);
  return offset >= 0 && offset < usableHosts(cidr) ? offset : null;
}

/** Whether two CIDR blocks share an address. */
export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  const aEnd = a.base + 2 ** (32 - a.prefix) - 1;
  const bEnd = b.base + 2 ** (32 - b.prefix) - 1;
  return a.base <= bEnd && b.base <= aEnd;
}
