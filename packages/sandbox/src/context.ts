// What every emulator shares: the virtual clock, seeded randomness, fault injection and request counters.
import type { VirtualClock } from '@kubeplane/sdk/provider';
import type { FaultInjector } from './faults.js';

export interface SandboxContext {
  readonly clock: VirtualClock;
  readonly random: () => number;
  readonly faults: FaultInjector;
  /** Wire requests per cloud and operation, for assertions and the bench. */
  readonly calls: Map<string, number>;
}

export function countCall(context: SandboxContext, cloud: string, operation: string): void {
  const key = `${cloud} ${operation}`;
  context.calls.set(key, (context.calls.get(key) ?? 0) + 1);
}

let requestSeq = 0;
export function requestId(): string {
  requestSeq += 1;
  const hex = requestSeq.toString(16).padStart(12, '0');
  return `5a1e0000-0000-4000-8000-${hex}`;
}
