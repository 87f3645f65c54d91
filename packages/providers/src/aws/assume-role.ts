// Short-lived credentials for the AWS provider: a session of an IAM role (STS AssumeRole), tagged with the cluster
// it works on so the role's policies can name that one cluster (aws:PrincipalTag), refreshed on the engine's clock
// before it expires. The session is asked for with the runtime's own identity (a Lambda function's role) or with
// long-lived keys when given.
import type { STSClient } from '@aws-sdk/client-sts';
import { KubeplaneError, type Clock, type Redacted } from '@kubeplane/sdk';
import { awsErrorKind } from './errors.js';
import { loadSts } from './sdk-modules.js';
import { OWN_ENDPOINTS } from './own-endpoints.js';

/** What the SDK signs with (its AwsCredentialIdentity). */
export interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** AWS access keys, each redacted, with the session token of temporary credentials. */
export interface AwsKeys {
  accessKeyId: Redacted<string>;
  secretAccessKey: Redacted<string>;
  sessionToken?: Redacted<string>;
}

/** The IAM role kubeplane assumes in the user's account: its ARN, external id, session tags and name. */
export interface AwsRoleToAssume {
  roleArn: string;
  /** The external id the role's trust policy requires, if any (a role in another account). */
  externalId?: Redacted<string>;
  /** Session tags, e.g. `kubeplane.dev/cluster-id`: what the role's conditions compare resources with. */
  tags?: Record<string, string>;
  /** 2 to 64 of `[\w+=,.@-]`; shown in CloudTrail as the session's name. */
  sessionName: string;
  /** Default 3600, the longest a role allows unless its MaxSessionDuration is raised. */
  durationSeconds?: number;
}

/** A session this close to its end is replaced before the next call (the SDK's own margin is 5 minutes too). */
const REFRESH_MARGIN_MS = 5 * 60_000;

export const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;

/** A session name from free text (a cluster id): the characters STS allows, at most 64. */
export function sessionNameFor(text: string): string {
  const name = `kubeplane-${text}`.replace(/[^\w+=,.@-]/g, '-').slice(0, 64);
  return name.length >= 2 ? name : 'kubeplane';
}

export class AssumedRoleCredentials {
  /** Made on first use: the SDK module is loaded then. */
  readonly #sts: () => Promise<STSClient>;
  readonly #role: AwsRoleToAssume;
  readonly #clock: Clock;
  #current: { identity: AwsCredentialIdentity; expiresAt: number } | undefined;
  #pending: Promise<AwsCredentialIdentity> | undefined;

  /** `ownEndpoints`: STS at AWS's own endpoint whatever the environment says (AwsProviderOptions.ownEndpoints). */
  constructor(options: { role: AwsRoleToAssume; region: string; clock: Clock; base?: AwsKeys; ownEndpoints?: boolean }) {
    if (!ROLE_ARN.test(options.role.roleArn))
      throw new KubeplaneError('invalid', `"${options.role.roleArn}" is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)`);
    this.#role = options.role;
    this.#clock = options.clock;
    const base = options.base;
    // Without keys, the SDK's default chain: a Lambda function's or an instance's own role.
    let sts: Promise<STSClient> | undefined;
    this.#sts = () =>
      (sts ??= loadSts().then(
        (m) =>
          new m.STSClient({
            region: options.region,
            maxAttempts: 1,
            ...(options.ownEndpoints ? OWN_ENDPOINTS : {}),
            ...(base
              ? {
                  credentials: async () => ({
                    accessKeyId: base.accessKeyId.reveal(),
                    secretAccessKey: base.secretAccessKey.reveal(),
                    ...(base.sessionToken ? { sessionToken: base.sessionToken.reveal() } : {}),
                  }),
                }
              : {}),
          }),
      ));
  }

  /** The SDK's credential provider: the live session, or a new one when it is within the margin of its end. */
  readonly provider = async (): Promise<AwsCredentialIdentity> => {
    const now = this.#clock.now();
    const current = this.#current;
    // The SDK caches an identity by its `expiration` on the wall clock, while sessions end on the engine's clock
    // (virtual in the sandbox): handing it an identity that is due now makes it ask here before every call. Due by
    // Date.now(), the clock the SDK compares it with: `new Date()` does not follow a Date.now() a test has set to a
    // virtual clock (aws-emulators.ts followClock), and the SDK would keep a session past its end.
    if (current && now < current.expiresAt - REFRESH_MARGIN_MS) return { ...current.identity, expiration: new Date(Date.now()) };
    this.#pending ??= this.#assume().finally(() => {
      this.#pending = undefined;
    });
    return { ...(await this.#pending), expiration: new Date(Date.now()) };
  };

  /** Forgets the session (a service called it expired): the next call assumes the role again. */
  expire(): void {
    this.#current = undefined;
  }

  async #assume(): Promise<AwsCredentialIdentity> {
    const role = this.#role;
    let out;
    try {
      const [client, { AssumeRoleCommand }] = await Promise.all([this.#sts(), loadSts()]);
      out = await client.send(
        new AssumeRoleCommand({
          RoleArn: role.roleArn,
          RoleSessionName: role.sessionName,
          DurationSeconds: role.durationSeconds ?? 3600,
          ...(role.externalId ? { ExternalId: role.externalId.reveal() } : {}),
          ...(role.tags ? { Tags: Object.entries(role.tags).map(([Key, Value]) => ({ Key, Value })) } : {}),
        }),
      );
    } catch (error) {
      throw assumeRoleError(error, role.roleArn);
    }
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration)
      throw new KubeplaneError('retryable', `aws sts AssumeRole (${role.roleArn}): the answer held no credentials`);
    const identity = { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken };
    // STS's expiry is on the clock the engine runs on (the wall clock, or the sandbox's virtual one).
    const expiresAt = c.Expiration.getTime();
    this.#current = { identity, expiresAt: expiresAt > this.#clock.now() ? expiresAt : this.#clock.now() + (role.durationSeconds ?? 3600) * 1000 };
    return identity;
  }
}

function assumeRoleError(error: unknown, roleArn: string): KubeplaneError {
  if (error instanceof KubeplaneError) return error;
  const e = error as { name?: unknown; message?: unknown; $metadata?: { httpStatusCode?: number; requestId?: string } };
  const code = typeof e.name === 'string' ? e.name : 'Unknown';
  const status = e.$metadata?.httpStatusCode;
  const kind = status === undefined ? 'retryable' : awsErrorKind(code, status);
  const tip =
    kind === 'auth'
      ? "; check the role's trust policy (it must trust the identity kubeplane runs as, allow sts:TagSession, and name the external id given)"
      : '';
  return new KubeplaneError(kind, `aws sts AssumeRole (${roleArn}): ${code}: ${typeof e.message === 'string' ? e.message : 'request failed'}${tip}`, {
    provider: 'aws',
    code,
    resource: roleArn,
    ...(status !== undefined ? { status } : {}),
    ...(e.$metadata?.requestId ? { requestId: e.$metadata.requestId } : {}),
  });
}

/** Services' answers to a request signed with a session past its end: EC2 says RequestExpired, others ExpiredToken. */
const SESSION_ENDED = new Set(['ExpiredToken', 'RequestExpired']);

/**
 * `call`, where an answer that the session has ended (clocks apart, a session revoked early) drops it and becomes a
 * retry with a new one, not an auth failure.
 */
export function renewingEndedSession<T>(session: AssumedRoleCredentials, call: () => Promise<T>): () => Promise<T> {
  return async () => {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof KubeplaneError) || !SESSION_ENDED.has(String(e.details.code))) throw e;
      session.expire();
      throw new KubeplaneError('retryable', e.message, e.details);
    }
  };
}
