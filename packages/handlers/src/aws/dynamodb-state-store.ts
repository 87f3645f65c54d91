// The engine's StateStore port on DynamoDB: one item per key, every write a conditional write on the stored
// revision, reads strongly consistent. Records above 64 KiB are gzipped (an item may hold 400 KB; a cluster of
// hundreds of machines has a large ledger), and a sparse index lists keys by prefix without a scan.
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { checkKey, revisionConflict, type StateStore, type Versioned } from '@kubeplane/sdk';
import { awsClientConfig, type AwsClientOptions } from './client-config.js';
import { isConditionFailed, PARTITION_KEY, PREFIX_INDEX, SEGMENT_ATTRIBUTE, STATE_PREFIX } from './dynamodb-table.js';

const COMPRESS_ABOVE = 64 * 1024;

export interface DynamoDbOptions extends AwsClientOptions {
  tableName: string;
  client?: DynamoDBClient;
}

export class DynamoDbStateStore implements StateStore {
  readonly client: DynamoDBClient;
  readonly tableName: string;

  constructor(options: DynamoDbOptions) {
    this.client = options.client ?? new DynamoDBClient(awsClientConfig(options));
    this.tableName = options.tableName;
  }

  async get<T>(key: string): Promise<Versioned<T> | null> {
    checkKey(key);
    const out = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: pk(key), ConsistentRead: true }));
    if (!out.Item) return null;
    return { value: decode(out.Item) as T, revision: Number(out.Item.rev?.N ?? 0) };
  }

  async put<T>(key: string, value: T, expectedRevision: number): Promise<number> {
    checkKey(key);
    const revision = expectedRevision + 1;
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: { ...pk(key), [SEGMENT_ATTRIBUTE]: { S: segment(key) }, rev: { N: String(revision) }, ...encode(value) },
          ...(expectedRevision === 0
            ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY } }
            : { ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': { N: String(expectedRevision) } } }),
        }),
      );
      return revision;
    } catch (e) {
      if (isConditionFailed(e)) throw revisionConflict(key, expectedRevision, await this.#revision(key));
      throw e;
    }
  }

  async delete(key: string, expectedRevision: number): Promise<void> {
    checkKey(key);
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: pk(key),
          ...(expectedRevision === 0
            ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY } }
            : { ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': { N: String(expectedRevision) } } }),
        }),
      );
    } catch (e) {
      if (isConditionFailed(e)) throw revisionConflict(key, expectedRevision, await this.#revision(key));
      throw e;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let start: Record<string, AttributeValue> | undefined;
    const slash = prefix.indexOf('/');
    do {
      // A prefix naming a whole first segment ('clusters/') is a query on the index; anything else a scan.
      const out =
        slash > 0
          ? await this.client.send(
              new QueryCommand({
                TableName: this.tableName,
                IndexName: PREFIX_INDEX,
                KeyConditionExpression: '#seg = :seg AND begins_with(#pk, :prefix)',
                ExpressionAttributeNames: { '#seg': SEGMENT_ATTRIBUTE, '#pk': PARTITION_KEY },
                ExpressionAttributeValues: { ':seg': { S: prefix.slice(0, slash) }, ':prefix': { S: STATE_PREFIX + prefix } },
                ...(start ? { ExclusiveStartKey: start } : {}),
              }),
            )
          : await this.client.send(
              new ScanCommand({
                TableName: this.tableName,
                FilterExpression: 'begins_with(#pk, :prefix)',
                ExpressionAttributeNames: { '#pk': PARTITION_KEY },
                ExpressionAttributeValues: { ':prefix': { S: STATE_PREFIX + prefix } },
                ProjectionExpression: '#pk',
                ...(start ? { ExclusiveStartKey: start } : {}),
              }),
            );
      for (const item of out.Items ?? []) keys.push((item[PARTITION_KEY]?.S ?? '').slice(STATE_PREFIX.length));
      start = out.LastEvaluatedKey;
    } while (start);
    return keys.sort();
  }

  async #revision(key: string): Promise<number> {
    return (await this.get(key))?.revision ?? 0;
  }
}

const pk = (key: string): Record<string, AttributeValue> => ({ [PARTITION_KEY]: { S: STATE_PREFIX + key } });
const segment = (key: string) => key.split('/')[0] ?? key;

function encode(value: unknown): Record<string, AttributeValue> {
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json) <= COMPRESS_ABOVE) return { doc: { S: json } };
  return { docz: { B: gzipSync(json) } };
}

function decode(item: Record<string, AttributeValue>): unknown {
  if (item.docz?.B) return JSON.parse(gunzipSync(item.docz.B).toString('utf8'));
  return JSON.parse(item.doc?.S ?? 'null');
}
