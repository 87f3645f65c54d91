// The Lambda runtime reads provider credentials only from Secrets Manager secrets under the project's own prefix, the
// rule the API applies at the door (secret-refs.ts), applied again where the step reads them: a manifest that reached
// the table another way must not make the function use its own environment, its files or another project's secret.
import { describe, expect, it } from 'vitest';
import { isKubeplaneError, type ProviderDef } from '@kubeplane/sdk';
import { accessGrantsFromEnv, awsRuntimeFromEnv } from './runtime.js';

const env = {
  AWS_REGION: 'eu-central-1',
  KUBEPLANE_TABLE: 'kubeplane',
  KUBEPLANE_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/steps',
  AWS_SECRET_ACCESS_KEY: 'the-function-own-secret',
  AWS_ACCESS_KEY_ID: 'ASIAFUNCTIONOWNKEY',
};

async function refusal(def: ProviderDef, project = 'tenant-a'): Promise<string> {
  const { kubeplane } = awsRuntimeFromEnv(env);
  const e = await kubeplane.engine.providerFor(project, def, 'eu-central-1').then(
    () => null,
    (x: unknown) => x,
  );
  if (!isKubeplaneError(e)) throw new Error(`expected a refusal, got ${String(e)}`);
  expect(e.kind).toBe('auth');
  expect(e.details.code).toBe('SecretRefRefused');
  return e.message;
}

describe('the Lambda runtime given a provider secretRef', () => {
  it('refuses an env reference instead of handing over its own AWS keys', async () => {
    const message = await refusal({
      name: 'aws-1',
      providerType: 'aws',
      secretRef: { env: { accesskey: 'AWS_ACCESS_KEY_ID', secretkey: 'AWS_SECRET_ACCESS_KEY' } },
    } as unknown as ProviderDef);
    expect(message).toMatch(/^provider aws-1: environment variables are refused/);
    expect(message).not.toContain('the-function-own-secret');
  });

  it('refuses a file reference (/proc/self/environ)', async () => {
    expect(await refusal({ name: 'h', providerType: 'hetzner', secretRef: { file: '/proc/self/environ' } } as unknown as ProviderDef)).toMatch(
      /^provider h: files are refused/,
    );
  });

  it("refuses another project's secret and the engine's own", async () => {
    for (const secretId of [
      'kubeplane-providers/tenant-b/hetzner',
      'kubeplane/tenant-a-abc123/pki',
      'arn:aws:secretsmanager:eu-central-1:123456789012:secret:kubeplane-providers/tenant-b/x-AbCdEf',
    ]) {
      expect(await refusal({ name: 'h', providerType: 'hetzner', secretRef: { awsSecretsManager: { secretId } } } as unknown as ProviderDef)).toMatch(
        /is not this project's/,
      );
    }
  });
});

describe('the API function given KUBEPLANE_ACCESS', () => {
  it('reads the grants of a JSON array, and none when it is unset', () => {
    const grant = { principal: 'arn:aws:iam::123456789012:role/team-a', projects: ['team-a-*'], role: 'operator' };
    expect(accessGrantsFromEnv({ ...env, KUBEPLANE_ACCESS: JSON.stringify([grant]) })).toEqual([grant]);
    expect(accessGrantsFromEnv(env)).toEqual([]);
  });

  it('fails with one line naming the variable and what is wrong with it', () => {
    // Anchored at both ends and without the s flag: the message is one line.
    expect(() => accessGrantsFromEnv({ ...env, KUBEPLANE_ACCESS: "[{principal: 'x'}]" })).toThrow(
      /^environment variable KUBEPLANE_ACCESS is not JSON \(.+\); set it to a JSON array of \{"principal", "projects", "role"\} grants$/,
    );
    expect(() =>
      accessGrantsFromEnv({ ...env, KUBEPLANE_ACCESS: '[{"principal": "arn:aws:iam::123456789012:role/a", "projects": ["*"], "role": "owner"}]' }),
    ).toThrow(/^environment variable KUBEPLANE_ACCESS: grant 0, role: "owner" is not one of reader, operator$/);
  });
});
