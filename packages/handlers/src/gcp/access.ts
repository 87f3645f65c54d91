// Who may do what through the Google Cloud API: the same grants as on AWS (aws/access.ts: a role, reader or operator,
// on projects), for Google principals — the email of the verified caller (a user or a service account), `*` matching
// any run of characters (`*@team-a.example.com`, `deployer@my-project.iam.gserviceaccount.com`).
import * as z from 'zod';
import { KubeplaneError } from '@kubeplane/sdk';
import { ACCESS_ROLES, OPERATION_ROLES, projectPattern, wildcard, type AccessPolicy } from '../aws/access.js';

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** The schema of an access grant of the Google runtime's API: a principal's email, a role and projects. */
export const gcpAccessGrantSchema = z.strictObject({
  principal: z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') }).regex(EMAIL, {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not a Google account or service account email such ` +
      `as deployer@my-project.iam.gserviceaccount.com (* matches any run of characters)`,
  }),
  projects: z
    .array(projectPattern, { error: (i) => (i.input === undefined ? 'is required' : 'must be an array of project names or patterns') })
    .min(1, { error: 'is empty; name at least one project or pattern' }),
  role: z.enum(ACCESS_ROLES, {
    error: (issue) => (issue.input === undefined ? 'is required' : `${JSON.stringify(issue.input)} is not one of ${ACCESS_ROLES.join(', ')}`),
  }),
});
/** An access grant of the Google runtime's API. */
export type GcpAccessGrant = z.infer<typeof gcpAccessGrantSchema>;

/** The grants in KUBEPLANE_ACCESS (JSON); `source` names it in the error, which names each wrong grant by its index. */
export function gcpAccessPolicy(text: string | undefined, source: string): AccessPolicy {
  let value: unknown = [];
  if (text !== undefined) {
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new KubeplaneError(
        'invalid',
        `${source} is not JSON (${e instanceof Error ? e.message : String(e)}); set it to a JSON array of {"principal", "projects", "role"} grants`,
        { resource: source },
      );
    }
  }
  const parsed = z.array(gcpAccessGrantSchema, { error: 'must be an array of access grants' }).safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => {
      const [grant, ...field] = i.path;
      return grant === undefined ? i.message : `grant ${String(grant)}${field.length > 0 ? `, ${field.map(String).join('.')}` : ''}: ${i.message}`;
    });
    throw new KubeplaneError('invalid', `${source}: ${problems.join('; ')}`, { resource: source });
  }
  // Emails are case-insensitive in their domain and, at Google, in the local part too: compared lower-cased.
  const grants = parsed.data.map((g) => ({ role: g.role, principal: wildcard(g.principal.toLowerCase()), projects: g.projects.map(wildcard) }));
  return {
    size: grants.length,
    allows(caller, operation, project) {
      const needed = OPERATION_ROLES[operation];
      return grants.some(
        (g) => (needed === 'reader' || g.role === 'operator') && g.principal.test(caller.toLowerCase()) && g.projects.some((p) => p.test(project)),
      );
    },
  };
}
