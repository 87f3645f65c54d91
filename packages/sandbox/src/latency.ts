// The sandbox latency model: the figures of ../shared/latency-model.md (sourced there), as milliseconds.
// Benchmarks compute their floor from these same numbers.

/** A duration of the latency model as a triangular spread, in milliseconds of virtual time. */
export interface Spread {
  /** The model's typical value. */
  typicalMs: number;
  minMs: number;
  maxMs: number;
}

/**
 * The clouds' latency model (latency-model.md, which gives the sources): API calls and boots, in milliseconds of virtual
 * time, a figure or a Spread to `sample`. The emulators and the benchmarks' floors use these same numbers.
 */
export const LATENCY = {
  /** EC2 RunInstances API call: 1.5 s (daemonology.net, 2021). */
  ec2RunInstancesCall: 1_500,
  /** EC2 pending -> running: 16.5 s, spread 5–20 s (brevdev ec2-coldboot-research; daemonology). */
  ec2PendingToRunning: { typicalMs: 16_500, minMs: 5_000, maxMs: 20_000 },
  /** Hetzner server create action to running: 75 s, spread 60–90 s (ansible-collections/hetzner.hcloud#488). */
  hetznerCreateToRunning: { typicalMs: 75_000, minMs: 60_000, maxMs: 90_000 },
  /** Route 53 change to INSYNC: 60 s (Route 53 documentation). */
  route53ChangeToInsync: 60_000,
  /** One API call's latency, any provider: 0.2 s (estimate). */
  apiCall: 200,
  /** EC2 terminate: shutting-down to terminated (estimate, not in the model: the same order as a boot). */
  ec2ShuttingDownToTerminated: 15_000,
  /** Hetzner DNS rrset change action to success (estimate, not in latency-model.md: no published figure). */
  hetznerDnsChange: 5_000,
  /** How long a new EC2 instance may be missing from DescribeInstances (eventual consistency; estimate). */
  ec2DescribeLag: { typicalMs: 2_000, minMs: 0, maxMs: 5_000 },
} as const;

/** A value in the spread, centred on the typical one (triangular distribution). */
export function sample(spread: Spread, random: () => number): number {
  const { minMs: a, maxMs: b, typicalMs: c } = spread;
  if (b <= a) return c;
  const u = random();
  const f = (c - a) / (b - a);
  return u < f ? a + Math.sqrt(u * (b - a) * (c - a)) : b - Math.sqrt((1 - u) * (b - a) * (b - c));
}
