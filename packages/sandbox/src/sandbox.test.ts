import { afterEach, describe, expect, it } from 'vitest';
import { KubeplaneError, Redacted, type ProviderDef } from '@kubeplane/sdk';
import { RateBudgets, settle, type Outcome } from '@kubeplane/sdk/provider';
import { AwsProvider } from '@kubeplane/providers';
import { CloudflareProvider } from '@kubeplane/providers';
import { CrusoeProvider } from '@kubeplane/providers';
import { HetznerProvider } from '@kubeplane/providers';
import { SANDBOX_SSH_PUBLIC_KEY } from './accounts.js';
import { sandboxProviders } from './providers.js';
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
    const aws = new AwsProvider({
      region: 'eu-central-1',
      account: 'vm',
      credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
      clock,
      budgets,
    });
    await settle(
      () =>
        hetzner.compute.createNode({ name: 'vm-w-01', clusterId: 'vm', nodepool: 'w', region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', userData }),
      { clock },
    );
    await settle(
      () =>
        aws.compute.createNode({
          name: 'vm-w-02',
          clusterId: 'vm',
          nodepool: 'w',
          region: 'eu-central-1',
          serverType: 't3.small',
          image: 'ami-0965bd5ba4d59211c',
          userData,
        }),
      { clock },
    );

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

describe('Crusoe and Cloudflare in the Sandbox', () => {
  const region = 'us-east1-a';
  const id = 'lab-a1b2c3d';
  const def = (providerType: ProviderDef['providerType']): ProviderDef => ({ name: `${providerType}-1`, providerType, secretRef: {} });
  const run = <T>(call: (attempt: number) => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: (sandbox as Sandbox).clock, maxAttempts: 400 });

  async function providers(s: Sandbox): Promise<{ crusoe: CrusoeProvider; cloudflare: CloudflareProvider }> {
    const factory = sandboxProviders(s);
    return {
      crusoe: (await factory(def('crusoe'), region)) as CrusoeProvider,
      cloudflare: (await factory(def('cloudflare'), undefined)) as CloudflareProvider,
    };
  }

  it('lists Crusoe machines and Cloudflare records in the inventory, and a deleting Crusoe VM no longer as live', async () => {
    sandbox = new Sandbox({ seed: 5 }).listen();
    const { crusoe, cloudflare } = await providers(sandbox);
    await run(() =>
      crusoe.compute.createNode({ name: `${id}-w-01`, clusterId: id, nodepool: 'w', region, serverType: 'c1a.4x', image: 'ubuntu22.04:latest', userData }),
    );
    await run(() =>
      cloudflare.dns.upsertRecords('kubeplane-sandbox.dev', id, [{ name: `api.${id}.kubeplane-sandbox.dev`, type: 'A', ttl: 60, values: ['203.0.113.7'] }]),
    );

    expect(sandbox.inventory()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ cloud: 'crusoe', kind: 'node', name: `${id}-w-01`, clusterId: id, owner: `${id}-w-01`, state: 'STATE_PROVISIONING' }),
        expect.objectContaining({ cloud: 'cloudflare', kind: 'dns-record', name: `api.${id}.kubeplane-sandbox.dev`, clusterId: id }),
      ]),
    );
    expect(JSON.stringify(sandbox.inventory())).not.toContain(TOKEN_IN_USER_DATA);
    expect(sandbox.listVms().map((v) => [v.cloud, v.name, v.userData])).toEqual([['crusoe', `${id}-w-01`, userData]]);
    expect(sandbox.liveMachines().map((m) => m.name)).toEqual([`${id}-w-01`]);

    await crusoe.compute.deleteNode({ clusterId: id, name: `${id}-w-01`, region });
    expect(sandbox.inventory().find((i) => i.cloud === 'crusoe' && i.kind === 'node')?.state).toBe('STATE_DELETING');
    expect(sandbox.liveMachines()).toEqual([]);
    sandbox.clock.advance(60_000);
    expect(sandbox.inventory().filter((i) => i.cloud === 'crusoe')).toEqual([]);
  });

  it("owns kubeplane-sandbox.dev and the other sandbox clouds' zones in Cloudflare, with Load Balancing", async () => {
    sandbox = new Sandbox({ seed: 5 }).listen();
    const { cloudflare } = await providers(sandbox);
    expect(cloudflare.capabilities.dnsFailover).toBe(true);
    const zones = (await run((attempt) => cloudflare.zones({ attempt }))).map((z) => z.name);
    expect(zones).toEqual(expect.arrayContaining(['kubeplane-sandbox.dev', 'example.com']));
  });

  it('refuses a wrongly signed Crusoe request and a wrong Cloudflare token as auth errors', async () => {
    sandbox = new Sandbox({ seed: 5 }).listen();
    const clock = sandbox.clock;
    const wrongSecret = Buffer.from('not-the-crusoe-secret-0123456789').toString('base64url');
    const crusoe = new CrusoeProvider({
      accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.crusoeAccessKeyId),
      secretKey: Redacted.of(wrongSecret),
      projectId: SANDBOX_CREDENTIALS.crusoeProjectId,
      clock,
      sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
    });
    await expect(crusoe.compute.listNodes({ clusterId: id, region })).rejects.toMatchObject({ kind: 'auth' });
    expect(sandbox.crusoe.rejected.map((r) => r.reason)).toContain('signature mismatch');
    await expect(
      CloudflareProvider.connect({ apiToken: Redacted.of('wrong-cloudflare-token'), accountId: SANDBOX_CREDENTIALS.cloudflareAccountId, clock }),
    ).rejects.toMatchObject({ kind: 'auth' });
    expect(sandbox.totalCalls((key) => key.startsWith('crusoe ') || key.startsWith('cloudflare '))).toBeGreaterThanOrEqual(2);
  });

  it('injects faults into Crusoe and Cloudflare calls by cloud name', async () => {
    sandbox = new Sandbox({ seed: 5 }).listen();
    const { crusoe, cloudflare } = await providers(sandbox);
    sandbox.injectFault({ cloud: 'crusoe', operation: 'GET /compute/vms/instances', kind: 'server-error', times: 1 });
    sandbox.injectFault({ cloud: 'cloudflare', operation: '*', kind: 'throttled', times: 1 });
    expect(await run((attempt) => crusoe.compute.listNodes({ clusterId: id, region }, { attempt }))).toEqual([]);
    expect(await run((attempt) => cloudflare.dns.listRecords('example.com', { attempt }))).toEqual([]);
    expect(sandbox.faults.fired.map((f) => [f.cloud, f.kind])).toEqual([
      ['crusoe', 'server-error'],
      ['cloudflare', 'throttled'],
    ]);
  });

  it('names the sandbox clouds when a manifest asks for another', async () => {
    sandbox = new Sandbox({ seed: 5 });
    const error = await sandboxProviders(sandbox)(def('gcp'), 'europe-west1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeplaneError);
    expect((error as KubeplaneError).message).toMatch(/sandbox clouds: aws, cloudflare, crusoe, hetzner/);
  });
});
