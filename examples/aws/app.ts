// `npx tsx examples/aws/app.ts` (or `cdk synth --app "npx tsx examples/aws/app.ts"`): bundles the handlers and
// synthesises the stack into examples/aws/cdk.out. Set KUBEPLANE_HOSTED_ZONE_IDS (comma-separated) to the
// Route 53 zones your manifests' DNS lives in, and KUBEPLANE_DNS_DOMAINS (comma-separated) to the domains its records
// are under (e.g. example.com).
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { bundleHandlers } from './bundle.js';
import { KubeplaneStack } from './stack.js';

const here = import.meta.dirname;
const bundles = await bundleHandlers(join(here, 'cdk.out', 'bundles'));
const app = new App({ outdir: join(here, 'cdk.out') });
new KubeplaneStack(app, 'Kubeplane', {
  bundles,
  hostedZoneIds: (process.env.KUBEPLANE_HOSTED_ZONE_IDS ?? '').split(',').filter(Boolean),
  dnsDomains: (process.env.KUBEPLANE_DNS_DOMAINS ?? '').split(',').filter(Boolean),
  ...(process.env.CDK_DEFAULT_ACCOUNT ? { env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION ?? 'eu-central-1' } } : {}),
});
app.synth();
