// Add-ons: the catalog (charts, versions, credentials, values schemas), the values kubeplane builds, the install
// mechanism's objects (k3s-io/helm-controller and HelmCharts) and the state read back from Helm's release records.
export {
  ADDON_CONFIG_SCHEMAS,
  type AddonCredential,
  CATALOG,
  type CatalogEntry,
  CHART_ADDON_IDS,
  type ChartAddonId,
  compareChartVersions,
  CRUSOE_CSI_NFS_MIN_VERSION,
  isChartAddon,
} from './catalog.js';
export {
  addonValues,
  addonVersion,
  adapterAddressOf,
  AUTOSCALER_ADAPTER,
  CMK_AUTOSCALER_RELEASE,
  autoscalerCloudConfig,
  readAutoscalerCloudConfig,
  builtValues,
  defaultStorageAddon,
  mergeValues,
  POOL_LABEL,
  PROVIDER_LABEL,
  type ValuesContext,
} from './values.js';
export {
  ADDON_LABEL,
  HELM_CHART_API_VERSION,
  HELM_CHART_CRD,
  HELM_CONTROLLER_IMAGE,
  HELM_CONTROLLER_NAMESPACE,
  helmChartObject,
  helmControllerObjects,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  MANAGED_SELECTOR,
  type ReleasePlace,
} from './helm-controller.js';
export {
  CRUSOE_CSI_PASS_THROUGH_VERSION,
  findProviderRelease,
  type ProviderRelease,
  providerUpgradeProblem,
} from './provider-releases.js';
export {
  type AddonState,
  addonStatus,
  type AddonStatus,
  decodeRelease,
  type HelmRelease,
  type ObservedAddon,
  providerAddonStatus,
  releasesOf,
} from './state.js';
