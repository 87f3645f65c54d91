// Two workers ensuring the same named resource at once (a duplicate delivery, a lease holder that woke late):
// both look, find nothing, and create. Hetzner names are unique per project, so one create answers
// uniqueness_error; that worker must adopt what the other made, not fail the step (chaos seed 11 failed a cluster
// with "firewall name is already used").
import { afterEach, describe, expect, it } from 'vitest';
import { RateBudgets, type Outcome } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { Sandbox, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { HetznerProvider } from './provider.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

function twoWorkers() {
  sandbox = new Sandbox({ seed: 7 }).listen();
  const budgets = new RateBudgets(sandbox.clock);
  const worker = () =>
    new HetznerProvider({ token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken), project: 'ce', clock: sandbox!.clock, budgets, random: sandbox!.random });
  return [worker(), worker()] as const;
}

const scope = { clusterId: 'ce', region: 'fsn1' };
const statuses = (outcomes: Array<Outcome<unknown>>) => outcomes.map((o) => o.status);

describe('Hetzner: two workers ensuring one named resource at once', () => {
  it('both end done with one network, firewall, SSH key and primary IP between them', async () => {
    const [a, b] = twoWorkers();
    const network = { ...scope, name: 'ce-net', cidr: '10.0.0.0/16', subnets: [{ cidr: '10.0.1.0/24' }] };
    expect(statuses(await Promise.all([a.network.ensureNetwork(network, { attempt: 1 }), b.network.ensureNetwork(network, { attempt: 1 })]))).toEqual([
      'done',
      'done',
    ]);
    const firewall = { ...scope, name: 'ce-fw', rules: [{ protocol: 'tcp' as const, port: 6443, sourceCidrs: ['0.0.0.0/0'] }] };
    expect(statuses(await Promise.all([a.network.ensureFirewall(firewall, { attempt: 1 }), b.network.ensureFirewall(firewall, { attempt: 1 })]))).toEqual([
      'done',
      'done',
    ]);
    const key = { ...scope, name: 'ce-key', publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMuE3b5x0c2Fh3E4Xp8k0XQmC7yB8bY1r7C9s0mLqJ7a ce' };
    expect(statuses(await Promise.all([a.network.ensureSshKey(key, { attempt: 1 }), b.network.ensureSshKey(key, { attempt: 1 })]))).toEqual(['done', 'done']);
    const ip = { ...scope, name: 'ce-ip' };
    expect(statuses(await Promise.all([a.network.ensureReservedIp(ip, { attempt: 1 }), b.network.ensureReservedIp(ip, { attempt: 1 })]))).toEqual([
      'done',
      'done',
    ]);
    expect(
      sandbox!
        .inventory()
        .filter((i) => i.clusterId === 'ce')
        .map((i) => i.kind)
        .sort(),
    ).toEqual(['firewall', 'network', 'reserved-ip', 'ssh-key']);
  });
});
