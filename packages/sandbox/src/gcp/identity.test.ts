import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { OAuth2Client } from 'google-auth-library';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { GoogleIdentityEmulator } from './identity.js';

// verifyIdToken checks iat/exp against the real time, so this clock starts now.
const clock = new VirtualClock(Date.now());
const identity = new GoogleIdentityEmulator({ clock });
const server = setupServer(...identity.handlers());
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

const email = 'tasks@kubeplane-sandbox.iam.gserviceaccount.com';
const audience = 'https://europe-west1-kubeplane-sandbox.cloudfunctions.net/kubeplaneStep';

describe('Google ID tokens', () => {
  it('are accepted by google-auth-library with the certs it fetches', async () => {
    const ticket = await new OAuth2Client().verifyIdToken({ idToken: identity.idToken({ email, audience }), audience });
    expect(ticket.getPayload()).toMatchObject({ iss: 'https://accounts.google.com', aud: audience, email, email_verified: true });
    expect((ticket.getEnvelope() as { kid?: string } | undefined)?.kid).toBe(identity.kid);
  });

  it('are refused for another audience, when expired, or signed by another key', async () => {
    await expect(new OAuth2Client().verifyIdToken({ idToken: identity.idToken({ email, audience }), audience: 'https://elsewhere' })).rejects.toThrow(
      /Wrong recipient/,
    );
    const old = new GoogleIdentityEmulator({ clock: new VirtualClock(Date.now() - 2 * 3600_000) });
    const stale = old.idToken({ email, audience });
    await expect(new OAuth2Client().verifyIdToken({ idToken: stale, audience })).rejects.toThrow(/No pem found/);
    server.use(...old.handlers());
    await expect(new OAuth2Client().verifyIdToken({ idToken: stale, audience })).rejects.toThrow(/Token used too late/);
    server.resetHandlers();
  });

  it('serves a JWKS whose key matches', async () => {
    const jwks = (await (await fetch('https://www.googleapis.com/oauth2/v3/certs')).json()) as { keys: Array<{ kid: string; kty: string; n: string }> };
    expect(jwks.keys).toEqual([expect.objectContaining({ kid: identity.kid, kty: 'RSA', alg: 'RS256' })]);
  });
});
