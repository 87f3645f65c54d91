import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  DescribeInstancesCommand,
  EC2Client,
  RunInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { Sandbox, SANDBOX_CREDENTIALS } from '../sandbox.js';

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
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { name?: string }) => e.name,
  );
const stateOf = async (id: string) => (await ec2().send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations?.[0]?.Instances?.[0]?.State?.Name;

it('stops a running instance (stopping, then stopped) and starts it again (pending, then running)', async () => {
  const id =
    (await ec2().send(new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ImageId: 'ami-0965bd5ba4d59211c', InstanceType: 't3.small' }))).Instances?.[0]
      ?.InstanceId ?? '';
  expect(await codeOf(ec2().send(new StopInstancesCommand({ InstanceIds: [id] })))).toBe('IncorrectInstanceState');
  sandbox.clock.advance(60_000);
  const stopped = await ec2().send(new StopInstancesCommand({ InstanceIds: [id] }));
  expect(stopped.StoppingInstances?.map((x) => [x.PreviousState?.Name, x.CurrentState?.Name])).toEqual([['running', 'stopping']]);
  expect(await codeOf(ec2().send(new StartInstancesCommand({ InstanceIds: [id] })))).toBe('IncorrectInstanceState');
  sandbox.clock.advance(60_000);
  expect(await stateOf(id)).toBe('stopped');
  expect(sandbox.listVms().find((v) => v.id === id)?.state).toBe('stopped');
  const started = await ec2().send(new StartInstancesCommand({ InstanceIds: [id] }));
  expect(started.StartingInstances?.map((x) => [x.PreviousState?.Name, x.CurrentState?.Name])).toEqual([['stopped', 'pending']]);
  sandbox.clock.advance(60_000);
  expect(await stateOf(id)).toBe('running');
  await ec2().send(new TerminateInstancesCommand({ InstanceIds: [id] }));
  expect(await codeOf(ec2().send(new StartInstancesCommand({ InstanceIds: [id] })))).toBe('IncorrectInstanceState');
  expect(await codeOf(ec2().send(new StopInstancesCommand({ InstanceIds: ['i-bogus'] })))).toBe('InvalidInstanceID.Malformed');
});
