// secretRef.awsSecretsManager.region: the step function reads a provider's secret from the Region the reference names
// (Secrets Manager is regional: a secret exists in one Region only), and from its own Region when none is named. Two
// regional Secrets Manager endpoints answer on msw, each holding only its own secrets, as the real ones do.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { isKubeplaneError, type ProviderDef } from '@kubeplane/sdk';
import { awsRuntimeFromEnv } from './runtime.js';

const env = {
  AWS_REGION: 'eu-central-1',
  KUBEPLANE_TABLE: 'kubeplane',
  KUBEPLANE_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/steps',
};

/** The secrets each Region holds, by name. */
const held: Record<string, Record<string, string>> = {
  'eu-central-1': { 'kubeplane-providers/tenant-a/hetzner-home': JSON.stringify({ credentials: 'home-region-token' }) },
  'eu-west-1': { 'kubeplane-providers/tenant-a/hetzner-dublin': JSON.stringify({ credentials: 'dublin-token' }) },
};
/** Which Region answered which GetSecretValue, and the Region the request was signed for (its SigV4 credential scope). */
const reads: Array<{ endpoint: string; signedFor: string; secretId: string }> = [];

const regional = (region: string) =>
  http.post(`https://secretsmanager.${region}.amazonaws.com/`, async ({ request }) => {
    const body = (await request.json()) as { SecretId?: string };
    const scope = /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\/secretsmanager\//.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
    reads.push({ endpoint: region, signedFor: scope, secretId: String(body.SecretId) });
    if (request.headers.get('x-amz-target') !== 'secretsmanager.GetSecretValue')
      return HttpResponse.json({ __type: 'UnknownOperationException' }, { status: 400 });
    const value = held[region]?.[String(body.SecretId)];
    if (value === undefined)
      return HttpResponse.json(
        { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." },
        { status: 400, headers: { 'content-type': 'application/x-amz-json-1.1' } },
      );
    return HttpResponse.json(
      { ARN: `arn:aws:secretsmanager:${region}:123456789012:secret:${body.SecretId}-AbCdEf`, Name: body.SecretId, SecretString: value },
      { headers: { 'content-type': 'application/x-amz-json-1.1' } },
    );
  });

const server = setupServer(regional('eu-central-1'), regional('eu-west-1'));
beforeAll(() => {
  // The function's role credentials, as Lambda sets them (the SDK's default chain reads them from the environment).
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAFUNCTIONROLEKEY');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'function-role-secret');
  vi.stubEnv('AWS_SESSION_TOKEN', 'function-role-session');
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => {
  reads.length = 0;
});
afterAll(() => {
  server.close();
  vi.unstubAllEnvs();
});

const hetzner = (awsSecretsManager: { secretId: string; region?: string }): ProviderDef =>
  ({ name: 'hetzner-1', providerType: 'hetzner', secretRef: { awsSecretsManager } }) as unknown as ProviderDef;

describe('secretRef.awsSecretsManager.region in the Lambda runtime', () => {
  it("reads a secret in another Region from that Region's Secrets Manager, not the function's", async () => {
    const { kubeplane } = awsRuntimeFromEnv(env);
    const provider = await kubeplane.engine.providerFor(
      'tenant-a',
      hetzner({ secretId: 'kubeplane-providers/tenant-a/hetzner-dublin', region: 'eu-west-1' }),
      'fsn1',
    );
    expect(provider).toBeDefined();
    expect(reads).toEqual([{ endpoint: 'eu-west-1', signedFor: 'eu-west-1', secretId: 'kubeplane-providers/tenant-a/hetzner-dublin' }]);
  });

  it("reads a secret whose reference names no Region from the function's own Region", async () => {
    const { kubeplane } = awsRuntimeFromEnv(env);
    await kubeplane.engine.providerFor('tenant-a', hetzner({ secretId: 'kubeplane-providers/tenant-a/hetzner-home' }), 'fsn1');
    expect(reads).toEqual([{ endpoint: 'eu-central-1', signedFor: 'eu-central-1', secretId: 'kubeplane-providers/tenant-a/hetzner-home' }]);
  });

  it('fails, naming nothing secret, when the secret is not in the Region the reference names', async () => {
    const { kubeplane } = awsRuntimeFromEnv(env);
    const e = await kubeplane.engine
      .providerFor('tenant-a', hetzner({ secretId: 'kubeplane-providers/tenant-a/hetzner-dublin', region: 'eu-central-1' }), 'fsn1')
      .then(
        () => null,
        (x: unknown) => x,
      );
    expect(e).not.toBeNull();
    expect(reads.map((r) => r.endpoint)).toEqual(['eu-central-1']);
    const text = isKubeplaneError(e) ? e.message : String(e);
    expect(text).not.toContain('dublin-token');
    expect(text).not.toContain('function-role-secret');
  });
});
