// @kubeplane/sandbox: the sandbox clouds — wire-level emulators on a virtual clock, faults, and machines in network namespaces.
export { simulate, type SimTask, type SimResult } from './simulation.js';
export { verifySigV4 } from './sigv4.js';
export { Sandbox, SANDBOX_CREDENTIALS, SANDBOX_EC2_REGIONS, type SandboxBuiltCloud, type SandboxOptions } from './sandbox.js';
export { sandboxAccountRegions } from './ec2/cloud.js';
export { SandboxUnservedRequestError } from './sealed.js';
export type { AwsCall, AwsCallListener, AwsCallResource } from './aws-calls.js';
export { SANDBOX_CLOUDFLARE_ZONE, SANDBOX_CLOUDFLARE_ZONES } from './accounts.js';
export { holdManifestDnsZones } from './manifest-zones.js';
export { conformanceHarness, type ConformanceHarness } from './conformance-harness.js';
export { FaultInjector, type FaultRule, type CloudName } from './faults.js';
export type { InventoryItem, InventoryCloud } from './inventory.js';
export {
  SANDBOX_CLOUDS,
  SANDBOX_PROVIDER_TYPES,
  providerCloudOf,
  sandboxCloud,
  sandboxCloudsOf,
  type ContractOperation,
  type SandboxCloud,
  type SandboxCloudBuild,
  type SandboxCloudDns,
  type SandboxCloudFields,
  type SandboxCloudName,
  type SandboxCloudOptions,
  type SandboxCloudProvider,
  type SandboxCloudServe,
  type SandboxCloudStates,
  type ServedApiKey,
} from './clouds/index.js';
export { LATENCY, sample, type Spread } from './latency.js';
export { HetznerEmulator, HETZNER_API, type HetznerEmulatorOptions } from './hetzner/emulator.js';
export {
  AWS_REGIONS,
  type AwsRegion,
  Ec2Emulator,
  EC2_INSTANCE_TYPES,
  ec2ImagesIn,
  type Ec2EmulatorOptions,
  type Ec2Image,
  type Ec2InstanceType,
} from './ec2/emulator.js';
export { Route53Emulator, type Route53EmulatorOptions } from './route53/emulator.js';
export {
  StsEmulator,
  SANDBOX_AWS_ACCOUNT,
  SANDBOX_PROVIDER_ROLE,
  type StsEmulatorOptions,
  type StsEmulatorState,
  type StsRole,
  type StsSession,
} from './sts/emulator.js';
export {
  KubernetesEmulator,
  KUBERNETES_API_PORT,
  type KubernetesEmulatorOptions,
  type KubernetesInventory,
  type KubernetesInventoryCluster,
  type KubernetesInventoryNode,
  type KubernetesInventoryPod,
} from './kubernetes/emulator.js';
export type { SandboxVm, SandboxVmSource, SandboxVmState } from './kubernetes/vm-source.js';
export type { KubeletStatus, KubeletState, KubeletLogEntry } from './kubernetes/kubelets.js';
export { KUBE_TIMINGS } from './kubernetes/timings.js';
export { gpusOf, gpusOfNode, type NodeGpus } from './kubernetes/node-gpus.js';
export { sandboxAddonCredentials, sandboxProviders, sandboxKubernetes } from './providers.js';
export { sandboxResponder, type SandboxResponder } from './respond.js';
export { CONFORMANCE_DIR_ENV, type RecordedViolation } from './openapi/conformance.js';
export { readBootConfig, type NodeBootConfig } from './kubernetes/user-data.js';
export { UserDataTransformError, type UserDataFile, type UserDataMachine, type UserDataTransform } from './user-data-transform.js';
export { RESOURCES as KUBERNETES_SANDBOX_RESOURCES } from './kubernetes/store.js';
export type { HelmReleaseRecord } from './kubernetes/helm-controller.js';
export { CHART_REPOSITORIES, type ChartVersion } from './kubernetes/chart-repositories.js';
export {
  CrusoeEmulator,
  CRUSOE_API,
  CRUSOE_CLOUD,
  CRUSOE_LATENCY,
  type CrusoeEmulatorOptions,
  type CrusoeEmulatorState,
  type CrusoeInventoryItem,
} from './crusoe/emulator.js';
export { CrusoeSandbox, CRUSOE_SANDBOX_CREDENTIALS, SANDBOX_SSH_PUBLIC_KEY, type CrusoeSandboxOptions } from './crusoe/harness.js';
export { asSandboxSnapshot, SANDBOX_SNAPSHOT_VERSION, type SandboxSnapshot } from './snapshot.js';
export type { SandboxRestoreOptions } from './sandbox.js';
export {
  CloudflareEmulator,
  CLOUDFLARE_API,
  CLOUDFLARE_CLOUD,
  type CloudflareEmulatorOptions,
  type CloudflareEmulatorState,
  type CloudflareInventoryItem,
} from './cloudflare/emulator.js';
export { CloudflareSandbox, CLOUDFLARE_SANDBOX_CREDENTIALS, type CloudflareSandboxOptions } from './cloudflare/harness.js';
export { clusterReadyFloorMs, nodeCreationFloorMs, type ClusterShape, type FloorCloud } from './floor.js';
export { NetnsSandbox, type NetnsSandboxOptions } from './netns/netns-sandbox.js';
export { NetnsUnavailable } from './netns/host.js';
export type { HandshakeReport } from './netns/world.js';
export { resolveSandboxName } from './dns-resolver.js';
export { SandboxStaticMachines, type SandboxStaticMachine, type SandboxStaticMachinesOptions, type StaticMachinesInfo } from './static-machines.js';
export { OpenSshMachine, openSshAvailability, MACHINE_STANDINS, type OpenSshAvailability, type OpenSshMachineOptions } from './openssh/machine.js';
export { SandboxServer, SERVE_HOST, type SandboxServerOptions, type ServedApiEndpoint, type ServedCluster, type ServedEndpoints } from './serve/server.js';
export {
  clientEnvironment,
  credentialsFilePath,
  readServedFile,
  removeServedFile,
  servedFilePath,
  writeCredentialsFile,
  writeServedFile,
  type ServedFile,
} from './serve/served-file.js';
export { clusterTls, hostOf as servedClusterHost, type ClusterTls, type ClusterTlsProblem } from './serve/cluster-tls.js';
export { servedKubeconfig } from './serve/kubeconfig.js';
export * from './autoscaler/index.js';
export {
  GoogleCloudEmulators,
  SANDBOX_GOOGLE_PROJECT,
  SANDBOX_GOOGLE_LOCATION,
  CloudTasksEmulator,
  FirestoreEmulator,
  GoogleSecretManagerEmulator,
  GoogleIdentityEmulator,
  GoogleApiError,
  retryDelaySeconds,
  GOOGLE_ISSUER,
  type GoogleApiCounts,
  type TaskDispatch,
  type TaskOutcome,
  type QueueRetry,
} from './gcp/index.js';
