// Rate budgets are per cloud account, not per manifest name: two provider entries (or two tenants) that name one
// Hetzner project or AWS account differently draw on one budget, and the budget key never holds the credential.
import { describe, expect, it } from 'vitest';
import { RateBudgets, Redacted, systemClock, type ProviderDef } from '@kubeplane/sdk';
import { cloudProviderFactory } from './cloud-providers.js';
import type { Credentials } from './credentials.js';

const hetznerToken = 'h'.repeat(64);
const def = (name: string, providerType: 'hetzner' | 'aws'): ProviderDef => ({ name, providerType, secretRef: { env: {} } }) as unknown as ProviderDef;

describe('cloudProviderFactory rate-budget keys', () => {
  it('gives two names for one Hetzner project one budget, keyed without the token', async () => {
    const budgets = new RateBudgets(systemClock);
    const credentials = async (d: ProviderDef): Promise<Credentials> =>
      d.providerType === 'hetzner' ? { credentials: Redacted.of(hetznerToken) } : { accesskey: Redacted.of('AKIAABCDEFGHIJKLMNOP'), secretkey: Redacted.of('s'.repeat(40)) };
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
