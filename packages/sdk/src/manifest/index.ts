// Manifest: schemas, parsing from YAML/JSON/objects, validation with paths and lines, the version catalog.
export { formatIssue, formatPath, IssueCollector, type Path, type PathSegment, type ValidationIssue } from './issues.js';
export {
  checkKubernetesVersion,
  CLAUDIE_MINORS,
  CMK_MINORS,
  compareKubernetesVersions,
  KUBERNETES_MINORS,
  type KubernetesMinor,
  type KubernetesVersion,
  NEWEST_MINOR,
  OLDEST_MINOR,
  OLDEST_SUPPORTED_MINOR,
  upstreamVersion,
  type VersionCheck,
} from './kubernetes-versions.js';
export { checkDns1123Label, checkDnsName, checkLabelValue, checkQualifiedName, NAME_PATTERNS, TAINT_EFFECTS, type TaintEffect } from './names.js';
export { checkGcpSecretManagerRef, GCP_SECRET_PATTERNS, type GcpSecretManagerRef, gcpSecretVersionName } from './gcp-secret-name.js';
export {
  CREATABLE_PROVIDER_TYPES,
  type CreatableProviderType,
  type CredentialKey,
  credentialRequired,
  isCreatableProviderType,
  profileOf,
  PROVIDER_TYPE_INFO,
  PROVIDER_TYPES,
  type ProviderType,
  type ProviderTypeInfo,
  providerTypesWith,
  RETIRED_PROVIDER_TYPES,
} from './provider-types.js';
export {
  ADDON_NAMES,
  type AddonDef,
  type AddonName,
  addonSchema,
  type AddonSecretRef,
  addonSecretRefSchema,
  autoscalerSchema,
  CLAUDIE_API_VERSION,
  CLAUDIE_KIND,
  type ClaudieManifestDocument,
  claudieManifestSchema,
  type ClusterDef,
  clusterSchema,
  DEFAULT_STORAGE_DISK_GB,
  type DynamicPoolDef,
  dynamicPoolSchema,
  type LbClusterDef,
  lbClusterSchema,
  type LbRoleDef,
  lbRoleSchema,
  machineSpecSchema,
  type Manifest,
  metadataSchema,
  NATIVE_API_VERSION,
  NATIVE_KIND,
  type NativeManifestDocument,
  nativeManifestSchema,
  poolNameSchema,
  type ProviderDef,
  providerSchema,
  type SecretRef,
  secretRefSchema,
  specFields,
  type StaticNodeDef,
  staticNodeSchema,
  type StaticPoolDef,
  staticPoolSchema,
  STORAGE_DISK_DESCRIPTION,
  storageDiskSizeOf,
  type Taint,
  taintSchema,
} from './schema.js';
export { parseManifestObject, parseManifestText, parsePath, type ParsedDocument, type ParseOptions } from './parse.js';
export { checkManifestRules, checkManifestUpdate, IMMUTABLE_POOL_FIELDS, NAME_LIMITS, RESERVED_PORTS, API_SERVER_PORT } from './rules.js';
export { stableJson } from '../stable-json.js';
export { validateManifestFile, validateManifestObject, validateManifestText, type ValidateOptions, type ValidationResult } from './validate.js';
export { serializeManifest, toDocument } from './serialize.js';
export {
  claudieManifestJsonSchema,
  MANIFEST_FORMATS,
  MANIFEST_SCHEMA_IDS,
  type ManifestFormat,
  manifestJsonSchema,
  nativeManifestJsonSchema,
} from './json-schema.js';
