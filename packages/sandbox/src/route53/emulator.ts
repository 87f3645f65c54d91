// The Route 53 REST-XML emulator on the emulator frame: hosted zones (seeded), ChangeResourceRecordSets (atomic
// batches, failover with health checks), ListResourceRecordSets with pagination, GetChange (PENDING -> INSYNC after
// 60 s), Create/Delete/List health checks; SigV4 (or the sandbox's STS sessions) and Route 53's 10 requests/second
// account budget. The route families are zones.ts, records.ts and health-checks.ts; the wire format is dialect.ts.
import type { HttpHandler } from 'msw';
import { TokenBucket, RATE_LIMITS, type TokenBucketState } from '@kubeplane/sdk/provider';
import type { SandboxContext } from '../context.js';
import { EmulatorError, frameHandlers, ResourceStore, RouteTable, type WireCall } from '../emulator/index.js';
import type { InventoryItem } from '../inventory.js';
import { verifySigV4 } from '../sigv4.js';
import type { AwsKeyring } from '../sts/emulator.js';
import { AwsCallAudit, type AwsCall, type AwsCallListener } from '../aws-calls.js';
import { notEmulatedMessage, route53OperationOf } from '../aws-not-emulated.js';
import { invalidClientTokenId, parser, ROUTE53_BASE, route53Dialect, throttling } from './dialect.js';
import { fqdn } from './dns-names.js';
import { healthCheckRoutes } from './health-checks.js';
import { recordRoutes } from './records.js';
import type { Change, HealthCheck, Route53World, Zone } from './world.js';
import { zoneRoutes } from './zones.js';

export type { Change, HealthCheck, RecordSet, Zone } from './world.js';

/**
 * How the emulated Route 53 account starts: its key, the hosted zones its owner already has (default `example.com`), and
 * STS.
 */
export interface Route53EmulatorOptions {
  accessKeyId: string;
  secretAccessKey: string;
  /** Hosted zones that exist before the test (user-owned), e.g. `example.com`. */
  zones: string[];
  /** The account's keys and STS sessions (the sandbox's STS); without it, only accessKeyId is accepted. */
  keyring?: AwsKeyring;
}

/**
 * Everything the emulator keeps, as plain data (sandbox snapshots), except the credentials: the store's collections
 * and its id counter (`seq`) as top-level fields, as snapshots have always held them, the budget and the throttle count.
 */
export interface Route53EmulatorState {
  seq: number;
  zones: Array<[string, Zone]>;
  healthChecks: Array<[string, HealthCheck]>;
  changes: Array<[string, Change]>;
  budget: TokenBucketState;
  throttled: number;
}

/** The state's collections: the store's, by name. */
type Collections = Pick<Route53EmulatorState, 'zones' | 'healthChecks' | 'changes'>;

/**
 * The Route 53 REST-XML API (`https://route53.amazonaws.com/2013-04-01`), as `sandbox.route53`: hosted zones, atomic
 * ChangeResourceRecordSets batches (PENDING, INSYNC after 60 s of virtual time), health checks, SigV4 and the account's
 * 10 requests/second budget.
 */
export class Route53Emulator {
  readonly #ctx: SandboxContext;
  readonly #secrets: ReadonlyMap<string, string>;
  readonly #keyring: AwsKeyring | undefined;
  readonly #store = new ResourceStore();
  readonly #world: Route53World;
  readonly zones = this.#store.collection<string, Zone>('zones');
  readonly healthChecks = this.#store.collection<string, HealthCheck>('healthChecks');
  readonly changes = this.#store.collection<string, Change>('changes');
  readonly #budget: TokenBucket;
  readonly #audit = new AwsCallAudit();
  readonly #routes: RouteTable<string>;
  throttled = 0;

  constructor(ctx: SandboxContext, options: Partial<Route53EmulatorOptions> & { accessKeyId: string; secretAccessKey: string }) {
    this.#ctx = ctx;
    this.#secrets = new Map([[options.accessKeyId, options.secretAccessKey]]);
    this.#keyring = options.keyring;
    this.#budget = new TokenBucket(RATE_LIMITS.route53, ctx.clock);
    this.#world = { zones: this.zones, healthChecks: this.healthChecks, changes: this.changes, seq: this.#store.counter('seq'), now: () => ctx.clock.now() };
    this.#routes = new RouteTable([...zoneRoutes(this.#world), ...recordRoutes(this.#world), ...healthCheckRoutes(this.#world)]);
    for (const name of options.zones ?? ['example.com']) this.addZone(name);
  }

  /** The Route 53 operations the emulator serves (`GetHostedZone`), for the coverage table. */
  servedOperations(): string[] {
    return this.#routes.operations();
  }

  /** A hosted zone the account's owner made (with its NS and SOA records), unless one of that name exists. */
  addZone(name: string): void {
    const zone = fqdn(name);
    if (this.zones.find((z) => z.name === zone)) return;
    const id = `Z0SANDBOX${String(this.zones.size + 1).padStart(5, '0')}`;
    this.zones.set(id, {
      id,
      name: zone,
      records: [
        { name: zone, type: 'NS', ttl: 172800, values: ['ns-1.awsdns-01.org.', 'ns-2.awsdns-02.net.'] },
        { name: zone, type: 'SOA', ttl: 900, values: ['ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400'] },
      ],
    });
  }

  /** A deep copy of the emulator's state. */
  state(): Route53EmulatorState {
    const { collections, counters } = this.#store.state();
    return { seq: counters['seq'] ?? 0, ...(collections as Collections), budget: this.#budget.state(), throttled: this.throttled };
  }

  /** Replaces the emulator's state with a copy of `state`. */
  restore(state: Route53EmulatorState): void {
    const { zones, healthChecks, changes } = state;
    this.#store.restore({ collections: { zones, healthChecks, changes } satisfies Collections, counters: { seq: state.seq } });
    this.#budget.restore(state.budget);
    this.throttled = state.throttled;
  }

  /**
   * Tells `listener` of every signed request before it is served (as IAM authorizes it: throttled and failing calls
   * too), with the zone, change or health check it names and, for a change batch, its changes. Returns the function
   * that stops it.
   */
  onCall(listener: AwsCallListener): () => void {
    return this.#audit.add(listener);
  }

  /** The msw handlers serving the Route 53 API; the Sandbox installs them. */
  handlers(): HttpHandler[] {
    return frameHandlers(this.#ctx, {
      cloud: 'route53',
      base: ROUTE53_BASE,
      dialect: route53Dialect,
      routes: this.#routes,
      authenticate: (call) => this.#authenticate(call),
      observe: (call) => this.#audit.emit(() => ({ ...this.#auditRecord(call), ...(this.#keyring ? { caller: this.#keyring.callerOf(call.request) } : {}) })),
      rateLimit: () => (this.#budget.tryTake(1) > 0 ? throttling() : undefined),
      throttled: () => {
        this.throttled += 1;
      },
      // "InvalidAction: The action or operation requested is invalid", HTTP 400 (Route 53's common errors): an operation
      // of Route 53's model the sandbox does not serve says so in the sealed sandbox's words.
      unknown: (call) => {
        const operation = route53OperationOf(call.method, call.path);
        return new EmulatorError(
          400,
          'InvalidAction',
          operation ? notEmulatedMessage(`Route 53 ${operation}`) : `${call.method} ${call.path} is not an operation of this API`,
        );
      },
    });
  }

  /** Records other than the zone's own SOA/NS, and health checks. The health check's cluster is the first
   * segment of its CallerReference (the AWS provider writes `<clusterId>/…`). */
  inventory(): InventoryItem[] {
    const out: InventoryItem[] = [];
    for (const z of this.zones.values()) {
      for (const r of z.records)
        if (!(r.name === z.name && (r.type === 'NS' || r.type === 'SOA')))
          out.push({ cloud: 'route53', kind: 'dns-record', id: `${z.id}/${r.name}/${r.type}/${r.setIdentifier ?? ''}`, name: r.name });
    }
    for (const h of this.healthChecks.values())
      out.push({ cloud: 'route53', kind: 'health-check', id: h.id, clusterId: h.callerReference.split('/')[0] ?? '' });
    return out;
  }

  #authenticate(call: WireCall): EmulatorError | undefined {
    const signed = this.#keyring ? this.#keyring.verify(call.request, call.text) : verifySigV4(call.request, call.text, this.#secrets);
    if (signed === 'expired') return new EmulatorError(403, 'ExpiredToken', 'The security token included in the request is expired');
    if (signed === 'unknown-key' || signed === 'missing') return invalidClientTokenId();
    if (signed !== 'ok')
      return new EmulatorError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
    return undefined;
  }

  /**
   * The resource an operation names, by the resource types the Service Authorization Reference lists for it
   * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonroute53.html): the hosted zone of a
   * record operation, the change of GetChange, the health check of DeleteHealthCheck; the list and create operations
   * name none. Route 53 keeps no tags IAM could read, so none are given.
   */
  #auditRecord(call: WireCall): AwsCall {
    const { operation } = call;
    const id = call.params['id'] ?? '';
    const resource = (type: string, found: boolean) => [{ type, id, tags: {}, created: false, ...(found ? {} : { missing: true }) }];
    const resources =
      operation === 'ChangeResourceRecordSets' || operation === 'ListResourceRecordSets' || operation === 'GetHostedZone'
        ? resource('hostedzone', this.zones.has(id))
        : operation === 'GetChange'
          ? resource('change', this.changes.has(id))
          : operation === 'DeleteHealthCheck'
            ? resource('healthcheck', this.healthChecks.has(id))
            : [];
    const record: AwsCall = {
      service: 'route53',
      action: operation,
      region: 'us-east-1',
      params: { method: call.method, path: call.path, ...Object.fromEntries(call.query.entries()) },
      resources,
    };
    if (operation === 'ChangeResourceRecordSets') {
      const doc = parser.parse(call.text) as {
        ChangeResourceRecordSetsRequest?: {
          ChangeBatch?: { Changes?: { Change?: Array<{ Action?: string; ResourceRecordSet?: { Name?: string; Type?: string } }> } };
        };
      };
      record.changes = (doc.ChangeResourceRecordSetsRequest?.ChangeBatch?.Changes?.Change ?? []).map((c) => ({
        action: c.Action ?? '',
        name: c.ResourceRecordSet?.Name ?? '',
        type: c.ResourceRecordSet?.Type ?? '',
      }));
    }
    return record;
  }
}
