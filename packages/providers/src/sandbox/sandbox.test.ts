import { afterEach, describe, expect, it } from 'vitest';
import { RateBudgets, Redacted, settle } from '@kubeplane/sdk';
import { AwsProvider } from '../aws/provider.js';
import { HetznerProvider } from '../hetzner/provider.js';
import { Sandbox, SANDBOX_CREDENTIALS } from './sandbox.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

const TOKEN_IN_USER_DATA = 'abcdef.0123456789abcdef';
const userData = `#cloud-config\nruncmd:\n  - kubeadm join --token ${TOKEN_IN_USER_DATA}\n`;

describe('Sandbox', () => {
  it('hands machines with their user-data to the simulated kubelets, but never puts user-data in the inventory', async () => {
    sandbox = new Sandbox({ seed: 3 }).listen();
    const clock = sandbox.clock;
    const budgets = new RateBudgets(clock);
    const hetzner = new HetznerProvider({ token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken), project: 'vm', clock, budgets });
    const aws = new AwsProvider({ region: 'eu-central-1', account: 'vm', credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) }, clock, budgets });
    await settle(() => hetzner.compute.createNode({ name: 'vm-w-01', clusterId: 'vm', nodepool: 'w', region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', userData }), { clock });
    await settle(() => aws.compute.createNode({ name: 'vm-w-02', clusterId: 'vm', nodepool: 'w', region: 'eu-central-1', serverType: 't3.small', image: 'ami-0ubuntu2404amd64', userData }), { clock });

    const vms = sandbox.listVms();
    expect(vms.map((v) => [v.cloud, v.name, v.state])).toEqual([
      ['hetzner', 'vm-w-01', 'pending'],
      ['ec2', 'vm-w-02', 'pending'],
    ]);
    expect(vms[0]?.userData).toBe(userData);
    expect(Buffer.from(String(vms[1]?.userData), 'base64').toString('utf8')).toBe(userData);
    expect(JSON.stringify(sandbox.inventory())).not.toContain(TOKEN_IN_USER_DATA);

    clock.advance(120_000);
    expect(sandbox.listVms().every((v) => v.state === 'running' && v.runningSinceMs !== undefined && v.publicIPv4)).toBe(true);
  });
});
