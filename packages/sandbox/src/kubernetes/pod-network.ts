// Pod addresses as a kubeadm cluster with Cilium in `ipam.mode=kubernetes` hands them out (the bootstrap script's
// cilium install): kube-controller-manager gives each node a /24 of the cluster's pod subnet as spec.podCIDR
// (--allocate-node-cidrs with kubeadm's networking.podSubnet, --node-cidr-mask-size 24 by default; pkg/controller/
// nodeipam/ipam/range_allocator.go), and the CNI gives each pod an address of its node's podCIDR; the agent's own
// router address (cilium_host) takes the first one. Pods on the host's network have the node's address.
// Here the lowest free range and the lowest free address are taken, so a seeded world repeats.

/** kube-controller-manager's default --node-cidr-mask-size for IPv4. */
export const NODE_CIDR_MASK = 24;

function toInt(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function toIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

function parse(cidr: string): { base: number; bits: number } | undefined {
  const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(cidr.trim());
  if (!m) return undefined;
  const bits = Number(m[2]);
  const size = 2 ** (32 - bits);
  return { base: Math.floor(toInt(m[1] ?? '') / size) * size, bits };
}

/**
 * The lowest range of `podSubnet` of `mask` bits (the controller manager's --node-cidr-mask-size) no node holds;
 * undefined when the subnet is not IPv4 or is full.
 */
export function allocateNodeCidr(podSubnet: string, taken: ReadonlySet<string>, mask = NODE_CIDR_MASK): string | undefined {
  const subnet = parse(podSubnet);
  if (!subnet || subnet.bits > mask || mask > 30) return undefined;
  const count = 2 ** (mask - subnet.bits);
  for (let i = 0; i < count; i++) {
    const cidr = `${toIp(subnet.base + i * 2 ** (32 - mask))}/${mask}`;
    if (!taken.has(cidr)) return cidr;
  }
  return undefined;
}

/** The lowest address of the node's range after the network address and the router's that no pod has. */
export function allocatePodIp(nodeCidr: string, taken: ReadonlySet<string>): string | undefined {
  const range = parse(nodeCidr);
  if (!range) return undefined;
  const size = 2 ** (32 - range.bits);
  for (let i = 2; i < size - 1; i++) {
    const ip = toIp(range.base + i);
    if (!taken.has(ip)) return ip;
  }
  return undefined;
}

/** Whether `ip` lies in `cidr`. */
export function inCidr(ip: string, cidr: string): boolean {
  const range = parse(cidr);
  if (!range || !/^\d+\.\d+\.\d+\.\d+$/.test(ip)) return false;
  return Math.floor(toInt(ip) / 2 ** (32 - range.bits)) * 2 ** (32 - range.bits) === range.base;
}
