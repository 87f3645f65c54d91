// EC2's `Filter.N.Name` / `Filter.N.Value.M` selection for Describe* actions: each action accepts the filter names its
// API reference lists; a name it does not know is refused, and values match with the `*` and `?` wildcards. Also the
// selection by ids (`<IdName>.N`) and the `MaxResults`/`NextToken` paging the Describe* actions share.
import { queryList, queryMembers } from '../xml.js';
import { EmulatorError } from '../emulator/index.js';
import { type Ec2IdKind, requireIds } from './ids.js';

export interface Ec2Filter {
  name: string;
  values: string[];
}

/** The request's filters, refusing any whose name is not in `known` (a `tag:<key>` filter is always known). */
export function filtersOf(p: URLSearchParams, known: readonly string[]): Ec2Filter[] {
  const filters = queryMembers(p, 'Filter').map((f) => ({ name: f.get('Name') ?? '', values: queryList(f, 'Value') }));
  for (const f of filters) {
    // EC2 answers an unknown filter name with InvalidParameterValue, "The filter 'public-ip' is invalid"
    // (https://github.com/boto/boto3/issues/1299). A filter AWS documents but the sandbox does not evaluate is refused the
    // same way rather than silently matching nothing.
    if (!f.name.startsWith('tag:') && !known.includes(f.name)) throw new EmulatorError(400, 'InvalidParameterValue', `The filter '${f.name}' is invalid`);
  }
  return filters;
}

/**
 * Whether one of `actual` matches one of the filter's values. "You can use wildcards with the filter values: an
 * asterisk (*) matches zero or more characters, and a question mark (?) matches zero or one character"
 * (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/Using_Filtering.html); a backslash escapes them.
 */
export function filterMatches(filter: Ec2Filter, actual: readonly string[]): boolean {
  return filter.values.some((pattern) => {
    const re = globToRegExp(pattern);
    return actual.some((v) => re.test(v));
  });
}

function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    if (c === '\\' && i + 1 < pattern.length) out += escapeRe(pattern[++i] ?? '');
    else if (c === '*') out += '.*';
    else if (c === '?') out += '.?';
    else out += escapeRe(c);
  }
  return new RegExp(`^${out}$`, 's');
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The filter names the sandbox evaluates per action, each one the action's API reference lists
 * (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_<Action>.html, "Filter.N"); `tag-key` everywhere tags are.
 */
export const KNOWN_FILTERS = {
  DescribeInstances: [
    'instance-id',
    'instance-state-name',
    'instance-state-code',
    'instance-type',
    'image-id',
    'client-token',
    'subnet-id',
    'vpc-id',
    'availability-zone',
    'private-ip-address',
    'ip-address',
    'key-name',
    'instance.group-id',
    'instance.group-name',
    'architecture',
    'instance-lifecycle',
    'spot-instance-request-id',
    'tag-key',
  ],
  DescribeVpcs: ['vpc-id', 'cidr', 'cidr-block-association.cidr-block', 'is-default', 'state', 'owner-id', 'tag-key'],
  DescribeSubnets: [
    'subnet-id',
    'vpc-id',
    'cidr-block',
    'cidr',
    'cidrBlock',
    'availability-zone',
    'availabilityZone',
    'availability-zone-id',
    'availabilityZoneId',
    'default-for-az',
    'defaultForAz',
    'state',
    'owner-id',
    'tag-key',
  ],
  DescribeSecurityGroups: ['group-id', 'group-name', 'vpc-id', 'description', 'owner-id', 'tag-key'],
  DescribeInternetGateways: ['internet-gateway-id', 'attachment.vpc-id', 'attachment.state', 'owner-id', 'tag-key'],
  DescribeRouteTables: ['route-table-id', 'vpc-id', 'association.main', 'owner-id', 'tag-key'],
  DescribeAddresses: ['allocation-id', 'association-id', 'instance-id', 'public-ip', 'domain', 'tag-key'],
  DescribeKeyPairs: ['key-pair-id', 'key-name', 'fingerprint', 'tag-key'],
  DescribeTags: ['key', 'value', 'resource-id', 'resource-type'],
  DescribeRegions: ['region-name', 'opt-in-status', 'endpoint'],
  DescribeAvailabilityZones: ['zone-name', 'zone-id', 'region-name', 'state', 'zone-type'],
  DescribeInstanceTypeOfferings: ['location', 'instance-type'],
  DescribeVolumes: [
    'volume-id',
    'size',
    'volume-type',
    'status',
    'availability-zone',
    'attachment.instance-id',
    'attachment.device',
    'attachment.status',
    'attachment.delete-on-termination',
    'tag-key',
  ],
} as const;

/**
 * Applies `<IdName>.N` and `Filter.N` (Name, Value.M) selection. Ids of `kind` must be well formed and name a resource
 * (Describe* by id answers NotFound for an unknown one, it never returns an empty set).
 */
export function selectDescribed<T>(
  list: T[],
  p: URLSearchParams,
  action: keyof typeof KNOWN_FILTERS,
  idName: string,
  idOf: (x: T) => string,
  attr: (x: T, name: string) => string[],
  kind?: Ec2IdKind | ((id: string) => EmulatorError),
): T[] {
  const ids = queryList(p, idName);
  const filters = filtersOf(p, KNOWN_FILTERS[action]);
  if (typeof kind === 'string') requireIds(kind, ids, (id) => list.some((x) => idOf(x) === id));
  const unknown = ids.find((id) => !list.some((x) => idOf(x) === id));
  if (typeof kind === 'function' && unknown !== undefined) throw kind(unknown);
  return list.filter((x) => (ids.length === 0 || ids.includes(idOf(x))) && filters.every((f) => filterMatches(f, attr(x, f.name))));
}

/** A resource's `tag:<key>` and `tag-key` filter values; nothing for any other name. */
export function tagAttr(tags: Record<string, string>, name: string): string[] {
  if (name.startsWith('tag:')) {
    const v = tags[name.slice(4)];
    return v === undefined ? [] : [v];
  }
  if (name === 'tag-key') return Object.keys(tags);
  return [];
}

/** `MaxResults`/`NextToken` paging (the token is the offset, opaque to clients). */
export function offsetPage<T>(list: readonly T[], p: URLSearchParams, max: number): { items: T[]; next?: string } {
  const size = Math.min(max, Number(p.get('MaxResults') ?? max) || max);
  const start = Number(p.get('NextToken') ?? '0');
  if (!Number.isInteger(start) || start < 0)
    throw new EmulatorError(400, 'InvalidParameterValue', `Invalid value '${p.get('NextToken') ?? ''}' for NextToken.`);
  const items = list.slice(start, start + size);
  return start + size < list.length ? { items, next: String(start + size) } : { items };
}
