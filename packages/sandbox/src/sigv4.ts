// SigV4 verification for the AWS emulators: recomputes the request's signature with the account's secret
// key, so a wrong secret fails like it does on AWS (and the secret never travels: only the signature does).
import { createHash, createHmac } from 'node:crypto';

export type SigV4Result = 'ok' | 'missing' | 'unknown-key' | 'bad-signature';

const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * Checks a request's AWS Signature Version 4 (`Authorization: AWS4-HMAC-SHA256 …`) against `secrets` (access key id to
 * secret key) by recomputing it over the method, path, query, signed headers and `body`. It does not check the date.
 */
export function verifySigV4(request: Request, body: string, secrets: ReadonlyMap<string, string>): SigV4Result {
  const auth = request.headers.get('authorization') ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!match) return 'missing';
  const [, keyId = '', date = '', region = '', service = '', signedHeaders = '', signature = ''] = match;
  const secret = secrets.get(keyId);
  if (secret === undefined) return 'unknown-key';
  const amzDate = request.headers.get('x-amz-date') ?? '';
  const payloadHash = request.headers.get('x-amz-content-sha256') ?? sha256(body);
  if (payloadHash !== sha256(body) && payloadHash !== 'UNSIGNED-PAYLOAD') return 'bad-signature';
  const url = new URL(request.url);
  const canonicalUri =
    url.pathname
      .split('/')
      .map((segment) => enc(decodeURIComponent(segment)))
      .join('/') || '/';
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? a[1].localeCompare(b[1]) : a[0] < b[0] ? -1 : 1));
  const canonicalQuery = query.map(([k, v]) => `${k}=${v}`).join('&');
  const names = signedHeaders.split(';');
  const canonicalHeaders = names
    .map((name) => `${name}:${(name === 'host' ? (request.headers.get('host') ?? url.host) : (request.headers.get(name) ?? '')).trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [request.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex') === signature ? 'ok' : 'bad-signature';
}
