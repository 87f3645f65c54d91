// EC2's `Filter.N.Name` / `Filter.N.Value.M` selection for Describe* actions: each action takes the filter names the
// AWS SDK's model documents for it (documented-filters.ts); one it does not document is refused as EC2 refuses it, one
// it documents that the sandbox cannot evaluate is refused in the sealed sandbox's words, and values match with the
// `*` and `?` wildcards. Also the selection by ids (`<IdName>.N`) and the `MaxResults`/`NextToken` paging they share.
import { queryList, queryMembers } from '../xml.js';
import { notEmulatedMessage } from '../aws-not-emulated.js';
import { EmulatorError } from '../emulator/index.js';
import { type DescribeAction, DOCUMENTED_FILTERS } from './documented-filters.js';
import { type Ec2IdKind, requireIds } from './ids.js';

export interface Ec2Filter {
  name: string;
  values: string[];
}

/** The actions that take `tag:<key>` (their model documents it): those of resources that carry tags, and DescribeTags. */
const TAGGED: ReadonlySet<DescribeAction> = new Set<DescribeAction>([
  'DescribeInstances',
  'DescribeImages',
  'DescribeVpcs',
  'DescribeSubnets',
  'DescribeSecurityGroups',
  'DescribeVolumes',
  'DescribeKeyPairs',
  'DescribeAddresses',
  'DescribeTags',
  'DescribeRouteTables',
  'DescribeInternetGateways',
]);

/** EC2's answer to a filter name the action does not take: "The filter 'public-ip' is invalid" (boto/boto3#1299). */
export function invalidFilter(name: string): EmulatorError {
  return new EmulatorError(400, 'InvalidParameterValue', `The filter '${name}' is invalid`);
}

/**
 * The request's filters for `action`. A name the action does not document is InvalidParameterValue, as on EC2; a
 * documented one the sandbox does not evaluate (EVALUATED_FILTERS) is refused as not emulated rather than matching
 * nothing or everything. A filter without a value is InvalidParameterValue too.
 */
export function filtersOf(p: URLSearchParams, action: DescribeAction): Ec2Filter[] {
  const filters = queryMembers(p, 'Filter').map((f) => ({ name: f.get('Name') ?? '', values: queryList(f, 'Value') }));
  const evaluated: readonly string[] = EVALUATED_FILTERS[action];
  const documented: readonly string[] = DOCUMENTED_FILTERS[action];
  for (const f of filters) {
    if (f.name.startsWith('tag:') && f.name.length > 4 && TAGGED.has(action)) continue;
    if (evaluated.includes(f.name)) continue;
    if (documented.includes(f.name)) throw new EmulatorError(400, 'UnsupportedOperation', notEmulatedMessage(`the filter '${f.name}' of EC2 ${action}`));
    throw invalidFilter(f.name);
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

/** The documented filters of `action` but those the sandbox cannot evaluate (a trailing `*` names a family). */
function documentedBut(action: DescribeAction, ...not: string[]): readonly string[] {
  return DOCUMENTED_FILTERS[action].filter((n) => !not.some((x) => (x.endsWith('*') ? n.startsWith(x.slice(0, -1)) : n === x)));
}

/**
 * The filters the sandbox evaluates per action: every documented one but those about what it does not model (an
 * instance's network interfaces, most instance type properties), and the older names DescribeSubnets still takes. A
 * filter about something the sandbox never has (a Dedicated Host, a kernel id, an IPv6 block) is evaluated: it matches
 * nothing, as on an account without one.
 */
export const EVALUATED_FILTERS: Record<DescribeAction, readonly string[]> = {
  DescribeInstances: documentedBut('DescribeInstances', 'network-interface.*'),
  DescribeImages: documentedBut('DescribeImages'),
  DescribeVpcs: documentedBut('DescribeVpcs'),
  DescribeSubnets: [...documentedBut('DescribeSubnets'), 'cidr', 'cidrBlock', 'availabilityZone', 'availabilityZoneId', 'defaultForAz'],
  DescribeSecurityGroups: documentedBut('DescribeSecurityGroups'),
  DescribeVolumes: documentedBut('DescribeVolumes'),
  DescribeKeyPairs: documentedBut('DescribeKeyPairs'),
  DescribeAddresses: documentedBut('DescribeAddresses'),
  // The catalog knows of a type its vCPUs, memory, architecture and GPUs; the rest of its properties it does not know.
  DescribeInstanceTypes: [
    'instance-type',
    'vcpu-info.default-vcpus',
    'memory-info.size-in-mib',
    'processor-info.supported-architecture',
    'bare-metal',
    'burstable-performance-supported',
  ],
  DescribeInstanceTypeOfferings: documentedBut('DescribeInstanceTypeOfferings'),
  DescribeAvailabilityZones: documentedBut('DescribeAvailabilityZones'),
  DescribeRegions: documentedBut('DescribeRegions'),
  DescribeTags: documentedBut('DescribeTags'),
  DescribeRouteTables: documentedBut('DescribeRouteTables'),
  DescribeInternetGateways: documentedBut('DescribeInternetGateways'),
};

/**
 * Applies `<IdName>.N` and `Filter.N` (Name, Value.M) selection. Ids of `kind` must be well formed and name a resource
 * (Describe* by id answers NotFound for an unknown one, it never returns an empty set).
 */
export function selectDescribed<T>(
  list: T[],
  p: URLSearchParams,
  action: DescribeAction,
  idName: string,
  idOf: (x: T) => string,
  attr: (x: T, name: string) => string[],
  kind?: Ec2IdKind | ((id: string) => EmulatorError),
): T[] {
  const ids = queryList(p, idName);
  const filters = filtersOf(p, action);
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

/**
 * `MaxResults`/`NextToken` paging (the token is the offset, opaque to clients). MaxResults must lie between 5 and the
 * action's maximum, as the Describe actions' references bound it.
 */
export function offsetPage<T>(list: readonly T[], p: URLSearchParams, max: number): { items: T[]; next?: string } {
  const asked = p.get('MaxResults');
  const wanted = asked === null ? max : Number(asked);
  if (!Number.isInteger(wanted) || wanted < 5 || wanted > max)
    throw new EmulatorError(400, 'InvalidParameterValue', `Value for parameter MaxResults is invalid: must be between 5 and ${max}`);
  const size = wanted;
  const start = Number(p.get('NextToken') ?? '0');
  if (!Number.isInteger(start) || start < 0)
    throw new EmulatorError(400, 'InvalidParameterValue', `Invalid value '${p.get('NextToken') ?? ''}' for NextToken.`);
  const items = list.slice(start, start + size);
  return start + size < list.length ? { items, next: String(start + size) } : { items };
}
