// The one DynamoDB table behind the serverless runtime: state records, cluster leases, the queue's deduplication
// log and the shared rate budgets, told apart by the prefix of the partition key. A sparse index on the first key
// segment lists state keys by prefix without a scan; leases and budgets carry no segment, so they never appear in
// it. The CDK app and the tests create it from here.
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export const PARTITION_KEY = 'pk';
export const SEGMENT_ATTRIBUTE = 'seg';
export const PREFIX_INDEX = 'byPrefix';
export const STATE_PREFIX = 's/';
export const LEASE_PREFIX = 'l/';
export const DEDUPLICATION_PREFIX = 'd/';
/** Shared rate budgets: one item per budget key (dynamodb-rate-budget.ts). */
export const BUDGET_PREFIX = 'b/';
/** Expired deduplication entries are removed by DynamoDB's TTL on this attribute (epoch seconds). */
export const TTL_ATTRIBUTE = 'ttl';

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

export function isConditionFailed(e: unknown): boolean {
  return (e as { name?: unknown }).name === 'ConditionalCheckFailedException';
}
