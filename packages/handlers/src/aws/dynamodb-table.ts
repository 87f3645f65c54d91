// The one DynamoDB table behind the serverless runtime: state records, cluster leases, the queue's deduplication
// log and the shared rate budgets, told apart by the prefix of the partition key. A sparse index on the first key
// segment lists state keys by prefix without a scan; leases and budgets carry no segment, so they never appear in
// it. The CDK app and the tests create it from here.
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** The name of the table's partition key. */
export const PARTITION_KEY = 'pk';
/** The attribute the prefix index is keyed on. */
export const SEGMENT_ATTRIBUTE = 'seg';
/** The name of the table's sparse index for listing keys by prefix. */
export const PREFIX_INDEX = 'byPrefix';
/** The partition-key prefix of state records. */
export const STATE_PREFIX = 's/';
/** The partition-key prefix of leases. */
export const LEASE_PREFIX = 'l/';
/** The partition-key prefix of deduplication claims. */
export const DEDUPLICATION_PREFIX = 'd/';
/** Shared rate budgets: one item per budget key (dynamodb-rate-budget.ts). */
export const BUDGET_PREFIX = 'b/';
/** Expired deduplication entries are removed by DynamoDB's TTL on this attribute (epoch seconds). */
export const TTL_ATTRIBUTE = 'ttl';

/** The CreateTable input of the runtime's table and its prefix index. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: SEGMENT_ATTRIBUTE, AttributeType: 'S' },
    ],
    KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [
      {
        IndexName: PREFIX_INDEX,
        KeySchema: [
          { AttributeName: SEGMENT_ATTRIBUTE, KeyType: 'HASH' },
          { AttributeName: PARTITION_KEY, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ],
  };
}

/** Whether an error is DynamoDB's ConditionalCheckFailedException. */
export function isConditionFailed(e: unknown): boolean {
  return (e as { name?: unknown }).name === 'ConditionalCheckFailedException';
}
