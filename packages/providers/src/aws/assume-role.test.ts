// The AWS provider working as a session of an IAM role, on the sandbox's STS: the session carries the cluster's tag,
// is replaced before it ends (on the engine's clock), and a refused AssumeRole is one clear auth error naming the role.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPending, RateBudgets, settle, type NetworkRequest } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { Sandbox, SANDBOX_AWS_ACCOUNT, SANDBOX_CREDENTIALS, SANDBOX_PROVIDER_ROLE } from '@kubeplane/sandbox';
import { AwsProvider } from './provider.js';
import { sessionNameFor } from './assume-role.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 11, ec2: { describeLagMaxMs: 0 } }).listen();
});
afterEach(() => sandbox.close());

const keys = { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) };
const network: NetworkRequest = {
  name: 'c7-eu',
  clusterId: 'c7',
  region: 'eu-central-1',
  cidr: '10.7.0.0/16',
  subnets: [{ cidr: '10.7.1.0/24', zone: 'eu-central-1a' }],
};

function provider(roleArn = SANDBOX_PROVIDER_ROLE, externalId?: string) {
  return new AwsProvider({
    region: 'eu-central-1',
    account: 'role',
    credentials: keys,
    assumeRole: {
      roleArn,
      sessionName: sessionNameFor('c7'),
      tags: { 'kubeplane.dev/cluster-id': 'c7' },
      ...(externalId ? { externalId: Redacted.of(externalId) } : {}),
    },
    clock: sandbox.clock,
    budgets: new RateBudgets(sandbox.clock),
    random: sandbox.random,
  });
}

describe('the AWS provider as a session of a role', () => {
  it('signs EC2 calls with a session tagged with the cluster, and asks for a new one before it ends', async () => {
    const p = provider();
    const made = await settle(() => p.network!.ensureNetwork(network), { clock: sandbox.clock });
    expect(made.id).toMatch(/^vpc-/);
    const sessions = sandbox.sts.sessions();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ roleArn: SANDBOX_PROVIDER_ROLE, sessionName: 'kubeplane-c7', tags: { 'kubeplane.dev/cluster-id': 'c7' } });
    // EC2 saw the session's key, not the long-lived one.
    const ec2Calls = [...sandbox.context.calls].filter(([k]) => k.startsWith('ec2 ')).reduce((n, [, v]) => n + v, 0);
    expect(ec2Calls).toBeGreaterThan(0);
    expect(sessions[0]?.uses).toBe(ec2Calls);

    // 58 minutes on: within five minutes of its end, the session is replaced before the next call.
    sandbox.clock.advance(58 * 60_000);
    await settle(() => p.network!.ensureNetwork(network), { clock: sandbox.clock });
    expect(sandbox.sts.sessions()).toHaveLength(2);
    // Within the hour of the new one, no third.
    sandbox.clock.advance(30 * 60_000);
    await settle(() => p.network!.ensureNetwork(network), { clock: sandbox.clock });
    expect(sandbox.sts.sessions()).toHaveLength(2);
  });

  it('takes a session EC2 calls ended as a reason to ask for a new one, not as an auth failure', async () => {
    const p = provider();
    await settle(() => p.network!.ensureNetwork(network), { clock: sandbox.clock });
    // The session ends early (revoked, clocks apart): STS's record of it says so, the provider's does not.
    const [session] = sandbox.sts.sessions();
    sandbox.sts.endSession(session?.accessKeyId ?? '');
    const again = await p.network!.ensureNetwork(network);
    expect(again).toMatchObject({ status: 'pending', reason: 'retryable' });
    expect(isPending(again) && again.message).toContain('RequestExpired');
    await settle(() => p.network!.ensureNetwork(network), { clock: sandbox.clock });
    expect(sandbox.sts.sessions()).toHaveLength(2);
  });

  it('fails with one auth error naming the role when the role refuses (a wrong external id), before any EC2 call', async () => {
    sandbox.sts.addRole({ arn: `arn:aws:iam::${SANDBOX_AWS_ACCOUNT}:role/other-team`, externalId: 'the-right-one' });
    const p = provider(`arn:aws:iam::${SANDBOX_AWS_ACCOUNT}:role/other-team`, 'a-wrong-one');
    const error = await p.network!.ensureNetwork(network).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: 'auth', details: { code: 'AccessDenied', resource: `arn:aws:iam::${SANDBOX_AWS_ACCOUNT}:role/other-team` } });
    expect(String((error as Error).message)).toMatch(/^aws sts AssumeRole \(arn:aws:iam::123456789012:role\/other-team\): AccessDenied: .*trust policy/);
    // Neither the external id nor any key in the message.
    expect(String((error as Error).message)).not.toContain('a-wrong-one');
    expect(String((error as Error).message)).not.toContain(SANDBOX_CREDENTIALS.awsSecretAccessKey);
    expect([...sandbox.context.calls.keys()].filter((k) => k.startsWith('ec2 '))).toEqual([]);
  });

  it('refuses what is not a role ARN before any call', () => {
    expect(() => provider('arn:aws:iam::123456789012:user/alice')).toThrow(/is not an IAM role ARN/);
  });
});
