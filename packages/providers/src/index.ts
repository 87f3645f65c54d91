// @kubeplane/providers: one folder per cloud, and the sandbox clouds.
export { HetznerProvider, type HetznerProviderOptions } from './hetzner/provider.js';
export { HetznerClient, HETZNER_DEFAULT_BASE_URL, type HetznerClientOptions } from './hetzner/client.js';
export { AwsProvider, type AwsProviderOptions, type AwsCredentials } from './aws/provider.js';
export { sessionNameFor, type AwsRoleToAssume } from './aws/assume-role.js';
export { Route53Dns } from './aws/route53-dns.js';
export { HetznerDns } from './hetzner/dns.js';
export { simulate, type SimTask, type SimResult } from './sandbox/simulation.js';
export { nodeCreationFloorMs } from './sandbox/latency.js';
export { verifySigV4 } from './sandbox/sigv4.js';
export { awsErrorKind } from './aws/errors.js';
export { hetznerErrorKind } from './hetzner/errors.js';
export { EnvFileSecretResolver, type SecretRef, type SecretResolver } from './secrets/secret-resolver.js';
export { Sandbox, SANDBOX_CREDENTIALS, type SandboxOptions } from './sandbox/sandbox.js';
export type { AwsCall, AwsCallListener, AwsCallResource } from './sandbox/aws-calls.js';
export { SANDBOX_CLOUDFLARE_ZONE, SANDBOX_CLOUDFLARE_ZONES } from './sandbox/accounts.js';
export { holdManifestDnsZones } from './sandbox/manifest-zones.js';
export { conformanceHarness, type ConformanceHarness } from './sandbox/conformance-harness.js';
export { FaultInjector, type FaultRule, type CloudName } from './sandbox/faults.js';
export type { InventoryItem } from './sandbox/inventory.js';
export { LATENCY, sample, type Spread } from './sandbox/latency.js';
export { HetznerEmulator, HETZNER_API, type HetznerEmulatorOptions } from './sandbox/hetzner/emulator.js';
export { Ec2Emulator, EC2_IMAGES, EC2_INSTANCE_TYPES, type Ec2EmulatorOptions } from './sandbox/ec2/emulator.js';
export { Route53Emulator, type Route53EmulatorOptions } from './sandbox/route53/emulator.js';
export { StsEmulator, SANDBOX_AWS_ACCOUNT, SANDBOX_PROVIDER_ROLE, type StsEmulatorOptions, type StsEmulatorState, type StsRole, type StsSession } from './sandbox/sts/emulator.js';
export { KubernetesClient, kubernetesConnector, type KubernetesClientOptions } from './kubernetes/client.js';
export { parseKubeconfig, type KubeConnection } from './kubernetes/kubeconfig.js';
export { kubernetesErrorKind } from './kubernetes/errors.js';
export {
  KubernetesEmulator,
  KUBERNETES_API_PORT,
  type KubernetesEmulatorOptions,
  type KubernetesInventory,
  type KubernetesInventoryCluster,
  type KubernetesInventoryNode,
  type KubernetesInventoryPod,
} from './sandbox/kubernetes/emulator.js';
export type { SandboxVm, SandboxVmSource, SandboxVmState } from './sandbox/kubernetes/vm-source.js';
export type { KubeletStatus, KubeletState, KubeletLogEntry } from './sandbox/kubernetes/kubelets.js';
export { KUBE_TIMINGS } from './sandbox/kubernetes/timings.js';
export { sandboxProviders, sandboxKubernetes } from './sandbox/providers.js';
export { sandboxResponder, type SandboxResponder } from './sandbox/respond.js';
export { readBootConfig, type NodeBootConfig } from './sandbox/kubernetes/user-data.js';
export { RESOURCES as KUBERNETES_SANDBOX_RESOURCES } from './sandbox/kubernetes/store.js';
export { CrusoeProvider, type CrusoeProviderOptions } from './crusoe/provider.js';
export { CrusoeClient, CRUSOE_DEFAULT_BASE_URL, CRUSOE_RATE_LIMIT, operationError as crusoeOperationError, type CrusoeClientOptions } from './crusoe/client.js';
export { CrusoeManagedKubernetes, type AutoClustersSettings, type RemediationAction } from './crusoe/managed.js';
export { crusoeErrorKind } from './crusoe/errors.js';
export { authorizationHeader as crusoeAuthorizationHeader, canonicalQuery as crusoeCanonicalQuery, goQueryEscape, crusoeTimestamp } from './crusoe/signing.js';
export { cmkAddonSecret, autoscalerNodeArgs, withAutoscalerNodeArgs, reconcileCmkInCluster, CMK_AUTOSCALER, CMK_ADDON_SECRET_NAMESPACE, type AutoscalerLimits, type SecretManifest, type CmkInClusterInput, type CmkInClusterResult } from './crusoe/cmk-in-cluster.js';
export { startupScript as crusoeStartupScript } from './crusoe/startup-script.js';
export { CrusoeEmulator, CRUSOE_API, CRUSOE_CLOUD, CRUSOE_LATENCY, type CrusoeEmulatorOptions, type CrusoeEmulatorState, type CrusoeInventoryItem } from './sandbox/crusoe/emulator.js';
export { CrusoeSandbox, CRUSOE_SANDBOX_CREDENTIALS, SANDBOX_SSH_PUBLIC_KEY, type CrusoeSandboxOptions } from './sandbox/crusoe/harness.js';
export { asSandboxSnapshot, SANDBOX_SNAPSHOT_VERSION, type SandboxSnapshot } from './sandbox/snapshot.js';
export type { SandboxRestoreOptions } from './sandbox/sandbox.js';
export { CloudflareProvider, type CloudflareProviderOptions } from './cloudflare/provider.js';
export { CloudflareClient, CLOUDFLARE_DEFAULT_BASE_URL, CLOUDFLARE_RATE_LIMIT, type CloudflareClientOptions } from './cloudflare/client.js';
export { cloudflareErrorKind } from './cloudflare/errors.js';
export { CloudflareEmulator, CLOUDFLARE_API, CLOUDFLARE_CLOUD, type CloudflareEmulatorOptions, type CloudflareEmulatorState, type CloudflareInventoryItem } from './sandbox/cloudflare/emulator.js';
export { CloudflareSandbox, CLOUDFLARE_SANDBOX_CREDENTIALS, type CloudflareSandboxOptions } from './sandbox/cloudflare/harness.js';
export { clusterReadyFloorMs, type ClusterShape, type FloorCloud } from './sandbox/floor.js';
export { NetnsSandbox, type NetnsSandboxOptions } from './sandbox/netns/netns-sandbox.js';
export { NetnsUnavailable } from './sandbox/netns/host.js';
export type { HandshakeReport } from './sandbox/netns/world.js';
export { resolveSandboxName } from './sandbox/dns-resolver.js';
export { SshMachineAccess, hostKeyFingerprint, type SshMachineAccessOptions } from './static/ssh-machine-access.js';
export { SandboxStaticMachines, type SandboxStaticMachinesOptions, type StaticMachinesInfo } from './sandbox/static-machines.js';
export { OpenSshMachine, openSshAvailability, MACHINE_STANDINS, type OpenSshAvailability, type OpenSshMachineOptions } from './sandbox/openssh/machine.js';
