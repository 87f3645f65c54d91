// The STS Query API emulator: AssumeRole (session tags, external id, duration) and GetCallerIdentity, issuing
// temporary credentials that the sandbox's EC2 and Route 53 accept until they expire on the virtual clock. It is
// also the account's keyring: the long-lived key and every live session, for the other AWS emulators' signatures.
// Wire format and limits: STS API reference, AssumeRole (https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html).
import { http, HttpResponse, type HttpHandler } from 'msw';
import { type SandboxContext, countCall, requestId } from '../context.js';
import { el, queryMembers, t } from '../xml.js';
import { verifySigV4, type SigV4Result } from '../sigv4.js';
import { notEmulatedMessage } from '../aws-not-emulated.js';
import { STS_OPERATIONS } from '../aws-operations.js';

const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
/** The sandbox's AWS account (EC2's OwnerId). */
export const SANDBOX_AWS_ACCOUNT = '123456789012';
/** The role every sandbox account has, for kubeplane's AWS provider to assume (no external id). */
export const SANDBOX_PROVIDER_ROLE = `arn:aws:iam::${SANDBOX_AWS_ACCOUNT}:role/kubeplane-provider`;

/** A role the account holds, which AssumeRole may assume. */
export interface StsRole {
  arn: string;
  /** Required of callers when set (the confused-deputy guard of a role another account assumes). */
  externalId?: string;
  /** The role's MaxSessionDuration, seconds (IAM default 3600). */
  maxSessionSeconds?: number;
}

/** Temporary credentials AssumeRole issued, with the session's tags; `expiresAt` is virtual ms since the epoch. */
export interface StsSession {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  roleArn: string;
  sessionName: string;
  tags: Record<string, string>;
  expiresAt: number;
  /** Requests to any sandbox AWS service signed with it (and accepted). */
  uses: number;
}

/** The account's long-lived key and its roles (default: SANDBOX_PROVIDER_ROLE alone). */
export interface StsEmulatorOptions {
  accessKeyId: string;
  secretAccessKey: string;
  roles: StsRole[];
}

/** The roles, the sessions issued (with their secrets) and the id counter, as plain data for snapshots. */
export interface StsEmulatorState {
  roles: StsRole[];
  sessions: StsSession[];
  seq: number;
}

/** What the other AWS emulators check a signature against. */
export interface AwsKeyring {
  /** The request's signature checked against the long-lived key or the live session its token names. */
  verify(request: Request, body: string): SigV4Result | 'expired';
  /** Who signed a request: the account's user, or a role session with its session tags. */
  callerOf(request: Request): AwsCaller;
}

export interface AwsCaller {
  arn: string;
  /** A role session's tags (aws:PrincipalTag); none for the user. */
  tags: Record<string, string>;
}

class StsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;
const ROLE_ARN = /^arn:aws:iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]{1,64})$/;

/** The STS actions the emulator serves (the switch in handle()). */
const STS_SERVED = ['AssumeRole', 'GetCallerIdentity'] as const;

/**
 * The AWS STS Query API (AssumeRole with session tags, external id and duration; GetCallerIdentity) at
 * `https://sts[.<region>].amazonaws.com`. It is also the account's keyring: EC2 and Route 53 accept its sessions'
 * credentials until they expire on the virtual clock.
 */
export class StsEmulator implements AwsKeyring {
  /** The STS actions the emulator serves, for the coverage table. */
  servedOperations(): string[] {
    return [...STS_SERVED];
  }

  readonly #ctx: SandboxContext;
  readonly #options: StsEmulatorOptions;
  readonly #roles = new Map<string, StsRole>();
  readonly #sessions = new Map<string, StsSession>();
  #seq = 0;

  constructor(ctx: SandboxContext, options: Partial<StsEmulatorOptions> & { accessKeyId: string; secretAccessKey: string }) {
    this.#ctx = ctx;
    this.#options = { roles: [{ arn: SANDBOX_PROVIDER_ROLE }], ...options };
    for (const role of this.#options.roles) this.addRole(role);
  }

  /** Adds (or replaces) a role the account holds. */
  addRole(role: StsRole): void {
    this.#roles.set(role.arn, role);
  }

  /** The sessions issued so far, live or expired (for tests: the tags a provider's session carried). */
  sessions(): StsSession[] {
    return [...this.#sessions.values()].map((s) => ({ ...s, tags: { ...s.tags } }));
  }

  /** The roles and sessions as plain data; it holds the sessions' secret keys, so never log it. */
  state(): StsEmulatorState {
    return { roles: [...this.#roles.values()].map((r) => ({ ...r })), sessions: this.sessions(), seq: this.#seq };
  }

  /** Replaces the roles and sessions with those of `state()`. */
  restore(state: StsEmulatorState): void {
    this.#roles.clear();
    for (const role of state.roles) this.addRole({ ...role });
    this.#sessions.clear();
    for (const session of state.sessions) this.#sessions.set(session.accessKeyId, { ...session, tags: { ...session.tags } });
    this.#seq = state.seq;
  }

  /** Ends a session now, as a revoked one ends (its holder still thinks it has time). */
  endSession(accessKeyId: string): void {
    const session = this.#sessions.get(accessKeyId);
    if (session) session.expiresAt = Math.min(session.expiresAt, this.#ctx.clock.now());
  }

  /** The msw handler serving STS at its global and Regional endpoints. */
  handlers(): HttpHandler[] {
    // The SDK calls the Regional endpoint (sts.<region>.amazonaws.com); older tools the global one.
    return [http.post(/^https:\/\/sts(\.[a-z0-9-]+)?\.amazonaws\.com\/$/, async ({ request }) => this.#handle(request))];
  }

  verify(request: Request, body: string): SigV4Result | 'expired' {
    const token = request.headers.get('x-amz-security-token');
    if (token === null) return verifySigV4(request, body, new Map([[this.#options.accessKeyId, this.#options.secretAccessKey]]));
    const session = [...this.#sessions.values()].find((s) => s.sessionToken === token);
    if (!session) return 'unknown-key';
    const signed = verifySigV4(request, body, new Map([[session.accessKeyId, session.secretAccessKey]]));
    if (signed !== 'ok') return signed;
    if (this.#ctx.clock.now() >= session.expiresAt) return 'expired';
    session.uses += 1;
    return 'ok';
  }

  async #handle(request: Request): Promise<Response> {
    const text = await request.text();
    const params = new URLSearchParams(text);
    const action = params.get('Action') ?? '';
    countCall(this.#ctx, 'sts', action);
    const signed = this.verify(request, text);
    if (signed === 'expired') return this.#error(new StsError(400, 'ExpiredToken', 'The security token included in the request is expired'));
    if (signed === 'unknown-key' || signed === 'missing')
      return this.#error(new StsError(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.'));
    if (signed !== 'ok')
      return this.#error(new StsError(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'));
    const fault = this.#ctx.faults.take('sts', action);
    if (fault === 'throttled' || fault === 'throttled-no-headers') return this.#error(new StsError(400, 'Throttling', 'Rate exceeded'));
    if (fault === 'server-error') return this.#error(new StsError(500, 'InternalFailure', 'An internal error has occurred'));
    if (fault === 'timeout' || fault === 'lost-response') return HttpResponse.error();
    try {
      switch (action) {
        case 'AssumeRole':
          return this.#assumeRole(params, this.#caller(request));
        case 'GetCallerIdentity': {
          const caller = this.#caller(request);
          return this.#xml('GetCallerIdentity', t('Arn', caller.arn) + t('UserId', caller.userId) + t('Account', SANDBOX_AWS_ACCOUNT));
        }
        default:
          // An action of STS's model the sandbox does not serve says so in the sealed sandbox's words; any other, as STS.
          return this.#error(
            new StsError(
              400,
              'InvalidAction',
              STS_OPERATIONS.has(action)
                ? notEmulatedMessage(`STS ${action}`)
                : `Could not find operation ${action} for version ${params.get('Version') ?? 'NO_VERSION_SPECIFIED'}`,
            ),
          );
      }
    } catch (e) {
      if (e instanceof StsError) return this.#error(e);
      throw e;
    }
  }

  callerOf(request: Request): AwsCaller {
    const { arn, session } = this.#caller(request);
    return { arn, tags: { ...(session?.tags ?? {}) } };
  }

  #caller(request: Request): { arn: string; userId: string; session?: StsSession } {
    const token = request.headers.get('x-amz-security-token');
    const session = token === null ? undefined : [...this.#sessions.values()].find((s) => s.sessionToken === token);
    if (!session) return { arn: `arn:aws:iam::${SANDBOX_AWS_ACCOUNT}:user/kubeplane-sandbox`, userId: 'AIDASANDBOXUSER00001' };
    const role = ROLE_ARN.exec(session.roleArn)?.[2] ?? 'role';
    return {
      arn: `arn:aws:sts::${SANDBOX_AWS_ACCOUNT}:assumed-role/${role}/${session.sessionName}`,
      userId: `AROASANDBOX${role.length}:${session.sessionName}`,
      session,
    };
  }

  #assumeRole(p: URLSearchParams, caller: { arn: string }): Response {
    const roleArn = p.get('RoleArn') ?? '';
    const sessionName = p.get('RoleSessionName') ?? '';
    if (!roleArn) throw new StsError(400, 'MissingParameter', 'The request must contain the parameter RoleArn');
    if (!sessionName) throw new StsError(400, 'MissingParameter', 'The request must contain the parameter RoleSessionName');
    if (!SESSION_NAME.test(sessionName))
      throw new StsError(
        400,
        'ValidationError',
        `1 validation error detected: Value '${sessionName}' at 'roleSessionName' failed to ` +
          `satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*`,
      );
    const externalId = p.get('ExternalId');
    if (externalId !== null && !EXTERNAL_ID.test(externalId))
      throw new StsError(
        400,
        'ValidationError',
        "1 validation error detected: Value at 'externalId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@:\\/-]*",
      );
    const role = this.#roles.get(roleArn);
    // AWS does not say which of these failed (no such role, a trust policy that refuses, a wrong external id).
    if (!role || (role.externalId !== undefined && role.externalId !== externalId)) {
      throw new StsError(403, 'AccessDenied', `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`);
    }
    const duration = Number(p.get('DurationSeconds') ?? 3600);
    if (!Number.isInteger(duration) || duration < 900)
      throw new StsError(
        400,
        'ValidationError',
        `1 validation error detected: Value '${p.get('DurationSeconds')}' at 'durationSeconds' ` +
          `failed to satisfy constraint: Member must have value greater than or equal to 900`,
      );
    if (duration > (role.maxSessionSeconds ?? 3600))
      throw new StsError(400, 'ValidationError', 'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.');
    const tags: Record<string, string> = {};
    for (const member of queryMembers(p, 'Tags.member')) {
      const key = member.get('Key') ?? '';
      const value = member.get('Value') ?? '';
      if (key.length < 1 || key.length > 128 || value.length > 256)
        throw new StsError(400, 'ValidationError', 'A session tag key must have 1 to 128 characters and its value at most 256');
      // Keys are case-insensitive in STS: two that differ only in case are a duplicate.
      if (Object.keys(tags).some((k) => k.toLowerCase() === key.toLowerCase()))
        throw new StsError(400, 'InvalidParameterValue', `Duplicate tag keys found. Please note that Tag keys are case insensitive.`);
      tags[key] = value;
    }
    if (Object.keys(tags).length > 50) throw new StsError(400, 'ValidationError', 'You can pass up to 50 session tags.');
    this.#seq += 1;
    const suffix = this.#seq.toString(36).toUpperCase().padStart(12, '0');
    const rand = () => Math.floor(this.#ctx.random() * 0xffffffff).toString(36);
    const session: StsSession = {
      accessKeyId: `ASIA${suffix.padStart(16, '0')}`,
      secretAccessKey: `sandbox/sts/${rand()}${rand()}${rand()}${rand()}`.padEnd(40, 'x').slice(0, 40),
      sessionToken: `FwoGZXIvYXdzE${rand()}${rand()}${rand()}${rand()}${suffix}`,
      roleArn,
      sessionName,
      tags,
      expiresAt: this.#ctx.clock.now() + duration * 1000,
      uses: 0,
    };
    this.#sessions.set(session.accessKeyId, session);
    const roleName = ROLE_ARN.exec(roleArn)?.[2] ?? 'role';
    return this.#xml(
      'AssumeRole',
      el(
        'AssumedRoleUser',
        t('Arn', `arn:aws:sts::${SANDBOX_AWS_ACCOUNT}:assumed-role/${roleName}/${sessionName}`) + t('AssumedRoleId', `AROASANDBOX${suffix}:${sessionName}`),
      ) +
        el(
          'Credentials',
          t('AccessKeyId', session.accessKeyId) +
            t('SecretAccessKey', session.secretAccessKey) +
            t('SessionToken', session.sessionToken) +
            t('Expiration', new Date(session.expiresAt).toISOString()),
        ) +
        t('PackedPolicySize', Object.keys(tags).length === 0 ? undefined : Math.min(100, 6 + Object.keys(tags).length * 4)),
    );
  }

  #xml(action: string, result: string): Response {
    return new HttpResponse(
      `<${action}Response xmlns="${XMLNS}">${el(`${action}Result`, result)}${el('ResponseMetadata', t('RequestId', requestId()))}</${action}Response>`,
      { status: 200, headers: { 'content-type': 'text/xml' } },
    );
  }

  #error(e: StsError): Response {
    const id = requestId();
    const error = `<Error>${t('Type', e.status >= 500 ? 'Receiver' : 'Sender')}${t('Code', e.code)}${t('Message', e.message)}</Error>`;
    return new HttpResponse(`<ErrorResponse xmlns="${XMLNS}">${error}${t('RequestId', id)}</ErrorResponse>`, {
      status: e.status,
      headers: { 'content-type': 'text/xml', 'x-amzn-requestid': id },
    });
  }
}
