// Who may do what through the serverless API: an access grant gives IAM principals a role (reader or operator) on
// projects, checked against the caller IAM auth verified (SigV4). No grant, no access: an empty list refuses everyone.
import * as z from 'zod';
import { KubeplaneError } from '@kubeplane/sdk';
import { checkDnsName } from '@kubeplane/sdk/internal';

/** reader: a project's status; operator: that, and apply, destroy and reconcile. */
export const ACCESS_ROLES = ['reader', 'operator'] as const;
/** A role an access grant gives: reader or operator. */
export type AccessRole = (typeof ACCESS_ROLES)[number];

/** What a request does to a project, and the least role that may do it. */
export const OPERATION_ROLES = { status: 'reader', apply: 'operator', destroy: 'operator', reconcile: 'operator', scale: 'operator' } as const satisfies Record<
  string,
  AccessRole
>;
/** An operation the serverless API performs on a project. */
export type ProjectOperation = keyof typeof OPERATION_ROLES;

// Any IAM or STS ARN, as the caller's appears in the event (`userArn`): arn:<partition>:iam|sts::<account>:<resource>.
const PRINCIPAL = /^arn:[^:\s]+:(iam|sts)::[^:\s]+:\S+$/;
// An IAM role ARN: an optional path, then the name, which is unique in its account whatever the path.
const IAM_ROLE = /^(arn:[^:]+:iam::[^:]+:role\/)(?:(.*)\/)?([^/]+)$/;
// The caller's ARN in an assumed role's session; STS drops the role's path.
const ASSUMED_ROLE = /^arn:([^:]+):sts::([^:]+):assumed-role\/([^/]+)\/[^/]+$/;

// Messages name no field: the error puts each after its grant's index (`grant 2, role: …`).
const required = (what: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

/** The schema of a project name, or a pattern with `*` for any run of characters. */
export const projectPattern = z.string({ error: required('a string') }).refine((p) => checkDnsName(p.replaceAll('*', 'x'), 'project') === null, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not a project name or pattern: lower-case letters, digits, '-' and '.', with * for any run of characters`,
});

const principal = z
  .string({ error: required('a string') })
  .min(1, { error: 'is empty; name an IAM ARN such as arn:aws:iam::123456789012:role/team-a', abort: true })
  .regex(PRINCIPAL, {
    error: (issue) => `${JSON.stringify(issue.input)} is not an IAM or STS ARN such as arn:aws:iam::123456789012:role/team-a (* matches any run of characters)`,
  })
  .refine((p) => !selectsRolesByPath(p), {
    error: (issue) =>
      `${String(issue.input)} selects roles by their path, which an assumed role's caller ARN does not carry, so it ` +
      `would match every role of the account; name the roles (role/team-a-*), or write role/* if every role is meant`,
  });

/** The schema of an access grant: an IAM principal, a role and the projects it covers. */
export const accessGrantSchema = z.strictObject({
  /** An IAM ARN (user, role, or an STS assumed-role session), `*` matching any run of characters. */
  principal,
  /** Project names or patterns (`team-a-*`, `*`). */
  projects: z
    .array(projectPattern, { error: required('an array of project names or patterns') })
    .min(1, { error: 'is empty; name at least one project or pattern' }),
  role: z.enum(ACCESS_ROLES, {
    error: (issue) => (issue.input === undefined ? 'is required' : `${JSON.stringify(issue.input)} is not one of ${ACCESS_ROLES.join(', ')}`),
  }),
});
/** An access grant of the AWS runtime's API. */
export type AccessGrant = z.infer<typeof accessGrantSchema>;

/**
 * The grants, checked; `source` names where they came from (an option, an environment variable) in the error, which
 * names each wrong grant by its index.
 */
export function parseAccessGrants(input: unknown, source: string): AccessGrant[] {
  const parsed = z.array(accessGrantSchema, { error: 'must be an array of access grants' }).safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => {
    const [grant, ...field] = i.path;
    if (grant === undefined) return i.message;
    const where = field.map((f, j) => (typeof f === 'number' ? `[${f}]` : `${j > 0 ? '.' : ''}${String(f)}`)).join('');
    return `grant ${String(grant)}${where ? `, ${where}` : ''}: ${i.message}`;
  });
  throw new KubeplaneError('invalid', `${source}: ${problems.join('; ')}`, { resource: source });
}

/** The grants in a JSON text (an environment variable's value); `source` names it in the error. */
export function accessGrantsFromJson(text: string, source: string): AccessGrant[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new KubeplaneError(
      'invalid',
      `${source} is not JSON (${e instanceof Error ? e.message : String(e)}); set it to a JSON array of {"principal", "projects", "role"} grants`,
      { resource: source },
    );
  }
  return parseAccessGrants(value, source);
}

/** The access grants of the API, asked whether a verified caller may do an operation on a project. */
export interface AccessPolicy {
  /** How many grants there are; none refuses every request. */
  readonly size: number;
  /** Whether the caller (its verified ARN) may do the operation on the project. */
  allows(callerArn: string, operation: ProjectOperation, project: string): boolean;
}

/**
 * The grants as a policy. A caller matches a grant written for its ARN; a caller in an assumed role's session
 * (`arn:aws:sts::<account>:assumed-role/<role>/<session>`) also matches a grant for the role
 * (`arn:aws:iam::<account>:role/[<path>/]<role>`), on the role's name: STS drops the path, so the path is not checked.
 */
export function accessPolicy(input: unknown, source: string): AccessPolicy {
  const grants = parseAccessGrants(input, source).map((g) => ({
    role: g.role,
    principal: wildcard(withoutRolePath(g.principal)),
    projects: g.projects.map(wildcard),
  }));
  return {
    size: grants.length,
    allows(callerArn, operation, project) {
      const identities = callerIdentities(callerArn);
      const needed = OPERATION_ROLES[operation];
      return grants.some(
        (g) => (needed === 'reader' || g.role === 'operator') && identities.some((id) => g.principal.test(id)) && g.projects.some((p) => p.test(project)),
      );
    },
  };
}

/** The ARNs a caller is known by: its own and, in an assumed role's session, the role's (without a path). */
function callerIdentities(arn: string): string[] {
  const assumed = ASSUMED_ROLE.exec(arn);
  return assumed ? [arn, `arn:${assumed[1]}:iam::${assumed[2]}:role/${assumed[3]}`] : [arn];
}

function withoutRolePath(principalArn: string): string {
  const role = IAM_ROLE.exec(principalArn);
  return role ? `${role[1]}${role[3]}` : principalArn;
}

/** `role/teams/*`: once the path goes (it cannot be checked), nothing but a wildcard is left of the name. */
function selectsRolesByPath(principalArn: string): boolean {
  const role = IAM_ROLE.exec(principalArn);
  return role?.[2] !== undefined && /^\*+$/.test(role[3] ?? '');
}

/** `*` matches any run of characters (none included), as in IAM's StringLike; everything else is literal. */
export function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&'))
      .join('.*')}$`,
  );
}
