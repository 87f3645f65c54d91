// What a provider's sandbox must offer the conformance suite: a virtual clock, fault injection by contract
// operation, and a view of what is live in the emulated cloud that does not go through the provider.
import type { VirtualClock } from '../clock.js';
import type { Provider } from '../types.js';

/** Contract operations a fault can target; the sandbox maps them to wire operations. */
export type FaultTarget = 'create-node' | 'list-nodes' | 'delete-node' | 'any';

/**
 * Fault kinds, as the wire shows them: `throttled` (429 / RequestLimitExceeded with Retry-After or
 * RateLimit-* headers), `throttled-no-headers`, `server-error` (5xx), `timeout` (no response, not applied),
 * `lost-response` (applied, then the response is lost), `capacity`, `quota`, `auth`.
 */
export type FaultKind = 'throttled' | 'throttled-no-headers' | 'server-error' | 'timeout' | 'lost-response' | 'capacity' | 'quota' | 'auth';

/** A sandbox cloud as the conformance suite drives it: its clock, faults and inventory. */
export interface ConformanceSandbox {
  readonly clock: VirtualClock;
  /** Makes the next `times` matching calls fail with this fault. */
  injectFault(target: FaultTarget, kind: FaultKind, times?: number): void;
  /** Live resources carrying the cluster id, read from the emulator's inventory. */
  liveResources(clusterId: string): Array<{ kind: string; id: string; name?: string }>;
  /** A JSON dump of the emulator's whole inventory (used to prove no secret is stored in clear). */
  inventoryDump(): string;
  /** Wire requests the emulator has received so far. */
  requestCount(): number;
  /** Stops the sandbox. */
  stop(): void;
}

/** The region, machine type, image and DNS zone a provider's conformance tests use. */
export interface ConformanceFixtures {
  region: string;
  zone?: string;
  serverType: string;
  image: string;
  /** A DNS zone that exists in the sandbox, when the provider has the dns capability. */
  dnsZone?: string;
  /** Another region of the same account (C18: pools in two regions), with a zone where the provider needs one. */
  secondRegion: { region: string; zone?: string };
}

/** How to run the conformance suite against a provider: its name, sandbox, factory and fixtures. */
export interface ConformanceOptions {
  /** The provider's name, as it reports it. */
  name: string;
  /** A fresh sandbox (started) per test. */
  sandbox: () => ConformanceSandbox | Promise<ConformanceSandbox>;
  /** The provider for `region` (default: the fixtures' region); providers bound to a region (EC2) make one per region. */
  makeProvider: (sandbox: ConformanceSandbox, region?: string) => Provider;
  /** A provider built with credentials the sandbox rejects. */
  makeUnauthorizedProvider: (sandbox: ConformanceSandbox) => Provider;
  /** The credential values in use; none may appear in errors, logs or dumps. */
  secretValues: string[];
  fixtures: ConformanceFixtures;
}
