// What the port onto the emulator frame must keep: an Action that is no action name is EC2's InvalidAction under its
// own name (never routed by its pieces), and a state written before the port (each collection at the top level)
// restores with its resources and id counters.
import { createHash, createHmac } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DescribeVpcsCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';
import { Ec2Emulator } from './emulator.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox({ seed: 1, ec2: { describeLagMaxMs: 0 } }).listen();
});
afterEach(() => sandbox.close());

const ec2 = () =>
  new EC2Client({
    region: 'eu-central-1',
    credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
    maxAttempts: 1,
  });

/** A Query request signed with SigV4 (a client that sends what the SDK never would). */
async function post(body: string): Promise<{ status: number; text: string }> {
  const host = 'ec2.eu-central-1.amazonaws.com';
  const amzDate = '20260101T000000Z';
  const scope = '20260101/eu-central-1/ec2/aws4_request';
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
  const contentType = 'application/x-www-form-urlencoded; charset=utf-8';
  const canonical = ['POST', '/', '', `content-type:${contentType}\nhost:${host}\nx-amz-date:${amzDate}\n`, 'content-type;host;x-amz-date', sha(body)].join(
    '\n',
  );
  const key = hmac(hmac(hmac(hmac(`AWS4${SANDBOX_CREDENTIALS.awsSecretAccessKey}`, '20260101'), 'eu-central-1'), 'ec2'), 'aws4_request');
  const signature = createHmac('sha256', key)
    .update(['AWS4-HMAC-SHA256', amzDate, scope, sha(canonical)].join('\n'))
    .digest('hex');
  const response = await fetch(`https://${host}/`, {
    method: 'POST',
    body,
    headers: {
      'content-type': contentType,
      'x-amz-date': amzDate,
      authorization: `AWS4-HMAC-SHA256 Credential=${SANDBOX_CREDENTIALS.awsAccessKeyId}/${scope}, SignedHeaders=content-type;host;x-amz-date, Signature=${signature}`,
    },
  });
  return { status: response.status, text: await response.text() };
}

it('answers an Action that is not an action name with InvalidAction, counted under the name it was sent as', async () => {
  expect((await post('Action=DescribeVpcs&Version=2016-11-15')).status).toBe(200);
  for (const action of ['/DescribeVpcs', 'DescribeVpcs/x', 'Describe Vpcs', '']) {
    const answer = await post(new URLSearchParams({ Action: action, Version: '2016-11-15' }).toString());
    expect(answer.status).toBe(400);
    expect(answer.text).toContain(`<Code>InvalidAction</Code><Message>The action ${action} is not valid for this web service.</Message>`);
    expect(sandbox.calls()[`ec2 ${action}`]).toBe(1);
  }
});

it('restores a state written before the emulator frame, with each collection and counter at the top level', async () => {
  await ec2().send(new RunInstancesCommand({ MinCount: 2, MaxCount: 2, ImageId: 'ami-0965bd5ba4d59211c', InstanceType: 't3.small' }));
  const { store, ...rest } = sandbox.ec2.state();
  // Such states are older than the emulator's volumes too: they restore without any.
  const { volumes: _volumes, ...collections } = store.collections;
  const flat = { ...rest, ...collections, ...store.counters } as unknown as Parameters<Ec2Emulator['restore']>[0];
  const copy = new Ec2Emulator(sandbox.context, { accessKeyId: 'a', secretAccessKey: 's', region: 'eu-central-1', defaultVpc: false });
  copy.restore(flat);
  expect([...copy.instances.keys()]).toEqual([...sandbox.ec2.instances.keys()]);
  expect(copy.inventory()).toEqual(sandbox.ec2.inventory().filter((i) => i.kind !== 'volume'));
  expect(copy.state().store.collections).toEqual({ ...collections, volumes: [] });
  // The default VPC came with the state: no second one is made.
  expect((await ec2().send(new DescribeVpcsCommand({}))).Vpcs?.filter((v) => v.IsDefault)).toHaveLength(1);
  expect([...copy.vpcs.values()].filter((v) => v.isDefault)).toHaveLength(1);
});
