import { afterEach, describe, expect, it } from 'vitest';
import { Redacted } from '@kubeplane/sdk';
import { RateBudgets } from '@kubeplane/sdk/provider';
import { AwsProvider, crusoeAuthorizationHeader, crusoeTimestamp } from '@kubeplane/providers';
import { Sandbox, SANDBOX_CREDENTIALS } from './sandbox.js';
import { SandboxUnservedRequestError } from './sealed.js';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** What fetch does with `url` while the sandbox listens: the response's status and body, or the error it failed with. */
async function attempt(url: string, init: RequestInit = {}): Promise<{ status: number; body: string } | { error: unknown }> {
  try {
    const response = await fetch(url, init);
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { error };
  }
}

function expectRefused(outcome: { status: number; body: string } | { error: unknown }, method: string, url: string): void {
  expect(outcome).toHaveProperty('error');
  const error = (outcome as { error: unknown }).error;
  expect(error).toBeInstanceOf(SandboxUnservedRequestError);
  expect((error as Error).message).toContain(`does not serve ${method} ${url}`);
}

describe('a listening Sandbox is sealed', () => {
  it('refuses a request to a host no sandbox cloud serves, naming the method, host and path', async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    expectRefused(await attempt('https://example.org/some/path?q=1'), 'GET', 'https://example.org/some/path');
    expectRefused(await attempt('http://example.org/'), 'GET', 'http://example.org/');
    // A Kubernetes-looking port on a host that is no cluster of the sandbox.
    expectRefused(await attempt('https://example.org:8443/api/v1/nodes'), 'GET', 'https://example.org:8443/api/v1/nodes');
  });

  it('refuses EC2 in a Region the sandbox does not emulate, and says which Regions it does', async () => {
    sandbox = new Sandbox({ seed: 1, ec2Regions: ['eu-central-1'] }).listen();
    const outcome = await attempt('https://ec2.ap-south-1.amazonaws.com/', { method: 'POST', body: 'Action=DescribeVpcs&Version=2016-11-15' });
    expectRefused(outcome, 'POST', 'https://ec2.ap-south-1.amazonaws.com/');
    expect(String((outcome as { error: Error }).error.message)).toContain('EC2 in eu-central-1, not in ap-south-1');
  });

  it('fails an AWS SDK call to an unemulated Region at once with that error, never reaching AWS', async () => {
    sandbox = new Sandbox({ seed: 1, ec2Regions: ['eu-central-1'] }).listen();
    const aws = new AwsProvider({
      region: 'ap-south-1',
      account: 'sealed',
      credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
      clock: sandbox.clock,
      budgets: new RateBudgets(sandbox.clock),
    });
    const error = await aws.compute.listNodes({ clusterId: 'sealed' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error)) + String(error)).toContain('ec2.ap-south-1.amazonaws.com');
  });

  it('refuses what the EC2, STS and Route 53 hosts do not serve', async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    const get = await attempt('https://ec2.eu-central-1.amazonaws.com/?Action=DescribeVpcs');
    expectRefused(get, 'GET', 'https://ec2.eu-central-1.amazonaws.com/');
    expect(String((get as { error: Error }).error.message)).toContain('the sandbox serves EC2 Query requests as POST / only');
    expectRefused(
      await attempt('https://ec2.eu-central-1.amazonaws.com/other', { method: 'POST', body: 'Action=DescribeVpcs' }),
      'POST',
      'https://ec2.eu-central-1.amazonaws.com/other',
    );
    expectRefused(await attempt('https://sts.amazonaws.com/?Action=GetCallerIdentity'), 'GET', 'https://sts.amazonaws.com/');
    expectRefused(await attempt('https://route53.amazonaws.com/2012-12-12/hostedzone'), 'GET', 'https://route53.amazonaws.com/2012-12-12/hostedzone');
  });

  it("answers an unknown Hetzner, Cloudflare and Crusoe path with the cloud's own 404, and refuses paths outside their APIs", async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    const hetzner = await attempt('https://api.hetzner.cloud/v1/no-such-collection', {
      headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` },
    });
    expect(hetzner).toMatchObject({ status: 404 });
    expect(JSON.parse((hetzner as { body: string }).body)).toMatchObject({ error: { code: 'not_found' } });

    const cloudflare = await attempt('https://api.cloudflare.com/client/v4/no-such-thing', {
      headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.cloudflareApiToken}` },
    });
    expect(cloudflare).toMatchObject({ status: 404 });
    expect(JSON.parse((cloudflare as { body: string }).body)).toMatchObject({ success: false, errors: [{ code: 7000 }] });

    const timestamp = crusoeTimestamp(sandbox.clock.now());
    const path = '/v1/no-such-thing';
    const authorization = crusoeAuthorizationHeader({
      method: 'GET',
      path,
      rawQuery: '',
      timestamp,
      accessKeyId: SANDBOX_CREDENTIALS.crusoeAccessKeyId,
      secretKey: SANDBOX_CREDENTIALS.crusoeSecretKey,
    });
    const crusoe = await attempt(`https://api.cloud.crusoe.ai${path}`, { headers: { authorization, 'x-crusoe-timestamp': timestamp } });
    expect(crusoe).toMatchObject({ status: 404 });
    expect(JSON.parse((crusoe as { body: string }).body)).toMatchObject({ code: 'not_found' });

    expectRefused(await attempt('https://api.hetzner.cloud/v2/servers'), 'GET', 'https://api.hetzner.cloud/v2/servers');
    expectRefused(await attempt('https://api.cloudflare.com/client/v5/zones'), 'GET', 'https://api.cloudflare.com/client/v5/zones');
    expectRefused(await attempt('https://api.cloud.crusoe.ai/v2/locations'), 'GET', 'https://api.cloud.crusoe.ai/v2/locations');
  });

  it('fails a request to the Kubernetes API port of an address where no cluster runs as a dead address does, never over the network', async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    const dead = await attempt('https://10.0.0.1:6443/api/v1/nodes');
    expect(dead).toHaveProperty('error');
    expect((dead as { error: unknown }).error).not.toBeInstanceOf(SandboxUnservedRequestError);
  });
});
