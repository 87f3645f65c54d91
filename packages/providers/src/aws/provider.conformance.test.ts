import { RateBudgets } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { runProviderConformance } from '@kubeplane/sdk/conformance';
import { type ConformanceHarness, conformanceHarness, ec2ImagesIn, SANDBOX_CREDENTIALS } from '@kubeplane/sandbox';
import { AwsProvider } from './provider.js';

const WRONG_SECRET = 'wrong/secret/key/0123456789abcdef';
/** Canonical's Ubuntu 24.04 image in eu-central-1, as the sandbox lists it (catalogs/aws/ubuntu-images.json). */
const NOBLE = ec2ImagesIn('eu-central-1').find((i) => i.name.includes('ubuntu-noble-24.04-amd64'))?.id ?? 'missing';

runProviderConformance({
  name: 'aws',
  sandbox: () => conformanceHarness('aws', { seed: 11 }),
  makeProvider: (s, region = 'eu-central-1') =>
    new AwsProvider({
      region,
      account: 'conformance',
      credentials: { accessKeyId: Redacted.of(SANDBOX_CREDENTIALS.awsAccessKeyId), secretAccessKey: Redacted.of(SANDBOX_CREDENTIALS.awsSecretAccessKey) },
      clock: s.clock,
      budgets: new RateBudgets(s.clock),
      random: (s as ConformanceHarness).sandbox.random,
    }),
  makeUnauthorizedProvider: (s) =>
    new AwsProvider({
      region: 'eu-central-1',
      account: 'other',
      credentials: { accessKeyId: Redacted.of('AKIAWRONGWRONGWRONG1'), secretAccessKey: Redacted.of(WRONG_SECRET) },
      clock: s.clock,
    }),
  secretValues: [SANDBOX_CREDENTIALS.awsSecretAccessKey, SANDBOX_CREDENTIALS.awsAccessKeyId, WRONG_SECRET, 'AKIAWRONGWRONGWRONG1'],
  fixtures: {
    region: 'eu-central-1',
    zone: 'eu-central-1a',
    serverType: 't3.small',
    image: NOBLE,
    dnsZone: 'example.com',
    secondRegion: { region: 'eu-west-1', zone: 'eu-west-1a' },
  },
});
