// Builds the AWS provider of a manifest entry (the provider registry, ../registry.ts): with long-lived (or temporary)
// keys, or as sessions of a role, one per cluster, tagged with its id, asked for with the keys if given, else with the
// runtime's own identity (a Lambda function's role).
import { CLUSTER_ID_TAG, type Provider } from '@kubeplane/sdk/provider';
import { budgetIdentity, incompleteCredentials, type ProviderInput } from '../provider-input.js';
import { sessionNameFor } from './assume-role.js';
import { AwsProvider } from './provider.js';

/** The region of providers made without one: AWS's global services (Route 53, STS) answer there. */
const GLOBAL_REGION = 'us-east-1';

/** The AWS account a role belongs to (its ARN's fourth field). */
const roleAccount = (roleArn: string) => roleArn.split(':')[4] ?? roleArn;

export function buildAwsProvider(input: ProviderInput): Provider {
  const { accesskey, secretkey, sessiontoken, rolearn, externalid } = input.credentials;
  if (!accesskey !== !secretkey || (!accesskey && !rolearn)) throw incompleteCredentials(input.def, 'AWS', 'accesskey and secretkey, or rolearn');
  const keys =
    accesskey && secretkey ? { accessKeyId: accesskey, secretAccessKey: secretkey, ...(sessiontoken ? { sessionToken: sessiontoken } : {}) } : undefined;
  const cluster = input.context?.cluster;
  const role = rolearn?.reveal();
  const assume = role !== undefined && (cluster !== undefined || !input.roleForClustersOnly || !keys);
  return new AwsProvider({
    region: input.region ?? input.defaultRegion ?? GLOBAL_REGION,
    // A role's budget is its account's; keys' their own (an access key belongs to one account).
    account: input.account ?? (role ? `role-account-${roleAccount(role)}` : budgetIdentity(accesskey as NonNullable<typeof accesskey>)),
    ...(keys ? { credentials: keys } : {}),
    ...(assume
      ? {
          assumeRole: {
            roleArn: role,
            sessionName: sessionNameFor(cluster ?? input.context?.project ?? 'reads'),
            ...(externalid ? { externalId: externalid } : {}),
            ...(cluster ? { tags: { [CLUSTER_ID_TAG]: cluster } } : {}),
          },
        }
      : {}),
    clock: input.clock,
    budgets: input.budgets,
    ...(input.random ? { random: input.random } : {}),
    ...(input.ownEndpoints ? { ownEndpoints: true } : {}),
  });
}
