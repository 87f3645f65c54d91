// The install mechanism: k3s-io/helm-controller, applied by the engine (pinned), and one `helm.cattle.io/v1`
// HelmChart per add-on. The controller runs `helm upgrade --install` in a Job when a HelmChart changes and
// `helm uninstall` when one is deleted (https://github.com/k3s-io/helm-controller, README and pkg/controllers/chart).
import { toYaml } from '../yaml-text.js';
import type { KubeObject } from '../engine/ports/kubernetes.js';
import { CATALOG, type ChartAddonId } from './catalog.js';

/** rancher/helm-controller's image, pinned (a published tag: https://hub.docker.com/r/rancher/helm-controller/tags). */
export const HELM_CONTROLLER_IMAGE = 'rancher/helm-controller:v0.16.5';
/** The namespace helm-controller and kubeplane's HelmChart objects live in. */
export const HELM_CONTROLLER_NAMESPACE = 'kube-system';
/** The apiVersion of helm-controller's HelmChart objects. */
export const HELM_CHART_API_VERSION = 'helm.cattle.io/v1';

/** The Kubernetes label that names the tool managing an object. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** The value of {@link MANAGED_BY_LABEL} on objects kubeplane manages. */
export const MANAGED_BY = 'kubeplane';
/** The label that names the add-on an object belongs to. */
export const ADDON_LABEL = 'kubeplane.dev/addon';
/** The label selector of every object kubeplane's add-on mechanism owns. */
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;

const managedLabels = { [MANAGED_BY_LABEL]: MANAGED_BY };

/**
 * The HelmChart CRD as helm-controller ships it (pkg/crds/yaml/generated/helm.cattle.io_helmcharts.yaml), abridged to
 * the fields kubeplane uses, with its printer columns (kubectl get helmcharts).
 */
export const HELM_CHART_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'helmcharts.helm.cattle.io', labels: managedLabels },
  spec: {
    group: 'helm.cattle.io',
    names: { kind: 'HelmChart', listKind: 'HelmChartList', plural: 'helmcharts', singular: 'helmchart' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { jsonPath: '.spec.repo', name: 'Repo', type: 'string' },
          { jsonPath: '.spec.chart', name: 'Chart', type: 'string' },
          { jsonPath: '.spec.version', name: 'Version', type: 'string' },
          { jsonPath: '.spec.targetNamespace', name: 'TargetNamespace', type: 'string' },
          { jsonPath: '.spec.bootstrap', name: 'Bootstrap', type: 'boolean' },
          { jsonPath: ".status.conditions[?(@.type=='Failed')].status", name: 'Failed', type: 'string' },
          { jsonPath: '.status.jobName', name: 'Job', priority: 10, type: 'string' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                properties: {
                  chart: { type: 'string' },
                  repo: { type: 'string' },
                  version: { type: 'string' },
                  targetNamespace: { type: 'string' },
                  createNamespace: { type: 'boolean' },
                  valuesContent: { type: 'string' },
                  bootstrap: { type: 'boolean' },
                  backOffLimit: { type: 'integer', format: 'int32' },
                  failurePolicy: { type: 'string', enum: ['abort', 'reinstall'], default: 'reinstall' },
                  authSecret: { type: 'object', properties: { name: { type: 'string' } } },
                  set: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true } },
                },
              },
              status: {
                type: 'object',
                properties: {
                  jobName: { type: 'string' },
                  conditions: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['type', 'status'],
                      properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' }, message: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** HelmChartConfig (values overlaid on a HelmChart's); installed with the controller, not used by kubeplane yet. */
const HELM_CHART_CONFIG_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'helmchartconfigs.helm.cattle.io', labels: managedLabels },
  spec: {
    group: 'helm.cattle.io',
    names: { kind: 'HelmChartConfig', listKind: 'HelmChartConfigList', plural: 'helmchartconfigs', singular: 'helmchartconfig' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { valuesContent: { type: 'string' }, failurePolicy: { type: 'string' } } } },
          },
        },
      },
    ],
  },
};

/** The controller's objects, in the order they must exist (CRDs first; the Deployment last). */
export function helmControllerObjects(): KubeObject[] {
  const ns = HELM_CONTROLLER_NAMESPACE;
  return [
    HELM_CHART_CRD,
    HELM_CHART_CONFIG_CRD,
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'helm-controller', namespace: ns, labels: managedLabels } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'helm-controller', labels: managedLabels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'helm-controller', namespace: ns }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'helm-controller', namespace: ns, labels: { ...managedLabels, app: 'helm-controller' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'helm-controller' } },
        template: {
          metadata: { labels: { app: 'helm-controller' } },
          spec: {
            serviceAccountName: 'helm-controller',
            // It must run before any worker exists, and CNI-less nodes are tainted too: the control planes carry it.
            tolerations: [
              { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
              { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' },
              { key: 'node.cloudprovider.kubernetes.io/uninitialized', operator: 'Exists', effect: 'NoSchedule' },
            ],
            containers: [
              {
                name: 'helm-controller',
                image: HELM_CONTROLLER_IMAGE,
                command: ['helm-controller'],
                // The Jobs it starts run helm with this ClusterRole (k3s-io/helm-controller pkg/controllers/chart: JOB_CLUSTER_ROLE).
                env: [{ name: 'JOB_CLUSTER_ROLE', value: 'cluster-admin' }],
              },
            ],
          },
        },
      },
    },
  ];
}

/** Where an add-on's release lives: the catalog's, unless it is another's (a managed service's release kubeplane upgrades). */
export interface ReleasePlace {
  release: string;
  targetNamespace: string;
}

/**
 * One add-on's HelmChart: the chart coordinates, the version and the values as a YAML string. The HelmChart's name is
 * the release's (helm-controller installs or upgrades the release named after it in its targetNamespace).
 */
export function helmChartObject(id: ChartAddonId, version: string, values: Record<string, unknown>, place?: ReleasePlace): KubeObject {
  const entry = CATALOG[id];
  return {
    apiVersion: HELM_CHART_API_VERSION,
    kind: 'HelmChart',
    metadata: { name: place?.release ?? entry.release, namespace: HELM_CONTROLLER_NAMESPACE, labels: { ...managedLabels, [ADDON_LABEL]: id } },
    spec: {
      repo: entry.repo,
      chart: entry.chart,
      version,
      targetNamespace: place?.targetNamespace ?? entry.targetNamespace,
      createNamespace: true,
      valuesContent: toYaml(values, { sortKeys: true, lineWidth: 80 }),
    },
  };
}
