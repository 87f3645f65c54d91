// Add-ons: the catalog (charts, versions, credentials, values schemas), the values kubeplane builds, the install
// mechanism's objects (k3s-io/helm-controller and HelmCharts) and the state read back from Helm's release records.
export * from './catalog.js';
export {
  addonValues,
  addonVersion,
  AUTOSCALER_ADAPTER,
  autoscalerCloudConfig,
  builtValues,
  defaultStorageAddon,
  mergeValues,
  POOL_LABEL,
  PROVIDER_LABEL,
  type ValuesContext,
} from './values.js';
export * from './helm-controller.js';
export * from './state.js';
