// What SQS FIFO's deduplication window gives, for the standard queue: a send names its deduplication id (the
// step key) and is skipped if the id was sent within the window. Recorded *after* the send succeeds, so a
// crash can cause a duplicate (harmless: the engine drops it as stale) but never a lost message. Without it
// every stale redelivery would re-queue its cluster's current step, and duplicates would live as long as the flow.
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { systemClock, type Clock } from '@kubeplane/sdk';
import { awsClientConfig } from './client-config.js';
import type { DynamoDbOptions } from './dynamodb-state-store.js';
import { DEDUPLICATION_PREFIX, PARTITION_KEY, TTL_ATTRIBUTE } from './dynamodb-table.js';

export interface DeduplicationLog {
  /** True when `id` was recorded within the window. */
  seen(id: string): Promise<boolean>;
  record(id: string): Promise<void>;
}

export interface DynamoDbDeduplicationLogOptions extends DynamoDbOptions {
  clock?: Clock;
  /** Default 300 s, as SQS FIFO. */
  windowSeconds?: number;
}

export class DynamoDbDeduplicationLog implements DeduplicationLog {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly #clock: Clock;
  readonly #windowMs: number;

  constructor(options: DynamoDbDeduplicationLogOptions) {
    this.client = options.client ?? new DynamoDBClient(awsClientConfig(options));
    this.tableName = options.tableName;
    this.#clock = options.clock ?? systemClock;
    this.#windowMs = (options.windowSeconds ?? 300) * 1000;
  }

  async seen(id: string): Promise<boolean> {
    const out = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { [PARTITION_KEY]: { S: DEDUPLICATION_PREFIX + id } }, ConsistentRead: true }));
    return Number(out.Item?.until?.N ?? 0) > this.#clock.now();
  }

  async record(id: string): Promise<void> {
    const until = this.#clock.now() + this.#windowMs;
    // DynamoDB's TTL sweeps expired entries (in seconds, some time after expiry; `until` is what counts).
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: { [PARTITION_KEY]: { S: DEDUPLICATION_PREFIX + id }, until: { N: String(until) }, [TTL_ATTRIBUTE]: { N: String(Math.ceil(until / 1000) + 3600) } },
      }),
    );
  }
}
