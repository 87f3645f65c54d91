// What SQS FIFO's deduplication window gives, for the standard queue: a send names its deduplication id (the
// step key) and first *claims* it with a conditional put (no claim of the id, or only an expired one), so of
// concurrent senders of one id exactly one sends. A send that fails gives its claim back, so the next sender
// sends and nothing is lost; a crash between claim and send leaves the id claimed for the window — the message
// comes back through SQS redelivery of the step that sent it, or the watchdog (docs/serverless.md).
import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { systemClock, type Clock } from '@kubeplane/sdk';
import { awsClientConfig } from './client-config.js';
import type { DynamoDbOptions } from './dynamodb-state-store.js';
import { DEDUPLICATION_PREFIX, isConditionFailed, PARTITION_KEY, TTL_ATTRIBUTE } from './dynamodb-table.js';

/** A granted claim on a deduplication id; `token` tells this claim from a later one of the same id. */
export interface DeduplicationClaim {
  id: string;
  token: string;
}

/** Claims of deduplication ids for a window, which SQS FIFO gives and a standard queue does not. */
export interface DeduplicationLog {
  /** Claims `id` for the window: a claim when no unexpired claim of it exists (so the caller sends), else null. */
  claim(id: string): Promise<DeduplicationClaim | null>;
  /** Gives a claim back (its send failed), so the next sender of the id sends. A later claim is left alone. */
  release(claim: DeduplicationClaim): Promise<void>;
}

/** The DynamoDB deduplication log's table, clock and window (300 s, as SQS FIFO, by default). */
export interface DynamoDbDeduplicationLogOptions extends DynamoDbOptions {
  clock?: Clock;
  /** Default 300 s, as SQS FIFO. */
  windowSeconds?: number;
}

/** The deduplication log on the runtime's DynamoDB table, claimed with conditional puts. */
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

  async claim(id: string): Promise<DeduplicationClaim | null> {
    const now = this.#clock.now();
    const until = now + this.#windowMs;
    const token = randomUUID();
    try {
      // DynamoDB's TTL sweeps expired entries (in seconds, some time after expiry; `until` is what counts).
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [PARTITION_KEY]: { S: DEDUPLICATION_PREFIX + id },
            until: { N: String(until) },
            token: { S: token },
            [TTL_ATTRIBUTE]: { N: String(Math.ceil(until / 1000) + 3600) },
          },
          ConditionExpression: 'attribute_not_exists(#pk) OR #until < :now',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#until': 'until' },
          ExpressionAttributeValues: { ':now': { N: String(now) } },
        }),
      );
      return { id, token };
    } catch (e) {
      if (isConditionFailed(e)) return null;
      throw e;
    }
  }

  async release(claim: DeduplicationClaim): Promise<void> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: { S: DEDUPLICATION_PREFIX + claim.id } },
          ConditionExpression: '#token = :token',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': { S: claim.token } },
        }),
      );
    } catch (e) {
      // Expired and claimed again by another sender: that claim is theirs to keep.
      if (!isConditionFailed(e)) throw e;
    }
  }
}
