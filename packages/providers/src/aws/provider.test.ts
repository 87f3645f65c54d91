import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { isPending, RateBudgets, Redacted } from '@kubeplane/sdk';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox/sandbox.js';
import { AwsProvider } from './provider.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 7, ec2: { describeLagMaxMs: 0 } }).listen();
});
afterEach(() => sandbox.close());

const credentials = { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) };

describe('AWS provider machines', () => {
  it('require IMDSv2 with a hop limit of 1, as EC2 reports back (pods cannot read user-data from the metadata service)', async () => {
    const provider = new AwsProvider({ region: 'eu-central-1', account: 'imds', credentials, clock: sandbox.clock, budgets: new RateBudgets(sandbox.clock), random: sandbox.random });
    const created = await provider.compute!.createNode({ name: 'c1-cp-1', clusterId: 'c1', nodepool: 'cp', region: 'eu-central-1', zone: 'eu-central-1a', serverType: 't3.small', image: 'ami-0ubuntu2404amd64', userData: '#cloud-config\n' });
    expect(isPending(created)).toBe(false);
    const id = isPending(created) ? '' : created.value.id;
    const ec2 = new EC2Client({ region: 'eu-central-1', credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey }, maxAttempts: 1 });
    const described = (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]?.Instances?.[0];
    expect(described?.MetadataOptions).toMatchObject({ HttpTokens: 'required', HttpPutResponseHopLimit: 1, HttpEndpoint: 'enabled' });
  });
});
