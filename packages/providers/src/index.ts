// @kubeplane/providers: one folder per cloud; real API clients only (the sandbox clouds are @kubeplane/sandbox).
export { HetznerProvider, type HetznerProviderOptions } from './hetzner/provider.js';
export { HetznerClient, HETZNER_DEFAULT_BASE_URL, type HetznerClientOptions } from './hetzner/client.js';
export { AwsProvider, type AwsProviderOptions, type AwsCredentials } from './aws/provider.js';
export { sessionNameFor, type AwsRoleToAssume } from './aws/assume-role.js';
export { Route53Dns } from './aws/route53-dns.js';
export { HetznerDns } from './hetzner/dns.js';
export { awsErrorKind } from './aws/errors.js';
export { hetznerErrorKind } from './hetzner/errors.js';
export { EnvFileSecretResolver, type SecretRef, type SecretResolver } from './secrets/secret-resolver.js';
export { KubernetesClient, kubernetesConnector, type KubernetesClientOptions } from './kubernetes/client.js';
export { parseKubeconfig, readKubeconfigContext, type KubeConnection, type KubeconfigContext } from './kubernetes/kubeconfig.js';
export { KubernetesSecretResolver, kubeconfigFiles, type SecretsCluster } from './secrets/kubernetes-secret-resolver.js';
export { kubernetesErrorKind } from './kubernetes/errors.js';
export { CrusoeProvider, type CrusoeProviderOptions } from './crusoe/provider.js';
export { CrusoeClient, CRUSOE_DEFAULT_BASE_URL, CRUSOE_RATE_LIMIT, operationError as crusoeOperationError, type CrusoeClientOptions } from './crusoe/client.js';
export { CrusoeManagedKubernetes, type AutoClustersSettings, type RemediationAction } from './crusoe/managed.js';
export { crusoeErrorKind } from './crusoe/errors.js';
export {
  authorizationHeader as crusoeAuthorizationHeader,
  canonicalQuery as crusoeCanonicalQuery,
  goQueryEscape,
  crusoeTimestamp,
  buildQuery as crusoeBuildQuery,
} from './crusoe/signing.js';
export {
  autoscalerNodeArgs,
  withAutoscalerNodeArgs,
  reconcileCmkInCluster,
  CMK_AUTOSCALER,
  CMK_ADDON_SECRET_NAMESPACE,
  type AutoscalerLimits,
  type CmkInClusterInput,
  type CmkInClusterResult,
} from './crusoe/cmk-in-cluster.js';
export { startupScript as crusoeStartupScript, userDataFromStartupScript as crusoeUserDataFromStartupScript } from './crusoe/startup-script.js';
export { CloudflareProvider, type CloudflareProviderOptions } from './cloudflare/provider.js';
export { CloudflareClient, CLOUDFLARE_DEFAULT_BASE_URL, CLOUDFLARE_RATE_LIMIT, type CloudflareClientOptions } from './cloudflare/client.js';
export { cloudflareErrorKind } from './cloudflare/errors.js';
export { SshMachineAccess, hostKeyFingerprint, type SshMachineAccessOptions } from './static/ssh-machine-access.js';
export {
  buildProvider,
  budgetIdentity,
  checkBuildable,
  BUILDABLE_PROVIDER_TYPES,
  PROVIDER_BUILDERS,
  type ProviderBuilder,
  type ProviderInput,
} from './registry.js';
// Types that appear in the signatures above, exported so the API reference can show them.
export type { AwsKeys } from './aws/assume-role.js';
export type { Route53DnsOptions } from './aws/route53-dns.js';
export type { SigningInput as CrusoeSigningInput } from './crusoe/signing.js';
export type { CloudflareRequestOptions } from './cloudflare/client.js';
export type { CrusoeRequestOptions, OperationFamily as CrusoeOperationFamily, QueryValue as CrusoeQueryValue } from './crusoe/client.js';
export type { ManagedDeps as CrusoeManagedDeps } from './crusoe/managed.js';
export type { RequestOptions as HetznerRequestOptions } from './hetzner/client.js';
export type { HetznerDnsOptions } from './hetzner/dns.js';
