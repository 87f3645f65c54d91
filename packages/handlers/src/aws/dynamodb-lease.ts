// The engine's Lease port on DynamoDB: one item per key, and the SDK's ConditionalLease algorithm over it. A grant is
// a conditional put on the fencing token as read (or on the item not existing yet), so of several concurrent
// acquirers exactly one wins; renewing and releasing are one conditional update of the expiry on owner and token.
import { DynamoDBClient, GetItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { ConditionalLease, type LeaseRecord, type LeaseTable } from '@kubeplane/sdk/internal';
import { systemClock, type Clock } from '@kubeplane/sdk';
import { awsClientConfig } from './client-config.js';
import type { DynamoDbOptions } from './dynamodb-state-store.js';
import { isConditionFailed, LEASE_PREFIX, PARTITION_KEY } from './dynamodb-table.js';

/** The DynamoDB leases' table, and the clock expiry is judged on. */
export interface DynamoDbLeaseOptions extends DynamoDbOptions {
  /** Expiry is judged on this clock (the handlers' clocks must agree to within a lease's margin). */
  clock?: Clock;
}

/** The engine's Lease port on DynamoDB, through conditional writes. */
export class DynamoDbLease extends ConditionalLease<number> {
  readonly client: DynamoDBClient;
  readonly tableName: string;

  constructor(options: DynamoDbLeaseOptions) {
    const client = options.client ?? new DynamoDBClient(awsClientConfig(options));
    super(dynamoDbLeaseTable(client, options.tableName), options.clock ?? systemClock);
    this.client = client;
    this.tableName = options.tableName;
  }
}

/** Lease records as items `lease#<key>`; the version a grant is conditioned on is the fencing token. */
function dynamoDbLeaseTable(client: DynamoDBClient, tableName: string): LeaseTable<number> {
  /** Runs a conditional write: false when its condition failed (another writer came first). */
  const conditional = async (write: () => Promise<unknown>): Promise<boolean> => {
    try {
      await write();
      return true;
    } catch (e) {
      if (isConditionFailed(e)) return false;
      throw e;
    }
  };
  return {
    async read(key) {
      const out = await client.send(new GetItemCommand({ TableName: tableName, Key: itemKey(key), ConsistentRead: true }));
      if (!out.Item) return null;
      const record: LeaseRecord = { owner: out.Item.owner?.S ?? '', token: Number(out.Item.token?.N ?? 0), expiresAt: Number(out.Item.expiresAt?.N ?? 0) };
      return { record, version: record.token };
    },
    replace(key, record, version) {
      return conditional(() =>
        client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: { ...itemKey(key), owner: { S: record.owner }, token: { N: String(record.token) }, expiresAt: { N: String(record.expiresAt) } },
            ...(version !== null
              ? {
                  ConditionExpression: '#token = :token',
                  ExpressionAttributeNames: { '#token': 'token' },
                  ExpressionAttributeValues: { ':token': { N: String(version) } },
                }
              : { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY } }),
          }),
        ),
      );
    },
    extend(key, held, expiresAt) {
      return conditional(() =>
        client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: itemKey(key),
            UpdateExpression: 'SET #exp = :exp',
            ConditionExpression: '#owner = :owner AND #token = :token',
            ExpressionAttributeNames: { '#exp': 'expiresAt', '#owner': 'owner', '#token': 'token' },
            ExpressionAttributeValues: { ':exp': { N: String(expiresAt) }, ':owner': { S: held.owner }, ':token': { N: String(held.token) } },
          }),
        ),
      );
    },
  };
}

const itemKey = (key: string): Record<string, AttributeValue> => ({ [PARTITION_KEY]: { S: LEASE_PREFIX + key } });
