// Google's ID tokens for the sandbox: an RSA key made at construction signs RS256 JWTs as Google's OAuth 2.0 issuer
// does (https://developers.google.com/identity/openid-connect/openid-connect#an-id-tokens-payload), and its public
// key is served where google-auth-library's OAuth2Client.verifyIdToken fetches Google's: the v1 PEM map
// (https://www.googleapis.com/oauth2/v1/certs) and the v3 JWKS (https://www.googleapis.com/oauth2/v3/certs).
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { VirtualClock } from '@kubeplane/sdk/provider';
import type { Json } from './api.js';

/** The `iss` of Google's ID tokens, which the sandbox's tokens carry too. */
export const GOOGLE_ISSUER = 'https://accounts.google.com';
const CERTS_V1 = 'https://www.googleapis.com/oauth2/v1/certs';
const CERTS_V3 = 'https://www.googleapis.com/oauth2/v3/certs';
/** Google's ID tokens expire an hour after they are issued. */
const LIFETIME_SECONDS = 3600;

const b64url = (data: string | Buffer): string => Buffer.from(data).toString('base64url');

interface Key {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
}

/**
 * Google's ID tokens in the sandbox: signs RS256 JWTs as Google's OAuth 2.0 issuer does, with a key made on first use,
 * and serves its public key where google-auth-library's `verifyIdToken` fetches Google's certificates.
 */
export class GoogleIdentityEmulator {
  readonly #clock: VirtualClock;
  #key: Key | undefined;

  constructor(options: { clock: VirtualClock }) {
    this.#clock = options.clock;
  }

  /** The emulator's key, made on first use (an RSA key takes tens of milliseconds; most sandboxes never need one). */
  get #keys(): Key {
    if (!this.#key) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      this.#key = {
        privateKey,
        publicKey,
        kid: createHash('sha1')
          .update(publicKey.export({ type: 'spki', format: 'der' }))
          .digest('hex'),
      };
    }
    return this.#key;
  }

  /** The key id tokens carry in their header and the certs endpoints name the key by. */
  get kid(): string {
    return this.#keys.kid;
  }

  /**
   * An ID token for a service account (what Cloud Tasks' oidcToken and the metadata server's identity endpoint
   * give): iss https://accounts.google.com, aud, azp and sub (the account's numeric id), email, email_verified, iat,
   * exp an hour later, on the sandbox's clock.
   */
  idToken(claims: { email: string; audience: string }): string {
    const iat = Math.floor(this.#clock.now() / 1000);
    const sub = BigInt(`0x${createHash('sha256').update(claims.email).digest('hex').slice(0, 15)}`)
      .toString()
      .padStart(21, '1');
    const header = { alg: 'RS256', kid: this.kid, typ: 'JWT' };
    const payload = { aud: claims.audience, azp: sub, email: claims.email, email_verified: true, exp: iat + LIFETIME_SECONDS, iat, iss: GOOGLE_ISSUER, sub };
    const signed = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
    return `${signed}.${b64url(sign('sha256', Buffer.from(signed), this.#keys.privateKey))}`;
  }

  /** The msw handlers serving the v1 PEM map and the v3 JWKS at www.googleapis.com/oauth2. */
  handlers(): HttpHandler[] {
    // Google serves X.509 certificates in the v1 map; a PEM public key verifies the same way (Node's crypto takes either).
    const cache = { 'cache-control': 'public, max-age=21600, must-revalidate, no-transform' };
    const pem = (): Record<string, string> => ({ [this.kid]: this.#keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() });
    const jwk = (): Json => ({ ...this.#keys.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: 'RS256', use: 'sig' });
    return [
      http.get(CERTS_V1, () => HttpResponse.json(pem(), { headers: cache })),
      http.get(CERTS_V3, () => HttpResponse.json({ keys: [jwk()] }, { headers: cache })),
    ];
  }
}
