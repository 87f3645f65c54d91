// Rate budgets are per cloud account, not per manifest name: two provider entries (or two tenants) that name one
// Hetzner project or AWS account differently draw on one budget, and the budget key never holds the credential.
import { describe, expect, it, vi } from 'vitest';
import { Sandbox, SANDBOX_CREDENTIALS, SANDBOX_PROVIDER_ROLE, SANDBOX_SSH_PUBLIC_KEY } from '@kubeplane/sandbox';
import { RateBudgets } from '@kubeplane/sdk/provider';
import { Redacted, systemClock, type ProviderDef } from '@kubeplane/sdk';
import { cloudProviderFactory } from './cloud-providers.js';
import type { Credentials } from './credentials.js';

const hetznerToken = 'h'.repeat(64);
const def = (name: string, providerType: 'hetzner' | 'aws'): ProviderDef => ({ name, providerType, secretRef: { env: {} } }) as unknown as ProviderDef;

describe('cloudProviderFactory rate-budget keys', () => {
  it('gives two names for one Hetzner project one budget, keyed without the token', async () => {
    const budgets = new RateBudgets(systemClock);
    const credentials = async (d: ProviderDef): Promise<Credentials> =>
      d.providerType === 'hetzner'
        ? { credentials: Redacted.of(hetznerToken) }
        : { accesskey: Redacted.of('AKIAABCDEFGHIJKLMNOP'), secretkey: Redacted.of('s'.repeat(40)) };
    const factory = cloudProviderFactory(credentials, 'eu-central-1', budgets);
    await factory(def('hetzner-a', 'hetzner'), 'fsn1');
    await factory(def('hetzner-b', 'hetzner'), 'nbg1');
    await factory(def('aws-a', 'aws'), 'eu-central-1');
    await factory(def('aws-b', 'aws'), 'eu-central-1');
    const keys = budgets.keys();
    expect(keys.filter((k) => k.startsWith('hetzner:'))).toHaveLength(1);
    expect(new Set(keys.filter((k) => k.startsWith('aws:')).map((k) => k.split(':').slice(0, 2).join(':'))).size).toBe(1);
    for (const k of keys) {
      expect(k).not.toContain(hetznerToken);
      expect(k).not.toContain('AKIAABCDEFGHIJKLMNOP');
      expect(k).not.toMatch(/hetzner-a|hetzner-b|aws-a|aws-b/);
    }
  });
});

describe('cloudProviderFactory for AWS by role', () => {
  it("works as a session of the role tagged with the cluster, asked for with the runtime's own identity when no keys are given", async () => {
    const sandbox = new Sandbox({ seed: 3 }).listen();
    // The runtime's own identity (a Lambda function's role) reaches the SDK through its default chain.
    vi.stubEnv('AWS_ACCESS_KEY_ID', SANDBOX_CREDENTIALS.awsAccessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', SANDBOX_CREDENTIALS.awsSecretAccessKey);
    try {
      const factory = cloudProviderFactory(async () => ({ rolearn: Redacted.of(SANDBOX_PROVIDER_ROLE) }), 'eu-central-1', new RateBudgets(systemClock));
      const provider = await factory(def('aws-1', 'aws'), 'eu-central-1', { project: 'team-a', cluster: 'team-a-web-k3x9' });
      const key = await provider.network?.ensureSshKey({
        name: 'team-a-web-ssh',
        clusterId: 'team-a-web-k3x9',
        region: 'eu-central-1',
        publicKey: SANDBOX_SSH_PUBLIC_KEY,
      });
      expect(key?.status).toBe('done');
      expect(sandbox.sts.sessions().map((s) => ({ name: s.sessionName, tags: s.tags, used: s.uses > 0 }))).toEqual([
        { name: 'kubeplane-team-a-web-k3x9', tags: { 'kubeplane.dev/cluster-id': 'team-a-web-k3x9' }, used: true },
      ]);
    } finally {
      vi.unstubAllEnvs();
      await sandbox.close();
    }
  });

  it('refuses half a key pair, or neither keys nor a role, naming the provider', async () => {
    const factory = cloudProviderFactory(async () => ({ accesskey: Redacted.of('AKIAABCDEFGHIJKLMNOP') }));
    await expect(factory(def('aws-1', 'aws'), 'eu-central-1')).rejects.toThrow(
      'provider aws-1: AWS credentials incomplete (accesskey and secretkey, or rolearn)',
    );
    const none = cloudProviderFactory(async () => ({}));
    await expect(none(def('aws-1', 'aws'), 'eu-central-1')).rejects.toThrow('AWS credentials incomplete');
  });
});
