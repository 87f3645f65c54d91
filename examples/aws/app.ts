// `npx tsx examples/aws/app.ts` (or `cdk synth --app "npx tsx examples/aws/app.ts"`): bundles the handlers and
// synthesises the stack into examples/aws/cdk.out. Set KUBEPLANE_HOSTED_ZONE_IDS (comma-separated) to the
// Route 53 zones your manifests' DNS lives in, KUBEPLANE_DNS_DOMAINS (comma-separated) to the domains its records
// are under (e.g. example.com), and KUBEPLANE_ACCESS to the API's access grants, the JSON array the API function
// reads (docs/serverless.md, "Who may do what"); unset, the API refuses every request.
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { accessGrantsFromJson } from '../../packages/handlers/src/aws/access.js';
import { bundleHandlers } from './bundle.js';
import { KubeplaneStack } from './stack.js';

const here = import.meta.dirname;
const access = process.env.KUBEPLANE_ACCESS ? accessGrantsFromJson(process.env.KUBEPLANE_ACCESS, 'environment variable KUBEPLANE_ACCESS') : [];
if (access.length === 0) process.stderr.write('no access grants in KUBEPLANE_ACCESS: the deployed API will refuse every request\n');
const bundles = await bundleHandlers(join(here, 'cdk.out', 'bundles'));
const app = new App({ outdir: join(here, 'cdk.out') });
new KubeplaneStack(app, 'Kubeplane', {
  bundles,
  access,
  hostedZoneIds: (process.env.KUBEPLANE_HOSTED_ZONE_IDS ?? '').split(',').filter(Boolean),
  dnsDomains: (process.env.KUBEPLANE_DNS_DOMAINS ?? '').split(',').filter(Boolean),
  ...(process.env.CDK_DEFAULT_ACCOUNT ? { env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION ?? 'eu-central-1' } } : {}),
});
app.synth();
