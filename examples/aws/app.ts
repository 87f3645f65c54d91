// A CDK app for kubeplane's AWS deploy, configured from the environment: `npx cdk synth --app "npx tsx examples/aws/app.ts"`
// synthesises the stack into cdk.out (in a project of your own, the same with `@kubeplane/aws-cdk` installed).
// KUBEPLANE_HOSTED_ZONE_IDS (comma-separated): the Route 53 zones your manifests' DNS lives in; KUBEPLANE_DNS_DOMAINS
// (comma-separated): the domains its records are under (e.g. example.com); KUBEPLANE_ACCESS: the API's access grants,
// the JSON array the API function reads (docs/serverless.md, "Who may do what"); unset, the API refuses every request.
import { App } from 'aws-cdk-lib';
import { KubeplaneStack, accessGrantsFromJson } from '@kubeplane/aws-cdk';

const access = process.env.KUBEPLANE_ACCESS ? accessGrantsFromJson(process.env.KUBEPLANE_ACCESS, 'environment variable KUBEPLANE_ACCESS') : [];
if (access.length === 0) process.stderr.write('no access grants in KUBEPLANE_ACCESS: the deployed API will refuse every request\n');
const app = new App();
new KubeplaneStack(app, 'Kubeplane', {
  access,
  hostedZoneIds: (process.env.KUBEPLANE_HOSTED_ZONE_IDS ?? '').split(',').filter(Boolean),
  dnsDomains: (process.env.KUBEPLANE_DNS_DOMAINS ?? '').split(',').filter(Boolean),
  ...(process.env.CDK_DEFAULT_ACCOUNT ? { env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION ?? 'eu-central-1' } } : {}),
});
app.synth();
