// The AWS provider and endpoints configured in the environment: a provider made with ownEndpoints (the sandbox's)
// reaches AWS's own hostnames whatever AWS_ENDPOINT_URL says; any other honours it, as people point real runs at a
// served sandbox that way (docs/sandbox.md).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateBudgets, settle } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { Sandbox, SANDBOX_CREDENTIALS, SANDBOX_PROVIDER_ROLE } from '@kubeplane/sandbox';
import { AwsProvider } from './provider.js';
import { sessionNameFor } from './assume-role.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
/** Where `source`-ing a served sandbox's env file points the AWS SDKs; nothing answers at port 9 (discard). */
const ELSEWHERE = 'http://127.0.0.1:9';
const ENVIRONMENT = {
  AWS_ENDPOINT_URL: ELSEWHERE,
  AWS_ENDPOINT_URL_EC2: ELSEWHERE,
  AWS_ENDPOINT_URL_ROUTE_53: ELSEWHERE,
  AWS_ENDPOINT_URL_STS: ELSEWHERE,
  AWS_USE_FIPS_ENDPOINT: 'true',
  AWS_USE_DUALSTACK_ENDPOINT: 'true',
};

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 5, ec2: { describeLagMaxMs: 0 } }).listen();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await sandbox.close();
});

const credentials = { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) };

function provider(ownEndpoints: boolean, cluster?: string): AwsProvider {
  return new AwsProvider({
    region: 'eu-central-1',
    account: 'endpoints',
    credentials,
    ...(cluster ? { assumeRole: { roleArn: SANDBOX_PROVIDER_ROLE, sessionName: sessionNameFor(cluster), tags: { 'kubeplane.dev/cluster-id': cluster } } } : {}),
    clock: sandbox.clock,
    budgets: new RateBudgets(sandbox.clock),
    random: sandbox.random,
    ...(ownEndpoints ? { ownEndpoints: true } : {}),
  });
}

describe('AWS endpoints configured in the environment', () => {
  it("do not move a provider made with ownEndpoints off AWS's own EC2, STS and Route 53", async () => {
    for (const [name, value] of Object.entries(ENVIRONMENT)) vi.stubEnv(name, value);
    const p = provider(true, 'c5');
    await expect(settle(() => p.compute!.listNodes({ clusterId: 'c5' }), { clock: sandbox.clock })).resolves.toEqual([]);
    await expect(settle(() => p.dns!.zones!(), { clock: sandbox.clock })).resolves.toEqual(expect.any(Array));
    expect(sandbox.sts.sessions()).toHaveLength(1);
  });

  it('are where any other provider sends its requests', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL', ELSEWHERE);
    const p = provider(false);
    await expect(settle(() => p.compute!.listNodes({ clusterId: 'c5' }), { clock: sandbox.clock })).rejects.toThrow('127.0.0.1:9');
  });
});
