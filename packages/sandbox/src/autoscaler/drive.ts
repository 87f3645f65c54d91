// Runs the engine's queue and the simulated autoscaler together on the virtual clock until a condition holds: the
// engine's run lets the autoscaler scan as time passes, and when the queue is idle time jumps to its next scan.
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { Clock } from '@kubeplane/sdk';
import type { SimulatedClusterAutoscaler } from './simulated-autoscaler.js';

/** Whether `driveUntil`'s condition held, and the virtual time it took. */
export interface DriveResult {
  ok: boolean;
  /** Virtual ms from the start to when the condition held (or the limit). */
  elapsedMs: number;
}

/**
 * Runs the engine (`run`) and the simulated autoscaler together on the sandbox's VirtualClock until `until()` holds,
 * jumping time to the autoscaler's next scan whenever the engine is idle; `ok` false once `limitMs` of virtual time
 * pass.
 */
export async function driveUntil(options: {
  clock: Clock;
  autoscaler: SimulatedClusterAutoscaler;
  /** The engine's local runner (Kubeplane.run with the autoscaler as participant). */
  run: (participant: SimulatedClusterAutoscaler) => Promise<unknown>;
  until: () => boolean | Promise<boolean>;
  /** Give up after this much virtual time (ms). */
  limitMs: number;
}): Promise<DriveResult> {
  const { clock, autoscaler } = options;
  if (!(clock instanceof VirtualClock)) throw new Error("driveUntil moves virtual time: it needs the sandbox's VirtualClock");
  const start = clock.now();
  for (;;) {
    if (await options.until()) return { ok: true, elapsedMs: clock.now() - start };
    if (clock.now() - start > options.limitMs) return { ok: false, elapsedMs: clock.now() - start };
    await options.run(autoscaler);
    if (await options.until()) return { ok: true, elapsedMs: clock.now() - start };
    const wake = autoscaler.nextWakeAt();
    if (wake === null) return { ok: false, elapsedMs: clock.now() - start };
    if (wake > clock.now()) clock.advanceTo(wake);
    await autoscaler.settle();
  }
}
