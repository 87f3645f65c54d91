// The engine's StateStore port on DynamoDB: one item per key, every write a conditional write on the stored
// revision (and, for a fenced write, on the highest lease token written so far), reads strongly consistent.
// Records above 64 KiB are gzipped (an item may hold 400 KB; a cluster of hundreds of machines has a large
// ledger), and a sparse index lists keys by prefix without a scan.
import { gunzipSync, gzipSync } from 'node:zlib';
import { DynamoDBClient, GetItemCommand, QueryCommand, ScanCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { checkKey, fenced, revisionConflict } from '@kubeplane/sdk/internal';
import type { PutOptions, StateStore, Versioned } from '@kubeplane/sdk';
import { awsClientConfig, type AwsClientOptions } from './client-config.js';
import { isConditionFailed, PARTITION_KEY, PREFIX_INDEX, SEGMENT_ATTRIBUTE, STATE_PREFIX, TTL_ATTRIBUTE } from './dynamodb-table.js';

const COMPRESS_ABOVE = 64 * 1024;

/** The DynamoDB table an adapter uses, with the AWS client options. */
export interface DynamoDbOptions extends AwsClientOptions {
  tableName: string;
  client?: DynamoDBClient;
}

/** The engine's StateStore port on DynamoDB, every write conditional on the stored revision. */
export class DynamoDbStateStore implements StateStore {
  readonly client: DynamoDBClient;
  readonly tableName: string;

  constructor(options: DynamoDbOptions) {
    this.client = options.client ?? new DynamoDBClient(awsClientConfig(options));
    this.tableName = options.tableName;
  }

  /** The value stored under a key with its revision, or null when there is none. */
  async get<T>(key: string): Promise<Versioned<T> | null> {
    checkKey(key);
    const out = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: pk(key), ConsistentRead: true }));
    // An item without a revision is a deleted key's tombstone, kept for its fence.
    if (!out.Item || out.Item.rev === undefined) return null;
    return { value: decode(out.Item) as T, revision: Number(out.Item.rev?.N ?? 0) };
  }

  /**
   * One UpdateItem whose condition checks the revision and, with `fence`, that no later lease holder wrote the
   * item (`fence` is the highest token written). An update, not a put: a write without a fence leaves the
   * stored fence as it is, and a key made again continues from its tombstone's last revision.
   */
  async put<T>(key: string, value: T, expectedRevision: number, options: PutOptions = {}): Promise<number> {
    checkKey(key);
    const { fence } = options;
    const body = encode(value);
    const names: Record<string, string> = {
      '#seg': SEGMENT_ATTRIBUTE,
      '#rev': 'rev',
      '#body': body.name,
      '#other': body.name === 'doc' ? 'docz' : 'doc',
      '#ttl': TTL_ATTRIBUTE,
    };
    const values: Record<string, AttributeValue> = { ':seg': { S: segment(key) }, ':body': body.value, ':one': { N: '1' } };
    let set = '#seg = :seg, #body = :body';
    const conditions = [];
    if (expectedRevision === 0) {
      // A new key, or one deleted earlier: its tombstone keeps the last revision, which the new life continues.
      conditions.push('attribute_not_exists(#rev)');
      names['#last'] = LAST_REVISION_ATTRIBUTE;
      values[':zero'] = { N: '0' };
      set += ', #rev = if_not_exists(#last, :zero) + :one';
    } else {
      conditions.push('#rev = :rev');
      values[':rev'] = { N: String(expectedRevision) };
      set += ', #rev = #rev + :one';
    }
    if (fence !== undefined) {
      names['#fence'] = FENCE_ATTRIBUTE;
      values[':fence'] = { N: String(fence) };
      // The condition lets a fenced write through only when the stored fence is at most `fence`, so max() is `fence`.
      conditions.push('(attribute_not_exists(#fence) OR #fence <= :fence)');
      set += ', #fence = :fence';
    }
    try {
      const out = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: pk(key),
          UpdateExpression: `SET ${set} REMOVE #other, #ttl`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.rev?.N ?? NaN);
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
      throw await this.#refusal(key, expectedRevision, fence);
    }
  }

  /**
   * Deletes the key when its revision matches (and, with `fence`, when no later lease holder wrote it). The item
   * stays as a tombstone holding the last revision and the fence (no `rev`, so it reads as missing and lists as
   * nothing; swept by TTL after a day, far longer than any lease): a later life of the key continues both, so a
   * writer of the deleted life can neither match a revision nor pass the fence (see Versioned, PutOptions).
   */
  async delete(key: string, expectedRevision: number, options: PutOptions = {}): Promise<void> {
    checkKey(key);
    if (expectedRevision === 0) {
      const actual = await this.#revision(key);
      if (actual !== 0) throw revisionConflict(key, 0, actual);
      return;
    }
    const { fence } = options;
    const names: Record<string, string> = { '#rev': 'rev', '#seg': SEGMENT_ATTRIBUTE, '#ttl': TTL_ATTRIBUTE, '#last': LAST_REVISION_ATTRIBUTE };
    const values: Record<string, AttributeValue> = { ':rev': { N: String(expectedRevision) }, ':ttl': { N: String(Math.ceil(Date.now() / 1000) + 86_400) } };
    let set = '#ttl = :ttl, #last = :rev';
    let condition = '#rev = :rev';
    if (fence !== undefined) {
      names['#fence'] = FENCE_ATTRIBUTE;
      values[':fence'] = { N: String(fence) };
      condition += ' AND (attribute_not_exists(#fence) OR #fence <= :fence)';
      set += ', #fence = :fence';
    }
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: pk(key),
          UpdateExpression: `SET ${set} REMOVE #seg, doc, docz, #rev`,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
      throw await this.#refusal(key, expectedRevision, fence);
    }
  }

  /** Which condition refused a write: read the item back (a write after the failure at worst names the other). */
  async #refusal(key: string, expectedRevision: number, fence: number | undefined): Promise<Error> {
    const stored = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: pk(key), ConsistentRead: true }));
    const storedFence = stored.Item?.[FENCE_ATTRIBUTE]?.N;
    if (fence !== undefined && storedFence !== undefined && Number(storedFence) > fence) return fenced(key, fence, Number(storedFence));
    return revisionConflict(key, expectedRevision, Number(stored.Item?.rev?.N ?? 0));
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
                FilterExpression: 'begins_with(#pk, :prefix) AND attribute_exists(#rev)',
                ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#rev': 'rev' },
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

/** The highest lease token (fencing token) a fenced write has carried, kept next to the revision. */
const FENCE_ATTRIBUTE = 'fence';
/** A tombstone's last revision: the revision its key had when it was deleted. */
const LAST_REVISION_ATTRIBUTE = 'lastrev';

const pk = (key: string): Record<string, AttributeValue> => ({ [PARTITION_KEY]: { S: STATE_PREFIX + key } });
const segment = (key: string) => key.split('/')[0] ?? key;

function encode(value: unknown): { name: 'doc' | 'docz'; value: AttributeValue } {
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json) <= COMPRESS_ABOVE) return { name: 'doc', value: { S: json } };
  return { name: 'docz', value: { B: gzipSync(json) } };
}

function decode(item: Record<string, AttributeValue>): unknown {
  if (item.docz?.B) return JSON.parse(gunzipSync(item.docz.B).toString('utf8'));
  return JSON.parse(item.doc?.S ?? 'null');
}
