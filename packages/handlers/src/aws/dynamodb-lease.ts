// The engine's Lease port on DynamoDB: a conditional put per grant, so of several concurrent acquirers exactly
// one wins; an expiry so a crashed holder needs no unlock; a fencing token that grows with every new grant
// and survives releases (a release only expires the item, it never deletes it).
import { DynamoDBClient, GetItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { systemClock, type Clock, type Lease, type LeaseGrant } from '@kubeplane/sdk';
import { awsClientConfig } from './client-config.js';
import type { DynamoDbOptions } from './dynamodb-state-store.js';
import { isConditionFailed, LEASE_PREFIX, PARTITION_KEY } from './dynamodb-table.js';

export interface DynamoDbLeaseOptions extends DynamoDbOptions {
  /** Expiry is judged on this clock (the handlers' clocks must agree to within a lease's margin). */
  clock?: Clock;
}

export class DynamoDbLease implements Lease {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly #clock: Clock;

  constructor(options: DynamoDbLeaseOptions) {
    this.client = options.client ?? new DynamoDBClient(awsClientConfig(options));
    this.tableName = options.tableName;
    this.#clock = options.clock ?? systemClock;
  }

  async acquire(key: string, owner: string, ttlSeconds: number): Promise<LeaseGrant | null> {
    const now = this.#clock.now();
    const out = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: itemKey(key), ConsistentRead: true }));
    const held = out.Item ? { owner: out.Item.owner?.S ?? '', token: Number(out.Item.token?.N ?? 0), expiresAt: Number(out.Item.expiresAt?.N ?? 0) } : null;
    if (held && held.expiresAt > now) {
      if (held.owner !== owner) return null;
      return this.renew({ key, ...held }, ttlSeconds);
    }
    const grant: LeaseGrant = { key, owner, token: (held?.token ?? 0) + 1, expiresAt: now + ttlSeconds * 1000 };
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: { ...itemKey(key), owner: { S: owner }, token: { N: String(grant.token) }, expiresAt: { N: String(grant.expiresAt) } },
          // Compare-and-swap on the token read above: of racing acquirers, one writes and the rest fail here.
          ...(held
            ? { ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'token' }, ExpressionAttributeValues: { ':token': { N: String(held.token) } } }
            : { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY } }),
        }),
      );
      return grant;
    } catch (e) {
      if (isConditionFailed(e)) return null;
      throw e;
    }
  }

  async renew(grant: LeaseGrant, ttlSeconds: number): Promise<LeaseGrant | null> {
    const expiresAt = this.#clock.now() + ttlSeconds * 1000;
    return (await this.#update(grant, expiresAt)) ? { ...grant, expiresAt } : null;
  }

  async release(grant: LeaseGrant): Promise<void> {
    await this.#update(grant, 0);
  }

  async #update(grant: LeaseGrant, expiresAt: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: itemKey(grant.key),
          UpdateExpression: 'SET #exp = :exp',
          ConditionExpression: '#owner = :owner AND #token = :token',
          ExpressionAttributeNames: { '#exp': 'expiresAt', '#owner': 'owner', '#token': 'token' },
          ExpressionAttributeValues: { ':exp': { N: String(expiresAt) }, ':owner': { S: grant.owner }, ':token': { N: String(grant.token) } },
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailed(e)) return false;
      throw e;
    }
  }
}

const itemKey = (key: string): Record<string, AttributeValue> => ({ [PARTITION_KEY]: { S: LEASE_PREFIX + key } });
