// Fault injection for the sandbox clouds: per wire operation (or `*`), a kind, and a count or probability.
// Each emulator renders a fault in its own wire format (429 with headers, RequestLimitExceeded, …).
import type { FaultKind } from '@kubeplane/sdk/conformance';

export type { FaultKind };

/**
 * The clouds that take faults, by name: the Kubernetes API of the sandbox's clusters, and every cloud of the sandbox-
 * cloud registry, which adds its names here (clouds/index.ts, by declaration merging). So neither this file nor the
 * emulators that import it name a cloud, and the registry, which imports the emulators, is not imported back.
 */
export interface FaultClouds {
  kubernetes: true;
}

/** A cloud's name as faults, call counts and the inventory know it: a registered sandbox cloud's, or the Kubernetes API's. */
export type CloudName = keyof FaultClouds;

/**
 * Which calls fail and how: calls to `operation` of `cloud` fail with `kind`, `times` times or with `probability`. A
 * rule with neither fails every matching call until it is cleared.
 */
export interface FaultRule {
  cloud: CloudName;
  /** A wire operation (`POST /servers`, `RunInstances`, `ChangeResourceRecordSets`) or `*`. */
  operation: string;
  kind: FaultKind;
  /** How many matching calls fail; unlimited when absent (use `probability`). */
  times?: number;
  /** Each matching call fails with this probability (drawn from the sandbox's seeded randomness). */
  probability?: number;
  /**
   * `spot`: only calls that ask for spot capacity match (the emulator reads the request: EC2 RunInstances with
   * `InstanceMarketOptions.MarketType=spot`), as spot capacity runs out while on-demand launches still succeed.
   */
  market?: 'spot';
}

/** The rules in effect (with what is left of their `times`; null = unlimited) and the faults fired, as plain data. */
export interface FaultInjectorState {
  rules: Array<FaultRule & { remaining: number | null }>;
  fired: Array<{ cloud: CloudName; operation: string; kind: FaultKind }>;
}

/**
 * The fault rules of a sandbox (`sandbox.faults`). Emulators ask it, per call, whether to fail it; the first rule that
 * matches wins, in the order the rules were added.
 */
export class FaultInjector {
  readonly #rules: Array<FaultRule & { remaining: number }> = [];
  readonly #random: () => number;
  /** Every fault that fired, for assertions. */
  readonly fired: Array<{ cloud: CloudName; operation: string; kind: FaultKind }> = [];

  constructor(random: () => number) {
    this.#random = random;
  }

  /** Adds a rule after the existing ones. */
  add(rule: FaultRule): void {
    this.#rules.push({ ...rule, remaining: rule.times ?? Number.POSITIVE_INFINITY });
  }

  /** Removes every rule; `fired` is kept. */
  clear(): void {
    this.#rules.length = 0;
  }

  /** The rules and the fired faults as plain data, for a snapshot. */
  state(): FaultInjectorState {
    return {
      rules: this.#rules.map((r) => ({ ...r, remaining: Number.isFinite(r.remaining) ? r.remaining : null })),
      fired: this.fired.map((f) => ({ ...f })),
    };
  }

  /** Replaces the rules and the fired faults with those of `state()`. */
  restore(state: FaultInjectorState): void {
    this.#rules.length = 0;
    for (const r of state.rules) this.#rules.push({ ...r, remaining: r.remaining ?? Number.POSITIVE_INFINITY });
    this.fired.length = 0;
    this.fired.push(...state.fired.map((f) => ({ ...f })));
  }

  /** The fault to apply to this call, if any; consumes one of its `times`. `spot`: the call asks for spot capacity. */
  take(cloud: CloudName, operation: string, call: { spot?: boolean } = {}): FaultKind | undefined {
    for (const rule of this.#rules) {
      if (rule.cloud !== cloud || rule.remaining <= 0) continue;
      if (rule.operation !== '*' && rule.operation !== operation) continue;
      if (rule.market === 'spot' && !call.spot) continue;
      if (rule.probability !== undefined && this.#random() >= rule.probability) continue;
      rule.remaining -= 1;
      this.fired.push({ cloud, operation, kind: rule.kind });
      return rule.kind;
    }
    return undefined;
  }
}
