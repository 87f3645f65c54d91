import { RateBudgets } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { runProviderConformance } from '@kubeplane/sdk/conformance';
import { type ConformanceHarness, conformanceHarness, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { HetznerProvider } from './provider.js';

runProviderConformance({
  name: 'hetzner',
  sandbox: () => conformanceHarness('hetzner', { seed: 7 }),
  makeProvider: (s) =>
    new HetznerProvider({
      token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
      project: 'conformance',
      clock: s.clock,
      budgets: new RateBudgets(s.clock),
      random: (s as ConformanceHarness).sandbox.random,
    }),
  makeUnauthorizedProvider: (s) => new HetznerProvider({ token: Redacted.of('wrong-token-0123456789abcdef'), project: 'other', clock: s.clock }),
  secretValues: [SANDBOX_CREDENTIALS.hetznerToken, 'wrong-token-0123456789abcdef'],
  fixtures: { region: 'fsn1', serverType: 'cpx22', image: 'ubuntu-24.04', dnsZone: 'example.de', secondRegion: { region: 'nbg1' } },
});
