// CreateTags, DeleteTags and DescribeTags over every taggable resource the emulator keeps: the rules AWS states for
// tags (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/Using_Tags.html, "Tag restrictions") and the actions'
// API references (API_CreateTags.html, API_DeleteTags.html, API_DescribeTags.html).
import { EmulatorError } from '../emulator/index.js';
import { items, queryList, queryMembers, t } from '../xml.js';
import { done, type Ec2Routes, result } from './dialect.js';
import { filterMatches, filtersOf, offsetPage } from './filters.js';
import { checkIdShape, notFound, wellFormedId, type Ec2IdKind } from './ids.js';
import type { Taggable, Tags } from './resources.js';
import type { Ec2World } from './world.js';

/** Per id prefix: the resource type DescribeTags reports and the NotFound code EC2 gives for an unknown id. */
const PREFIXES: Record<string, { type: string; kind?: Ec2IdKind; notFound?: string; noun?: string }> = {
  i: { type: 'instance', kind: 'instance' },
  vpc: { type: 'vpc', kind: 'vpc' },
  subnet: { type: 'subnet', kind: 'subnet' },
  sg: { type: 'security-group', kind: 'security-group' },
  igw: { type: 'internet-gateway', notFound: 'InvalidInternetGatewayID.NotFound', noun: 'internetGateway ID' },
  rtb: { type: 'route-table', notFound: 'InvalidRouteTableID.NotFound', noun: 'routeTable ID' },
  eipalloc: { type: 'elastic-ip', notFound: 'InvalidAllocationID.NotFound', noun: 'allocation ID' },
  key: { type: 'key-pair', notFound: 'InvalidKeyPair.NotFound', noun: 'key pair' },
  vol: { type: 'volume', notFound: 'InvalidVolume.NotFound', noun: 'volume' },
};

const MAX_TAGS = 50;

/** The resources `ResourceId.N` names, each checked: a malformed id or one of a type not taggable is InvalidID. */
function resolve(p: URLSearchParams, all: readonly Taggable[]): Taggable[] {
  const ids = queryList(p, 'ResourceId');
  if (ids.length === 0) throw new EmulatorError(400, 'MissingParameter', 'The request must contain the parameter resourceIdSet');
  return ids.map((id) => {
    const prefix = id.slice(0, Math.max(0, id.indexOf('-')));
    const rule = PREFIXES[prefix];
    if (!rule || !wellFormedId(prefix, id)) {
      if (rule?.kind) checkIdShape(rule.kind, id);
      throw new EmulatorError(400, 'InvalidID', `The ID '${id}' is not valid`);
    }
    const found = all.find((r) => r.id === id);
    if (found) return found;
    if (rule.kind) throw notFound(rule.kind, [id]);
    throw new EmulatorError(400, rule.notFound ?? 'InvalidID', `The ${rule.noun ?? 'ID'} '${id}' does not exist`);
  });
}

function tagsOf(p: URLSearchParams): Array<{ key: string; value: string | null }> {
  return queryMembers(p, 'Tag').map((t) => ({ key: t.get('Key') ?? '', value: t.get('Value') }));
}

/** CreateTags: adds or overwrites each tag on each resource, all or nothing. */
export function createTags(p: URLSearchParams, all: readonly Taggable[]): void {
  const resources = resolve(p, all);
  const tags = tagsOf(p);
  if (tags.length === 0) throw new EmulatorError(400, 'MissingParameter', 'The request must contain the parameter tagSet');
  for (const { key, value } of tags) {
    if (key.length === 0 || key.length > 128) throw new EmulatorError(400, 'InvalidParameterValue', `Tag key must be between 1 and 128 characters: '${key}'`);
    if ((value ?? '').length > 256)
      throw new EmulatorError(400, 'InvalidParameterValue', `Tag value exceeds the maximum length of 256 characters for key '${key}'`);
    // "You can't edit or delete tag keys or values that begin with aws:" (Tag restrictions).
    if (key.toLowerCase().startsWith('aws:'))
      throw new EmulatorError(400, 'InvalidParameterValue', `Tag keys starting with 'aws:' are reserved for internal use: '${key}'`);
  }
  for (const r of resources) {
    const after = new Set([...Object.keys(r.tags), ...tags.map((t) => t.key)]);
    // "Maximum number of tags per resource: 50" (Tag restrictions).
    if (after.size > MAX_TAGS)
      throw new EmulatorError(400, 'TagLimitExceeded', `The maximum number of Tags for a resource has been reached (${r.id} would have ${after.size}).`);
  }
  for (const r of resources) for (const { key, value } of tags) r.tags[key] = value ?? '';
}

/**
 * DeleteTags: without `Tag.N` every tag goes (but those starting with aws:); a key without a value deletes the tag
 * whatever its value; a key with a value (even the empty string) deletes it only if the value is that one.
 */
export function deleteTags(p: URLSearchParams, all: readonly Taggable[]): void {
  const resources = resolve(p, all);
  const tags = tagsOf(p);
  for (const r of resources) {
    for (const key of Object.keys(r.tags)) {
      if (key.startsWith('aws:')) continue;
      const named = tags.filter((t) => t.key === key);
      if (tags.length === 0 || named.some((t) => t.value === null || t.value === r.tags[key])) delete r.tags[key];
    }
  }
}

export interface TagDescription {
  resourceId: string;
  resourceType: string;
  key: string;
  value: string;
}

/** DescribeTags: one entry per tag, filtered by key, value, resource-id and resource-type, ordered by resource then key. */
export function describeTags(p: URLSearchParams, all: readonly Taggable[]): TagDescription[] {
  const filters = filtersOf(p, 'DescribeTags');
  const entries = all.flatMap((r) => Object.entries(r.tags).map(([key, value]) => ({ resourceId: r.id, resourceType: r.type, key, value, tags: r.tags })));
  // `tag:<key>` selects the tags of the resources that carry that tag with one of the values (API_DescribeTags.html).
  const attr = (e: TagDescription & { tags: Tags }, name: string): string[] => {
    if (name.startsWith('tag:')) {
      const v = e.tags[name.slice(4)];
      return v === undefined ? [] : [v];
    }
    return [name === 'key' ? e.key : name === 'value' ? e.value : name === 'resource-id' ? e.resourceId : e.resourceType];
  };
  return entries
    .filter((e) => filters.every((f) => filterMatches(f, attr(e, f.name))))
    .sort((a, b) => a.resourceId.localeCompare(b.resourceId) || a.key.localeCompare(b.key))
    .map(({ tags: _, ...e }) => e);
}

/** A resource's `tagSet`, as every Describe* answer carries it. */
export function tagsXml(tags: Tags): string {
  return items('tagSet', Object.entries(tags), ([k, v]) => t('key', k) + t('value', v));
}

export function tagRoutes(w: Ec2World): Ec2Routes {
  return [
    [
      'CreateTags',
      ({ body }) => {
        createTags(body, w.taggables());
        return done();
      },
    ],
    [
      'DeleteTags',
      ({ body }) => {
        deleteTags(body, w.taggables());
        return done();
      },
    ],
    [
      'DescribeTags',
      ({ body }) => {
        const page = offsetPage(describeTags(body, w.taggables()), body, 1000);
        return result(
          items('tagSet', page.items, (x) => t('resourceId', x.resourceId) + t('resourceType', x.resourceType) + t('key', x.key) + t('value', x.value)) +
            t('nextToken', page.next),
        );
      },
    ],
  ];
}
