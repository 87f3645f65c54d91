// Access grants: which caller ARNs a grant's principal matches (assumed roles by their role's name), and the
// grants refused when they are read, each error naming the grant.
import { describe, expect, it } from 'vitest';
import { accessPolicy, parseAccessGrants, type AccessGrant } from './access.js';

const policy = (...grants: AccessGrant[]) => accessPolicy(grants, 'test');

describe('an access grant', () => {
  it('matches an IAM user by its ARN as written, path included', () => {
    const p = policy({ principal: 'arn:aws:iam::123456789012:user/ops/alice', projects: ['web'], role: 'reader' });
    expect(p.allows('arn:aws:iam::123456789012:user/ops/alice', 'status', 'web')).toBe(true);
    expect(p.allows('arn:aws:iam::123456789012:user/alice', 'status', 'web')).toBe(false);
  });

  it("matches a role's sessions by the role's name, since STS drops the path, in the role's account only", () => {
    const p = policy({ principal: 'arn:aws:iam::123456789012:role/teams/team-a-*', projects: ['*'], role: 'reader' });
    expect(p.allows('arn:aws:sts::123456789012:assumed-role/team-a-ci/run-7', 'status', 'web')).toBe(true);
    expect(p.allows('arn:aws:sts::210987654321:assumed-role/team-a-ci/run-7', 'status', 'web')).toBe(false);
    // An IAM user of the role's name is not the role.
    expect(p.allows('arn:aws:iam::123456789012:user/team-a-ci', 'status', 'web')).toBe(false);
  });

  it('gives a reader status only, and an operator everything', () => {
    const caller = 'arn:aws:iam::123456789012:user/alice';
    const reader = policy({ principal: caller, projects: ['web'], role: 'reader' });
    const operator = policy({ principal: caller, projects: ['web'], role: 'operator' });
    expect((['status', 'apply', 'destroy', 'reconcile'] as const).map((op) => [reader.allows(caller, op, 'web'), operator.allows(caller, op, 'web')])).toEqual([
      [true, true],
      [false, true],
      [false, true],
      [false, true],
    ]);
  });

  it('reads * in a project pattern as any run of characters and everything else literally', () => {
    const caller = 'arn:aws:iam::123456789012:user/alice';
    const p = policy({ principal: caller, projects: ['team-a-*', 'exact.name'], role: 'reader' });
    expect(['team-a-web', 'team-a-', 'team-ab', 'exact.name', 'exactxname'].map((name) => p.allows(caller, 'status', name))).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
  });
});

describe('reading access grants', () => {
  it.each<[string, unknown, string]>([
    [
      'a role that is neither reader nor operator',
      [{ principal: 'arn:aws:iam::123456789012:user/a', projects: ['*'], role: 'admin' }],
      'grant 0, role: "admin" is not one of reader, operator',
    ],
    ['an empty principal', [{ principal: '', projects: ['*'], role: 'reader' }], 'grant 0, principal: is empty; name an IAM ARN'],
    ['a principal that is not an IAM ARN', [{ principal: 'team-a', projects: ['*'], role: 'reader' }], 'grant 0, principal: "team-a" is not an IAM or STS ARN'],
    [
      'a role path with nothing but * for the name',
      [{ principal: 'arn:aws:iam::123456789012:role/teams/*', projects: ['*'], role: 'reader' }],
      'grant 0, principal: arn:aws:iam::123456789012:role/teams/* selects roles by their path',
    ],
    [
      'a project pattern no project name could match',
      [{ principal: 'arn:aws:iam::123456789012:user/a', projects: ['web', 'Team_A'], role: 'reader' }],
      'grant 0, projects[1]: "Team_A" is not a project name or pattern',
    ],
    ['no projects', [{ principal: 'arn:aws:iam::123456789012:user/a', projects: [], role: 'reader' }], 'grant 0, projects: is empty'],
    [
      'a missing field, in the second grant',
      [
        { principal: 'arn:aws:iam::123456789012:user/a', projects: ['*'], role: 'reader' },
        { principal: 'arn:aws:iam::123456789012:user/b', projects: ['*'] },
      ],
      'grant 1, role: is required',
    ],
    ['something else than a list', { principal: 'arn:aws:iam::123456789012:user/a' }, 'must be an array of access grants'],
  ])('refuses %s, naming the grant', (_, input, message) => {
    expect(() => parseAccessGrants(input, 'KUBEPLANE_ACCESS')).toThrow(`KUBEPLANE_ACCESS: ${message}`);
  });
});
