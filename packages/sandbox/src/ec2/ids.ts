// The shapes of EC2 resource ids, and the errors for an id that is malformed or names nothing. An id is its prefix, a
// dash and 8 or 17 lowercase hex digits ("i-1234567890abcdef0"); EC2 checks the shape before it looks the id up.
import { EmulatorError } from '../emulator/index.js';

export type Ec2IdKind = 'instance' | 'vpc' | 'subnet' | 'security-group';

interface IdRule {
  prefix: string;
  /** The code for an id of the wrong shape; every kind here has one in AWS's list of client errors. */
  malformed: string;
  notFound: string;
  /** How EC2 names the kind in NotFound messages ("The vpc ID 'vpc-…' does not exist"). */
  noun: string;
}

/**
 * Codes from https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html ("Client error codes for
 * specific actions"): InvalidInstanceID.Malformed/.NotFound, InvalidVpcID.Malformed/.NotFound,
 * InvalidSubnetID.Malformed/.NotFound, InvalidGroupId.Malformed and InvalidGroup.NotFound (note the casing).
 */
const RULES: Record<Ec2IdKind, IdRule> = {
  instance: { prefix: 'i', malformed: 'InvalidInstanceID.Malformed', notFound: 'InvalidInstanceID.NotFound', noun: 'instance ID' },
  vpc: { prefix: 'vpc', malformed: 'InvalidVpcID.Malformed', notFound: 'InvalidVpcID.NotFound', noun: 'vpc ID' },
  subnet: { prefix: 'subnet', malformed: 'InvalidSubnetID.Malformed', notFound: 'InvalidSubnetID.NotFound', noun: 'subnet ID' },
  'security-group': { prefix: 'sg', malformed: 'InvalidGroupId.Malformed', notFound: 'InvalidGroup.NotFound', noun: 'security group' },
};

/** Whether `id` has the shape of an id with `prefix` (8 hex digits for older resources, 17 since 2016). */
export function wellFormedId(prefix: string, id: string): boolean {
  return new RegExp(`^${prefix}-(?:[0-9a-f]{8}|[0-9a-f]{17})$`).test(id);
}

/** Throws EC2's Malformed error for `id` of the wrong shape for `kind`. */
export function checkIdShape(kind: Ec2IdKind, id: string): void {
  const rule = RULES[kind];
  // EC2's words for a malformed id, as the Go SDK and Terraform users quote them: `Invalid id: "x" (expecting "sg-...")`.
  if (!wellFormedId(rule.prefix, id)) throw new EmulatorError(400, rule.malformed, `Invalid id: "${id}" (expecting "${rule.prefix}-...")`);
}

/** EC2's NotFound error for ids of `kind` that name nothing; it names them all ("The vpc ID 'a, b' does not exist"). */
export function notFound(kind: Ec2IdKind, ids: readonly string[]): EmulatorError {
  const rule = RULES[kind];
  const many = ids.length > 1;
  return new EmulatorError(400, rule.notFound, `The ${rule.noun}${many ? 's' : ''} '${ids.join(', ')}' ${many ? 'do' : 'does'} not exist`);
}

/**
 * Describe* by id: each id must be well formed and name a resource; `exists` says which do. EC2 answers the first
 * malformed id, else all the unknown ones in one NotFound.
 */
export function requireIds(kind: Ec2IdKind, ids: readonly string[], exists: (id: string) => boolean): void {
  for (const id of ids) checkIdShape(kind, id);
  const missing = ids.filter((id) => !exists(id));
  if (missing.length > 0) throw notFound(kind, missing);
}
