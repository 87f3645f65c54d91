// IPv4 arithmetic for the overlay and service networks: parsing CIDRs, the first service IP (the
// `kubernetes` Service's ClusterIP) and overlay addresses by index.

export function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function toInt(ip: string): number {
  if (!isIpv4(ip)) throw new Error(`not an IPv4 address: ${ip}`);
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function toIp(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

export interface Ipv4Cidr {
  network: string;
  prefix: number;
}

export function parseCidr(cidr: string): Ipv4Cidr {
  const [address, prefixText] = cidr.split('/');
  const prefix = Number(prefixText);
  if (address === undefined || !isIpv4(address) || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) {
    throw new Error(`not an IPv4 CIDR: ${cidr}`);
  }
  const size = 2 ** (32 - prefix);
  return { network: toIp(Math.floor(toInt(address) / size) * size), prefix };
}

export function cidrContains(cidr: string, ip: string): boolean {
  const { network, prefix } = parseCidr(cidr);
  const size = 2 ** (32 - prefix);
  const value = toInt(ip);
  return value >= toInt(network) && value < toInt(network) + size;
}

/** The n-th host address of a network (1-based: index 1 is network + 1). */
export function hostAddress(cidr: string, index: number): string {
  const { network, prefix } = parseCidr(cidr);
  const size = 2 ** (32 - prefix);
  if (index < 1 || index >= size - 1) throw new Error(`host index ${index} is outside ${cidr}`);
  return toIp(toInt(network) + index);
}

/** The ClusterIP of the `kubernetes` Service: the first address of the service network. */
export function firstServiceIp(serviceCidr: string): string {
  return hostAddress(serviceCidr, 1);
}
