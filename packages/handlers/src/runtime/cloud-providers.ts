// The real providers, made from each manifest provider's credentials: one factory for every runtime (the
// CLI resolves credentials from env/file, Lambda also from Secrets Manager), on the rate budgets the runtime
// shares between its workers (a file in the state directory, a DynamoDB item), or one process's.
import { createHash } from 'node:crypto';
import {
  CLUSTER_ID_TAG,
  KubeplaneError,
  RateBudgets,
  systemClock,
  type ProviderDef,
  type ProviderFactory,
  type RateBudgetSource,
  type Redacted,
} from '@kubeplane/sdk';
import { AwsProvider, CloudflareProvider, CrusoeProvider, HetznerProvider, sessionNameFor } from '@kubeplane/providers';
import type { Credentials } from './credentials.js';

/**
 * The rate-budget identity of a credential: one budget per cloud account (Hetzner: a token belongs to one project; AWS:
 * an access key to one account), whatever the manifest calls the provider, so two manifests or tenants naming the same
 * account differently still share its budget. A short hash: the key names the account without holding the credential.
 */
export function budgetIdentity(credential: Redacted<string>): string {
  return `id-${createHash('sha256').update(credential.reveal()).digest('hex').slice(0, 16)}`;
}

/** The AWS account a role belongs to (its ARN's fourth field). */
const roleAccount = (roleArn: string) => roleArn.split(':')[4] ?? roleArn;

/**
 * AWS with long-lived (or temporary) keys, or as sessions of a role: one per cluster, tagged with its id, asked for with
 * the keys if given, else with the runtime's own identity (a Lambda function's role).
 */
function awsProvider(
  def: ProviderDef,
  creds: Credentials,
  region: string,
  budgets: RateBudgetSource,
  context: { project: string; cluster?: string } | undefined,
): AwsProvider {
  const { accesskey, secretkey, sessiontoken, rolearn, externalid } = creds;
  if (!accesskey !== !secretkey || (!accesskey && !rolearn)) {
    throw new KubeplaneError('auth', `provider ${def.name}: AWS credentials incomplete (accesskey and secretkey, or rolearn)`, { resource: def.name });
  }
  const keys =
    accesskey && secretkey ? { accessKeyId: accesskey, secretAccessKey: secretkey, ...(sessiontoken ? { sessionToken: sessiontoken } : {}) } : undefined;
  const cluster = context?.cluster;
  const role = rolearn?.reveal();
  return new AwsProvider({
    region,
    // A role's budget is its account's; keys' their own (an access key belongs to one account).
    account: role ? `role-account-${roleAccount(role)}` : budgetIdentity(accesskey as Redacted<string>),
    ...(keys ? { credentials: keys } : {}),
    ...(role
      ? {
          assumeRole: {
            roleArn: role,
            sessionName: sessionNameFor(cluster ?? context?.project ?? 'reads'),
            ...(externalid ? { externalId: externalid } : {}),
            ...(cluster ? { tags: { [CLUSTER_ID_TAG]: cluster } } : {}),
          },
        }
      : {}),
    clock: systemClock,
    budgets,
  });
}

export function cloudProviderFactory(
  credentialsOf: (def: ProviderDef, project: string | undefined) => Promise<Credentials>,
  defaultRegion = 'us-east-1',
  budgets: RateBudgetSource = new RateBudgets(systemClock),
): ProviderFactory {
  return async (def, region, context) => {
    const creds = await credentialsOf(def, context?.project);
    switch (def.providerType) {
      case 'hetzner': {
        const token = creds.credentials;
        if (!token) throw new KubeplaneError('auth', `provider ${def.name}: no Hetzner token`, { resource: def.name });
        return new HetznerProvider({ token, project: budgetIdentity(token), clock: systemClock, budgets });
      }
      case 'aws':
        return awsProvider(def, creds, region ?? defaultRegion, budgets, context);
      case 'crusoe': {
        const { accesskey, secretkey, project } = creds;
        if (!accesskey || !secretkey)
          throw new KubeplaneError('auth', `provider ${def.name}: Crusoe credentials incomplete (accesskey and secretkey)`, { resource: def.name });
        if (!project)
          throw new KubeplaneError('invalid', `provider ${def.name}: Crusoe needs the project id (secretRef key "project")`, { resource: def.name });
        return new CrusoeProvider({ accessKeyId: accesskey, secretKey: secretkey, projectId: project.reveal(), clock: systemClock, budgets });
      }
      case 'cloudflare': {
        const { apitoken, accountid } = creds;
        if (!apitoken || !accountid)
          throw new KubeplaneError('auth', `provider ${def.name}: Cloudflare credentials incomplete (apitoken and accountid)`, { resource: def.name });
        return CloudflareProvider.connect({ apiToken: apitoken, accountId: accountid.reveal(), clock: systemClock, budgets });
      }
      default:
        throw new KubeplaneError(
          'invalid',
          `provider type ${def.providerType} (${def.name}) has no kubeplane provider yet; available: aws, cloudflare, crusoe, hetzner`,
          { resource: def.name },
        );
    }
  };
}
