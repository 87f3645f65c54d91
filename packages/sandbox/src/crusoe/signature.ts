// Crusoe's v1.0 request signatures, verified as the real API does: the key must be known, X-Crusoe-Timestamp within
// the allowed skew, the query sorted in the URL as in the signature, and the HMAC the one the secret gives.
import { timingSafeEqual } from 'node:crypto';
import { crusoeAuthorizationHeader as authorizationHeader, crusoeCanonicalQuery as canonicalQuery } from '@kubeplane/providers';

export interface SignatureCheck {
  /** Access key id -> secret (unpadded base64url). */
  keys: Record<string, string>;
  /** The time the timestamp is checked against (ms). */
  nowMs: number;
  maxSkewMs: number;
}

/** Why the request's v1.0 signature fails, or undefined when it is good. */
export function signatureFault(request: Request, url: URL, check: SignatureCheck): string | undefined {
  const auth = request.headers.get('authorization') ?? '';
  const m = /^Bearer 1\.0:([^:]+):([A-Za-z0-9_-]+)$/.exec(auth);
  if (!m) return 'missing or malformed Authorization header';
  const [, keyId, sig] = m;
  const secret = keyId === undefined ? undefined : check.keys[keyId];
  if (!secret || !sig) return 'unknown access key';
  const timestamp = request.headers.get('x-crusoe-timestamp') ?? '';
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/.test(timestamp)) return 'X-Crusoe-Timestamp must be RFC 3339 to the second';
  const when = Date.parse(timestamp);
  if (!Number.isFinite(when) || Math.abs(when - check.nowMs) > check.maxSkewMs) return 'request timestamp is outside the allowed window';
  const raw = url.search.replace(/^\?/, '');
  // The API wants the query sorted in the URL as well as in the signature.
  if (raw !== canonicalQuery(raw)) return 'query parameters must be lexicographically sorted and escaped';
  const expected = authorizationHeader({ method: request.method, path: url.pathname, rawQuery: raw, timestamp, accessKeyId: keyId ?? '', secretKey: secret });
  const a = Buffer.from(expected);
  const b = Buffer.from(auth);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return 'signature mismatch';
  return undefined;
}
