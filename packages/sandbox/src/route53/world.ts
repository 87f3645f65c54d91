// The resources of the emulated Route 53 account, and what its route families (zones, records, health checks) act on.
import type { Collection, Counter, RouteHandler, RouteOptions } from '../emulator/index.js';

export interface RecordSet {
  name: string;
  type: string;
  ttl?: number;
  values: string[];
  setIdentifier?: string;
  failover?: string;
  healthCheckId?: string;
  multiValue?: boolean;
  /** A weighted record's weight (0-255; with a SetIdentifier). */
  weight?: number;
  /** An alias record's target (no TTL, no values). */
  alias?: { hostedZoneId: string; dnsName: string; evaluateTargetHealth: boolean };
}
export interface Zone {
  id: string;
  name: string;
  records: RecordSet[];
}
export interface HealthCheck {
  id: string;
  callerReference: string;
  ip: string;
  port: number;
  type: string;
  /** The whole configuration (absent in snapshots from before the emulator kept it: type, ip and port then). */
  config?: HealthCheckConfig;
  /** HealthCheckVersion, 1 when made and one more with each update. */
  version?: number;
}
/** A HealthCheckConfig as Route 53 keeps it, defaults filled in (API_HealthCheckConfig.html). */
export interface HealthCheckConfig {
  type: string;
  ipAddress?: string;
  port?: number;
  resourcePath?: string;
  fullyQualifiedDomainName?: string;
  searchString?: string;
  requestInterval: number;
  failureThreshold: number;
  measureLatency?: boolean;
  inverted?: boolean;
  disabled?: boolean;
  enableSni?: boolean;
  regions?: string[];
}
export interface Change {
  id: string;
  submittedAt: number;
}

/** The account's resources, the counter its change and health-check ids come from, and the virtual clock. */
export interface Route53World {
  readonly zones: Collection<string, Zone>;
  readonly healthChecks: Collection<string, HealthCheck>;
  readonly changes: Collection<string, Change>;
  readonly seq: Counter;
  now(): number;
}

/** A route of the table: its REST template, what answers it, and the operation's name (`GetHostedZone`). The body is the XML text. */
export type Route53Route = [template: string, handler: RouteHandler<string>, options: RouteOptions & { name: string }];
