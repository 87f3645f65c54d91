// Bootstrap without SSH: everything a node needs to configure itself and join, rendered as pure functions of
// the cluster, its keys, a random source and the clock (DESIGN.md, "Bootstrap without SSH").
export type {
  BootstrapApiEndpoint,
  BootstrapCluster,
  BootstrapInstallationProxy,
  BootstrapLoadBalancer,
  BootstrapNode,
  BootstrapVersions,
  BootstrapKubernetesVersion,
  BootstrapLbRole,
  BootstrapArch,
  BootstrapOs,
  BootstrapNodeRole,
  BootstrapTaint,
} from './input.js';
export { seededRandomSource, systemRandomSource, randomLowerAlnum, type RandomSource } from './random.js';
export { firstServiceIp, hostAddress } from './network.js';
export {
  adminGroup,
  apiServerSans,
  apiServerUrl,
  discoveryHash,
  generateBootstrapToken,
  generateClusterKeys,
  freshKeyPairs,
  generateEcKeyPair,
  generateRsaKeyPair,
  issueApiServerCertificate,
  issueClusterPki,
  issueLeafCertificate,
  leafCertificate,
  issueMeshReaderCertificate,
  MESH_READERS_GROUP,
  renderEncryptionConfiguration,
  renderKubeconfig,
  reusedRsaKeyPairs,
  type ClusterKeys,
  type KeyPairSource,
  type ClusterPki,
  type ClusterPkiPublic,
  type ClusterPkiSecret,
  type IssueOptions,
  type IssuedCertificate,
  type KubeconfigInput,
  type LeafRequest,
  type PemKeyPair,
} from './pki.js';
export { renderBootstrapTokenSecret } from './bootstrap-token.js';
export {
  CONTROL_PLANE_TAINT,
  controlPlaneEndpoint,
  kubeadmApiVersion,
  kubernetesVersionString,
  renderKubeadmConfig,
  splitNodeLabels,
  type KubeadmApiVersion,
  type KubeadmConfigInput,
  type KubeadmMode,
  type NodeLabelSplit,
} from './kubeadm.js';
export { generateWireguardKeyPair, wireguardPublicKey, type WireguardKeyPair } from './wireguard-keys.js';
export {
  MESH_CONFIGMAP,
  MESH_NAMESPACE,
  meshPeers,
  PERSISTENT_KEEPALIVE_SECONDS,
  MESH_SERIAL_PATH,
  renderMeshManifest,
  renderMeshSyncScript,
  renderMeshSyncService,
  renderMeshSyncTimer,
  renderWireguardConfig,
  WIREGUARD_MTU,
  WIREGUARD_PORT,
  type MeshPeer,
} from './wireguard-mesh.js';
export {
  generateMeshSigningKeyPair,
  MESH_BUNDLE_HEADER,
  MESH_BUNDLE_KEY,
  MESH_BUNDLE_LINE_PATTERNS,
  MESH_BUNDLE_SIGNATURE_KEY,
  MESH_SIGNING_PUBLIC_KEY_PATH,
  parseMeshBundle,
  serializeMeshBundle,
  signMeshBundle,
  verifyMeshBundle,
  type MeshBundle,
  type MeshBundleCheck,
  type UpgradeInstruction,
} from './mesh-bundle.js';
export { LB_HEALTH_PORT, renderNginxConfig } from './lb-nginx.js';
export { KUBERNETES_RELEASE_KEY_CHECK, renderBootstrapScript, type BootstrapScriptInput, type NodeMode } from './bootstrap-script.js';
export {
  COMPRESS_FILES_OVER,
  DEFAULT_USER_DATA_LIMIT,
  DEFAULT_USER_DATA_RULE,
  USER_DATA_RULES,
  userDataRule,
  type UserDataRule,
  packUserData,
  renderCloudConfig,
  USER_DATA_LIMITS,
  userDataLimit,
  type CloudConfigInput,
  type NodeFile,
  type PackedUserData,
} from './user-data.js';
export {
  DEFAULT_VERSIONS,
  KUBEADM_PAUSE_VERSIONS,
  KUBERNETES_APT_KEYRING,
  KUBERNETES_RELEASE_KEY_FINGERPRINT,
  kubernetesPackageRepository,
  kubernetesPackageVersion,
  pauseImage,
  resolveVersions,
} from './versions.js';
export { METADATA_ADDRESS, METADATA_POLICY_NAME, renderMetadataPolicy } from './metadata-policy.js';
export { CERT_RENEW_TIMER, CERT_RENEW_WINDOW_DAYS, renderCertRenewScript } from './cert-renewal.js';
export { assertValidBootstrapCluster, bootstrapIssues, type BootstrapIssue } from './validate.js';
export {
  nodeMode,
  renderCluster,
  renderNode,
  type RenderContext,
  type RenderedCluster,
  type RenderedNode,
  type RenderNodeInput,
} from './render.js';
export { bootstrapClusterFromSpec, type BootstrapAdapterOptions } from './from-spec.js';
export { DEFAULT_PROXY_ENDPOINT, displayProxyEndpoint, effectiveInstallationProxy } from './installation-proxy.js';
export {
  CloudConfigInvalid,
  decodeUserData,
  parseCloudConfig,
  renderFirstBootScript,
  renderRuncmdScript,
  shQuote,
  type CloudConfig,
  type CloudInitFile,
  type FirstBootPaths,
} from './first-boot.js';
export { renderStaticBootstrap, renderStaticReset, STATIC_BOOTSTRAP_HEADER, STATIC_RESET_HEADER, STATIC_STATE_DIR } from './static-machine.js';
