// Crusoe API request signing, version 1.0 (crusoecloud/client-go auth/v1/auth.go): HMAC-SHA256 over the
// path (with /v1), the canonical query, the method and a UTC timestamp to the second, keyed with the secret.
import { createHmac } from 'node:crypto';

export const SIGNATURE_VERSION = '1.0';

/** Go's `url.QueryEscape`: unreserved are A-Za-z0-9 and `-_.~`; space is `+`; the rest is upper-case %XX. */
export function goQueryEscape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function decodeQueryPart(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    // A malformed escape is kept as it is, as Go's ParseQuery would reject it; the signature then fails.
    return value;
  }
}

/**
 * The canonical form of a raw query: split on `&`, decode, sort by key in byte order (repeated keys keep
 * their order), re-encode with Go's escaping and join. The same string goes into the URL and the signature.
 */
export function canonicalQuery(rawQuery: string): string {
  const raw = rawQuery.startsWith('?') ? rawQuery.slice(1) : rawQuery;
  if (raw === '') return '';
  const pairs = raw
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq < 0 ? ([decodeQueryPart(part), ''] as const) : ([decodeQueryPart(part.slice(0, eq)), decodeQueryPart(part.slice(eq + 1))] as const);
    });
  // Array.prototype.sort is stable, so repeated keys keep their order; compare code units (byte order for ASCII keys).
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return pairs.map(([k, v]) => `${goQueryEscape(k)}=${goQueryEscape(v)}`).join('&');
}

/** Builds the canonical query from values (arrays become one comma-joined value, as the API takes them). */
export function buildQuery(query: Record<string, string | number | boolean | readonly string[] | undefined>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    const text = Array.isArray(v) ? v.join(',') : String(v);
    parts.push(`${goQueryEscape(k)}=${goQueryEscape(text)}`);
  }
  return canonicalQuery(parts.join('&'));
}

/** RFC 3339 in UTC to the second, as Go's time.RFC3339 prints it: `2025-01-02T03:04:05Z`. */
export function crusoeTimestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** What a Crusoe request signature covers: method, path, query, timestamp and the key that signs. */
export interface SigningInput {
  method: string;
  /** The URL path including the version prefix: `/v1/locations`. */
  path: string;
  /** The raw query (without `?`); it is canonicalised before signing. */
  rawQuery: string;
  timestamp: string;
  accessKeyId: string;
  /** The secret key as issued: unpadded base64url. */
  secretKey: string;
}

/** The four newline-terminated lines that are signed. */
export function signingPayload(input: Pick<SigningInput, 'method' | 'path' | 'rawQuery' | 'timestamp'>): string {
  return `${input.path}\n${canonicalQuery(input.rawQuery)}\n${input.method.toUpperCase()}\n${input.timestamp}\n`;
}

/** The signature alone (unpadded base64url of the HMAC). */
export function signature(input: SigningInput): string {
  const key = Buffer.from(input.secretKey, 'base64url');
  return createHmac('sha256', key).update(signingPayload(input)).digest('base64url');
}

/** The `Authorization` header value: `Bearer 1.0:<access key id>:<signature>`. */
export function authorizationHeader(input: SigningInput): string {
  return `Bearer ${SIGNATURE_VERSION}:${input.accessKeyId}:${signature(input)}`;
}
