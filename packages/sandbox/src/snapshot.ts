// The sandbox world as one plain, versioned JSON value: what `kubeplane --sandbox` keeps under the state
// directory between commands, so that separate runs act on the same clouds and clusters.
import { KubeplaneError } from '@kubeplane/sdk';
import type { FaultInjectorState } from './faults.js';
import type { HetznerEmulatorState } from './hetzner/emulator.js';
import type { Ec2EmulatorState } from './ec2/emulator.js';
import type { Route53EmulatorState } from './route53/emulator.js';
import type { StsEmulatorState } from './sts/emulator.js';
import type { CrusoeEmulatorState } from './crusoe/emulator.js';
import type { CloudflareEmulatorState } from './cloudflare/emulator.js';
import type { KubernetesEmulatorState } from './kubernetes/emulator.js';

/** 2: Crusoe and Cloudflare joined the sandbox. */
export const SANDBOX_SNAPSHOT_VERSION = 2;

/**
 * Everything a Sandbox holds: virtual time, the random generator's state, request counters, fault rules in
 * effect, and every emulator's resources, counters and pending work (actions, changes, operations, boots, Describe
 * lag, the clusters' objects and scheduled kubelet and controller events). Maps are arrays of entries.
 *
 * Not in it: the credentials the emulators accept (given again on restore; default SANDBOX_CREDENTIALS), the
 * process-wide request-id counter of the wire responses (ids in headers, which no state refers to), and the
 * request logs the Crusoe and Cloudflare emulators keep for assertions.
 *
 * SECRET: the machines' user-data and Crusoe startup scripts are in it (twice: in the cloud emulators and in the
 * kubelets), and it holds cluster private keys (the CA key, bootstrap tokens). Write it with file mode 0600 and
 * never log it.
 */
export interface SandboxSnapshot {
  v: typeof SANDBOX_SNAPSHOT_VERSION;
  /** Virtual time, ms since the epoch. */
  clockMs: number;
  /** The seeded random generator's state (SeededRandom.state). */
  random: number;
  /** Wire requests per `<cloud> <operation>`. */
  calls: Array<[string, number]>;
  faults: FaultInjectorState;
  hetzner: HetznerEmulatorState;
  /** One per region, in the order the sandbox serves them (the first is `sandbox.ec2`). */
  ec2: Ec2EmulatorState[];
  route53: Route53EmulatorState;
  /** Roles and the sessions issued (absent in snapshots written before the sandbox had STS). */
  sts?: StsEmulatorState;
  crusoe: CrusoeEmulatorState;
  cloudflare: CloudflareEmulatorState;
  kubernetes: KubernetesEmulatorState;
}

/**
 * Checks that `value` (e.g. JSON read from a file) is a snapshot this version can restore. The check is of the
 * envelope, not of every field: snapshots are written by `Sandbox.snapshot()`, not by hand.
 */
export function asSandboxSnapshot(value: unknown): SandboxSnapshot {
  const o = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  if (!o)
    throw new KubeplaneError('invalid', 'the sandbox snapshot is not a JSON object; delete it to start from an empty sandbox', {
      resource: 'sandbox snapshot',
    });
  if (o['v'] !== SANDBOX_SNAPSHOT_VERSION) {
    throw new KubeplaneError(
      'invalid',
      `the sandbox snapshot has version ${JSON.stringify(o['v'])}; this kubeplane reads version ${SANDBOX_SNAPSHOT_VERSION}. ` +
        `Destroy the sandbox clusters with the kubeplane that made it, or delete it to start from an empty sandbox`,
      { resource: 'sandbox snapshot' },
    );
  }
  for (const key of ['clockMs', 'random'] as const) {
    if (typeof o[key] !== 'number' || !Number.isFinite(o[key]))
      throw new KubeplaneError('invalid', `the sandbox snapshot's ${key} is not a number; the file is damaged`, { resource: 'sandbox snapshot' });
  }
  for (const key of ['calls', 'ec2'] as const) {
    if (!Array.isArray(o[key]))
      throw new KubeplaneError('invalid', `the sandbox snapshot's ${key} is not a list; the file is damaged`, { resource: 'sandbox snapshot' });
  }
  for (const key of ['faults', 'hetzner', 'route53', 'crusoe', 'cloudflare', 'kubernetes'] as const) {
    if (o[key] === null || typeof o[key] !== 'object')
      throw new KubeplaneError('invalid', `the sandbox snapshot has no ${key}; the file is damaged`, { resource: 'sandbox snapshot' });
  }
  return o as unknown as SandboxSnapshot;
}
