// The shared rate budgets on DynamoDB: one item per budget key (`b/hetzner:<project>`, `b/aws:<account>:<region>:run-instances`)
// holding the bucket's `fullAt` (see shared-rate-budget.ts in the sdk). A take is one conditional UpdateItem, never a
// read-modify-write, so concurrent Lambda containers never retry against each other on the item, and a refused
// take is mostly decided in the container from the `fullAt` it last saw, without a call.
//
// Hot item: a budget key is written once per granted request (plus a refused take's failed write and read), and a
// cloud's fastest budget here is 20 requests/s (EC2 Describe); DynamoDB takes about 1,000 writes/s on one item. So
// tokens are taken one request at a time rather than leased to containers in batches: a lease would leave
// tokens idle in a container that has stopped, and make the cloud's `RateLimit-Remaining` impossible to reconcile.
import { DynamoDBClient, GetItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { SharedRateBudgets, type BucketStore, type BucketTakeResult, type SharedRateBudgetsOptions } from '@kubeplane/sdk/provider';
import { systemClock, type Clock } from '@kubeplane/sdk';
import { awsClientConfig } from './client-config.js';
import type { DynamoDbOptions } from './dynamodb-state-store.js';
import { BUDGET_PREFIX, isConditionFailed, PARTITION_KEY } from './dynamodb-table.js';

const FULL_AT = 'fullAt';

export class DynamoDbBucketStore implements BucketStore {
  readonly client: DynamoDBClient;
  readonly tableName: string;

  constructor(options: DynamoDbOptions) {
    this.client = options.client ?? new DynamoDBClient(awsClientConfig(options));
    this.tableName = options.tableName;
  }

  async take(key: string, now: number, addMs: number, slackMs: number, hint: number | null): Promise<BucketTakeResult> {
    // A full bucket (fullAt in the past) restarts from now; a draining one grows by the cost. The two are
    // separate conditional writes because an update expression has no max(); fullAt only grows, so at most
    // one of them can apply and a failure of the first says which one to try.
    let full = hint === null || hint < now;
    for (let round = 0; round < 3; round++) {
      if (full) {
        if (await this.#conditional(key, 'SET #f = :to', 'attribute_not_exists(#f) OR #f < :now', { ':to': num(now + addMs), ':now': num(now) })) {
          return { granted: true, fullAt: now + addMs };
        }
      } else {
        const out = await this.#conditional(key, 'SET #f = #f + :add', '#f >= :now AND #f <= :limit', {
          ':add': num(addMs),
          ':now': num(now),
          ':limit': num(now + slackMs + 1e-6),
        });
        if (out) return { granted: true, fullAt: Number(out[FULL_AT]?.N ?? NaN) };
      }
      const stored = await this.#read(key);
      if (stored !== null && stored >= now) {
        if (stored - now > slackMs + 1e-6) return { granted: false, fullAt: stored };
        full = false;
      } else full = true;
    }
    // Three lost races in a row: the bucket is busy; the caller waits a token's time.
    return { granted: false, fullAt: await this.#read(key) };
  }

  async raise(key: string, to: number, ifBelow: number): Promise<void> {
    await this.#conditional(key, 'SET #f = :to', 'attribute_not_exists(#f) OR #f < :below', { ':to': num(to), ':below': num(ifBelow) });
  }

  async #read(key: string): Promise<number | null> {
    const out = await this.client.send(
      new GetItemCommand({
        TableName: this.tableName,
        Key: itemKey(key),
        ConsistentRead: true,
        ProjectionExpression: '#f',
        ExpressionAttributeNames: { '#f': FULL_AT },
      }),
    );
    const value = out.Item?.[FULL_AT]?.N;
    return value === undefined ? null : Number(value);
  }

  /** The item's new attributes when the condition held, null when it did not. */
  async #conditional(key: string, update: string, condition: string, values: Record<string, AttributeValue>): Promise<Record<string, AttributeValue> | null> {
    try {
      const out = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: itemKey(key),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#f': FULL_AT },
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return out.Attributes ?? {};
    } catch (e) {
      if (isConditionFailed(e)) return null;
      throw e;
    }
  }
}

/** Where the DynamoDB rate budgets live and how they allow for requests in flight. */
export interface DynamoDbRateBudgetsOptions extends DynamoDbOptions, SharedRateBudgetsOptions {
  clock?: Clock;
}

/** The rate budgets every Lambda container of the deployment shares, on the runtime's table. */
export function dynamoDbRateBudgets(options: DynamoDbRateBudgetsOptions): SharedRateBudgets {
  return new SharedRateBudgets(
    new DynamoDbBucketStore(options),
    options.clock ?? systemClock,
    options.inFlightAllowance === undefined ? {} : { inFlightAllowance: options.inFlightAllowance },
  );
}

const itemKey = (key: string): Record<string, AttributeValue> => ({ [PARTITION_KEY]: { S: BUDGET_PREFIX + key } });
const num = (n: number): AttributeValue => ({ N: String(n) });
