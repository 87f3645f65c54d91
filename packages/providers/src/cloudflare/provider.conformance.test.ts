import { Redacted } from '@kubeplane/sdk';
import { runDnsProviderConformance, type ConformanceSandbox } from '@kubeplane/sdk/conformance';
import { CLOUDFLARE_SANDBOX_CREDENTIALS, CloudflareSandbox } from '@kubeplane/sandbox';
import { CloudflareProvider } from './provider.js';

const WRONG_TOKEN = 'wrong-cloudflare-token-0123456789';
const make = (loadBalancing: boolean) => (s: ConformanceSandbox) =>
  new CloudflareProvider({
    apiToken: Redacted.of(CLOUDFLARE_SANDBOX_CREDENTIALS.apiToken),
    accountId: CLOUDFLARE_SANDBOX_CREDENTIALS.accountId,
    clock: s.clock,
    loadBalancing,
    random: () => 0.5,
  });

for (const loadBalancing of [true, false]) {
  runDnsProviderConformance({
    name: 'cloudflare',
    sandbox: () => new CloudflareSandbox({ seed: 13, loadBalancing }),
    makeProvider: make(loadBalancing),
    makeUnauthorizedProvider: (s) =>
      new CloudflareProvider({ apiToken: Redacted.of(WRONG_TOKEN), accountId: CLOUDFLARE_SANDBOX_CREDENTIALS.accountId, clock: s.clock, loadBalancing }),
    secretValues: [CLOUDFLARE_SANDBOX_CREDENTIALS.apiToken, WRONG_TOKEN],
    zone: CLOUDFLARE_SANDBOX_CREDENTIALS.zone,
    label: loadBalancing ? 'account with Load Balancing' : 'account without Load Balancing',
  });
}
