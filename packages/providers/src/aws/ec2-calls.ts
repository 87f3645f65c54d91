// The EC2 calls every part of the AWS provider makes (compute, catalog, network, teardown): each first spends the
// matching EC2 budget and is counted, and errors come back as KubeplaneErrors. Also the ids the parts share once
// looked up, and the tag and filter shapes of kubeplane's resources.
import type { EC2Client, Filter, Instance, ResourceType, Tag, TagSpecification } from '@aws-sdk/client-ec2';
import { CLUSTER_ID_TAG, NAME_TAG, RateBudgetWait, type RateBudget } from '@kubeplane/sdk/provider';
import { KubeplaneError, type Clock } from '@kubeplane/sdk';
import { loadEc2, type Ec2Module } from './sdk-modules.js';
import { toKubeplaneError } from './errors.js';

export type Bucket = 'run' | 'launches' | 'terminate' | 'describe' | 'mutating' | 'route53';

/** EC2's error codes for a gateway that another call already detached, or deleted. */
export const GATEWAY_DETACHED = ['Gateway.NotAttached', 'InvalidInternetGatewayID.NotFound'] as const;
export const GATEWAY_GONE = ['InvalidInternetGatewayID.NotFound'] as const;

/** Instance states DescribeInstances is asked for when only instances that are (or may again be) machines count. */
export const LIVE_STATES = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];

/** When kubeplane made a VPC (ms since the epoch): tells the oldest of duplicates. */
export const CREATED_TAG = 'kubeplane.dev/created';

export function tagValue(tags: Tag[] | undefined, key: string): string | undefined {
  return tags?.find((t) => t.Key === key)?.Value;
}

export function tagMap(tags: Tag[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) if (t.Key !== undefined) out[t.Key] = t.Value ?? '';
  return out;
}

/**
 * How long a listing's pages read so far are kept to resume from. EC2 does not say how long a NextToken stays valid;
 * a step's retries after a fault come within seconds to minutes, and the catalogs change over days.
 */
const RESUME_PAGES_MS = 10 * 60_000;

/**
 * A resumable listing failed after reading more of its pages than before: it is getting somewhere, so the caller
 * answers "in progress" (asked again, it goes on from here) rather than a failure in a row. `cause` is the failure.
 */
export class ListingAdvanced extends Error {
  constructor(
    override readonly cause: unknown,
    readonly pagesRead: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`${pagesRead} pages read so far; ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export class Ec2Calls {
  readonly region: string;
  readonly clock: Clock;
  readonly budgets: Record<Bucket, RateBudget>;
  /** Resource ids by kind/name (VPCs, subnets, security groups): they never change once created. */
  readonly ids = new Map<string, string>();
  /** Calls sent per EC2/Route 53 action (for the bench). */
  readonly sent = new Map<string, number>();
  readonly #ec2: () => Promise<EC2Client>;
  /** A resumable listing's pages read so far, by operation and input, with the token of the page that failed. */
  readonly #paging = new Map<string, { at: number; pages: unknown[]; token: string | undefined }>();

  constructor(options: { region: string; clock: Clock; ec2: () => Promise<EC2Client>; budgets: Record<Bucket, RateBudget> }) {
    this.region = options.region;
    this.clock = options.clock;
    this.#ec2 = options.ec2;
    this.budgets = options.budgets;
  }

  count(operation: string): void {
    this.sent.set(operation, (this.sent.get(operation) ?? 0) + 1);
  }

  /**
   * A teardown call another delivery of the same step may have made first (steps run at least once, sometimes side by
   * side): EC2's answer that it is already done is success, not a failure of the teardown.
   */
  async alreadyDoneIs(codes: readonly string[], call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      if (error instanceof KubeplaneError && codes.includes(String(error.details.code))) return;
      throw error;
    }
  }

  async send<O>(bucket: Bucket, operation: string, command: (ec2: Ec2Module) => object, resource?: string, cost = 1): Promise<O> {
    const wait = await this.budgets[bucket].take(1);
    if (wait > 0) throw new RateBudgetWait(`aws ${bucket}`, wait);
    if (bucket === 'run') {
      const launchWait = await this.budgets.launches.take(cost);
      if (launchWait > 0) throw new RateBudgetWait('aws instance-launches', launchWait);
    }
    this.count(operation);
    try {
      const [client, module] = await Promise.all([this.#ec2(), loadEc2()]);
      return (await client.send(command(module) as never)) as O;
    } catch (error) {
      const k = toKubeplaneError(error, 'ec2', operation, resource);
      if (k.kind === 'throttled') await this.budgets[bucket].observeRemaining(0);
      throw k;
    }
  }

  /**
   * Every page of a paged Describe call, following NextToken. A listing that does not change from call to call (a
   * Region's catalog: `resumable`) keeps the pages it has read when one fails, for a while: asked again (the step's
   * retry after a throttle or an internal error), it goes on from the page that failed. A catalog of a thousand
   * instance types is a dozen pages; starting over after every fault, a cloud that fails one call in ten would almost
   * never answer all twelve in a row.
   */
  async pages<O extends { NextToken?: string | undefined }>(
    operation: string,
    command: (token: string | undefined, ec2: Ec2Module) => object,
    options: { resumable?: boolean } = {},
  ): Promise<O[]> {
    const key = options.resumable ? `${operation} ${JSON.stringify((command(undefined, await loadEc2()) as { input?: unknown }).input ?? null)}` : undefined;
    const kept = key === undefined ? undefined : this.#paging.get(key);
    const read = kept && this.clock.now() - kept.at < RESUME_PAGES_MS ? kept : { at: this.clock.now(), pages: [] as unknown[], token: undefined };
    const out = read.pages as O[];
    const before = out.length;
    let token = read.token;
    do {
      let page: O;
      try {
        page = await this.send<O>('describe', operation, (m) => command(token, m));
      } catch (error) {
        // Only a wait for the budget or a fault that asking again may cure keeps the pages; a token the cloud refuses (expired) starts over.
        const again = error instanceof RateBudgetWait || (error instanceof KubeplaneError && error.retryable);
        if (key !== undefined && again) this.#paging.set(key, { at: read.at, pages: out, token });
        else if (key !== undefined) this.#paging.delete(key);
        if (key !== undefined && again && out.length > before) {
          const wait = error instanceof RateBudgetWait ? error.retryAfterSeconds : error instanceof KubeplaneError ? (error.details.retryAfterSeconds ?? 1) : 1;
          throw new ListingAdvanced(error, out.length, Math.max(0.05, wait));
        }
        throw error;
      }
      out.push(page);
      token = page.NextToken;
    } while (token);
    if (key !== undefined) this.#paging.delete(key);
    return out;
  }

  tagSpecs(types: ResourceType[], clusterId: string, name: string, extra: Record<string, string> = {}): TagSpecification[] {
    const tags: Tag[] = Object.entries({ ...extra, Name: name, [NAME_TAG]: name, [CLUSTER_ID_TAG]: clusterId }).map(([Key, Value]) => ({ Key, Value }));
    return types.map((ResourceType) => ({ ResourceType, Tags: tags }));
  }

  byName(clusterId: string, name: string): Filter[] {
    return [
      { Name: `tag:${CLUSTER_ID_TAG}`, Values: [clusterId] },
      { Name: `tag:${NAME_TAG}`, Values: [name] },
    ];
  }

  /** Every instance DescribeInstances lists for these filters, following NextToken. */
  async describeInstances(filters: Filter[]): Promise<Instance[]> {
    const out: Instance[] = [];
    let token: string | undefined;
    do {
      const page = await this.send<{ Reservations?: Array<{ Instances?: Instance[] }>; NextToken?: string }>(
        'describe',
        'DescribeInstances',
        (sdk) => new sdk.DescribeInstancesCommand({ Filters: filters, MaxResults: 1000, ...(token ? { NextToken: token } : {}) }),
      );
      for (const r of page.Reservations ?? []) out.push(...(r.Instances ?? []));
      token = page.NextToken;
    } while (token);
    return out;
  }
}
