// The HTTP API on Google Cloud (an HTTP function, i.e. a Cloud Run service), over the runtime's API core
// (runtime/api.ts): the same routes and access model as on AWS, with Google principals (emails).
// Who calls, in one of two modes:
// - `iam` (default): Cloud Run checked the caller's Google-signed token and its run.invoker role before the request
//   arrived, and forwards the token with its signature replaced (`SIGNATURE_REMOVED_BY_GOOGLE`), from
//   X-Serverless-Authorization when the caller used it, else Authorization
//   (https://cloud.google.com/run/docs/authenticating/service-to-service). The caller is the token's `email`.
// - `id-token`: the function is reachable without Cloud Run's check (allUsers has run.invoker, e.g. behind a load
//   balancer) and verifies a Google ID token itself: signature against Google's certificates, issuer, expiry, and the
//   audience KUBEPLANE_API_AUDIENCE (google-auth-library's OAuth2Client.verifyIdToken).
// Without a caller email the request is refused (401) before anything is looked at.
import { OAuth2Client } from 'google-auth-library';
import type { Request } from '@google-cloud/functions-framework';
import type { Kubeplane } from '@kubeplane/sdk';
import { jsonLogger, type Logger } from '../runtime/logger.js';
import type { AccessPolicy } from '../aws/access.js';
import { createApiCore, json, type ApiResponse } from '../runtime/api.js';
import type { HttpHandler } from './cloud-tasks-step-handler.js';
import type { GcpApiAuth } from './runtime.js';
import { GCP_PROVIDER_SECRET_PREFIX, refusedGcpSecretRefs } from './secret-refs.js';

/** What the API function runs with: the Kubeplane, access policy, caller authentication, project and provider secret prefix. */
export interface GcpApiHandlerOptions {
  kubeplane: Kubeplane;
  /** gcpAccessPolicy(KUBEPLANE_ACCESS); none refuses every request. */
  access: AccessPolicy;
  auth: GcpApiAuth;
  /** The Google project the runtime runs in: provider secrets must be its own. */
  projectId: string;
  /** Provider secret ids must start with `<prefix><manifest project>-` (default `kubeplane-providers-`). */
  providerSecretPrefix?: string;
  /** Verifies ID tokens in `id-token` mode (default: a new OAuth2Client, which fetches and caches Google's certs). */
  verifier?: OAuth2Client;
  logger?: Logger;
  maxBodyBytes?: number;
}

/** Builds the HTTP function of the serverless API on Google Cloud. */
export function createGcpApiHandler(options: GcpApiHandlerOptions): HttpHandler {
  const logger = options.logger ?? jsonLogger();
  const { access } = options;
  if (access.size === 0) logger.log('warn', 'no access grants: every request is refused; grant callers projects in KUBEPLANE_ACCESS (docs/serverless.md)');
  else logger.log('info', 'access grants loaded', { grants: access.size });
  const prefix = options.providerSecretPrefix ?? GCP_PROVIDER_SECRET_PREFIX;
  const core = createApiCore({
    kubeplane: options.kubeplane,
    access,
    logger,
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    refusedSecretRefs: (m) => refusedGcpSecretRefs(m, options.projectId, prefix),
  });
  const verifier = options.verifier ?? new OAuth2Client();

  async function callerEmail(req: Request): Promise<{ email: string } | { refusal: string }> {
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const bearer = /^Bearer\s+(\S+)$/i.exec(header('x-serverless-authorization') ?? header('authorization') ?? '')?.[1];
    if (!bearer) return { refusal: 'no bearer token in the request' };
    if (options.auth.mode === 'iam') {
      const payload = jwtPayload(bearer);
      const email = typeof payload?.email === 'string' ? payload.email : undefined;
      return email
        ? { email }
        : {
            refusal:
              'the token Cloud Run forwarded names no email; callers must use an ID token ' +
              "of a Google account or service account (Cloud Run's IAM check, run.invoker)",
          };
    }
    try {
      const ticket = await verifier.verifyIdToken({ idToken: bearer, audience: options.auth.audience });
      const payload = ticket.getPayload();
      if (!payload?.email) return { refusal: 'the ID token names no email' };
      if (payload.email_verified === false) return { refusal: "the ID token's email is not verified" };
      return { email: payload.email };
    } catch (e) {
      // The library's message says what failed (signature, expiry, audience), then quotes the token's claims: cut there.
      const message = e instanceof Error ? e.message : String(e);
      return { refusal: `the ID token was not accepted: ${message.split(': {')[0]}` };
    }
  }

  return async (req, res) => {
    const method = req.method.toUpperCase();
    const path = req.path;
    const forwarded = req.headers['x-forwarded-for'];
    const sourceIp = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim() || req.ip;
    const who = await callerEmail(req);
    let out: ApiResponse;
    if ('refusal' in who) {
      logger.log('warn', 'request refused', { status: 401, method, path, sourceIp, reason: who.refusal });
      out = json(401, { error: `no verified caller: ${who.refusal}` });
    } else {
      const body = req.rawBody
        ? req.rawBody.toString('utf8')
        : typeof req.body === 'string'
          ? req.body
          : req.body === undefined || (typeof req.body === 'object' && req.body !== null && Object.keys(req.body).length === 0)
            ? undefined
            : JSON.stringify(req.body);
      out = await core({ method, path, body, caller: { id: who.email, sourceIp } });
    }
    res.status(out.status).set(out.headers).send(out.body);
  };
}

/** A JWT's payload, unverified (Cloud Run verified it and removed the signature), or undefined when it is not one. */
function jwtPayload(token: string): Record<string, unknown> | undefined {
  const part = token.split('.')[1];
  if (!part) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
