// The sandbox world as one plain, versioned JSON value: what `kubeplane --sandbox` keeps under the state
// directory between commands, so that separate runs act on the same clouds and clusters.
import { KubeplaneError } from '@kubeplane/sdk';
import { SANDBOX_CLOUDS, type SandboxCloudStates } from './clouds/index.js';
import type { FaultInjectorState } from './faults.js';
import type { KubernetesEmulatorState } from './kubernetes/emulator.js';

/**
 * 2: Crusoe and Cloudflare joined the sandbox. 3: every cloud's state is under `clouds`, by the cloud's name, so
 * that a cloud joining the sandbox adds a key instead of a version (a snapshot without it restores that cloud empty).
 */
export const SANDBOX_SNAPSHOT_VERSION = 3;

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
  /** Each sandbox cloud's state (its descriptor's `state()`), by its name; a cloud missing here restores empty. */
  clouds: SandboxCloudStates;
  kubernetes: KubernetesEmulatorState;
}

/**
 * Checks that `value` (e.g. JSON read from a file) is a snapshot this version can restore. The check is of the
 * envelope, not of every field: snapshots are written by `Sandbox.snapshot()`, not by hand.
 */
export function asSandboxSnapshot(value: unknown): SandboxSnapshot {
  const damaged = (what: string) => new KubeplaneError('invalid', `the sandbox snapshot${what}; the file is damaged`, { resource: 'sandbox snapshot' });
  const record = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  const o = record(value);
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
    if (typeof o[key] !== 'number' || !Number.isFinite(o[key])) throw damaged(`'s ${key} is not a number`);
  }
  if (!Array.isArray(o['calls'])) throw damaged(`'s calls is not a list`);
  for (const key of ['faults', 'kubernetes', 'clouds'] as const) if (!record(o[key])) throw damaged(` has no ${key}`);
  const clouds = record(o['clouds']) ?? {};
  // A cloud this kubeplane does not have would be dropped by the next save: refused instead.
  const unknown = Object.keys(clouds).filter((name) => !SANDBOX_CLOUDS.some((c) => c.name === name));
  if (unknown.length > 0) {
    throw new KubeplaneError(
      'invalid',
      `the sandbox snapshot holds clouds this kubeplane does not emulate: ${unknown.join(', ')}. ` +
        `Use the kubeplane that made it, or delete it to start from an empty sandbox`,
      { resource: 'sandbox snapshot' },
    );
  }
  for (const [name, state] of Object.entries(clouds)) if (state === null || typeof state !== 'object') throw damaged(` has no state for the ${name} cloud`);
  return o as unknown as SandboxSnapshot;
}
