// The install mechanism: k3s-io/helm-controller, applied by the engine (pinned), and one `helm.cattle.io/v1`
// HelmChart per add-on. The controller runs `helm upgrade --install` in a Job when a HelmChart changes and
// `helm uninstall` when one is deleted (https://github.com/k3s-io/helm-controller, README and pkg/controllers/chart).
import { stringify } from 'yaml';
import type { KubeObject } from '../engine/ports/kubernetes.js';
import { CATALOG, type ChartAddonId } from './catalog.js';

/** rancher/helm-controller's image, pinned (a published tag: https://hub.docker.com/r/rancher/helm-controller/tags). */
export const HELM_CONTROLLER_IMAGE = 'rancher/helm-controller:v0.16.5';
export const HELM_CONTROLLER_NAMESPACE = 'kube-system';
export const HELM_CHART_API_VERSION = 'helm.cattle.io/v1';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'kubeplane';
export const ADDON_LABEL = 'kubeplane.dev/addon';
/** The label selector of every object kubeplane's add-on mechanism owns. */
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;

const managedLabels = { [MANAGED_BY_LABEL]: MANAGED_BY };

/**
 * A CRD of the helm.cattle.io group. The schema keeps unknown fields: the controller's own validation is the
 * authority on HelmChart fields, and a stricter schema here would reject fields of a newer controller.
 */
function crd(kind: 'HelmChart' | 'HelmChartConfig'): KubeObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.helm.cattle.io`, labels: managedLabels },
    spec: {
      group: 'helm.cattle.io',
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(kind === 'HelmChart' ? { subresources: { status: {} } } : {}),
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          ...(kind === 'HelmChart'
            ? {
                additionalPrinterColumns: [
                  { name: 'Job', type: 'string', jsonPath: '.status.jobName' },
                  { name: 'Chart', type: 'string', jsonPath: '.spec.chart' },
                  { name: 'TargetNamespace', type: 'string', jsonPath: '.spec.targetNamespace' },
                  { name: 'Version', type: 'string', jsonPath: '.spec.version' },
                  { name: 'Repo', type: 'string', jsonPath: '.spec.repo' },
                ],
              }
            : {}),
        },
      ],
    },
  };
}

/** The controller's objects, in the order they must exist (CRDs first; the Deployment last). */
export function helmControllerObjects(): KubeObject[] {
  const ns = HELM_CONTROLLER_NAMESPACE;
  return [
    crd('HelmChart'),
    crd('HelmChartConfig'),
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

/** One add-on's HelmChart: the chart coordinates, the version and the values as a YAML string. */
export function helmChartObject(id: ChartAddonId, version: string, values: Record<string, unknown>): KubeObject {
  const entry = CATALOG[id];
  return {
    apiVersion: HELM_CHART_API_VERSION,
    kind: 'HelmChart',
    metadata: { name: entry.release, namespace: HELM_CONTROLLER_NAMESPACE, labels: { ...managedLabels, [ADDON_LABEL]: id } },
    spec: {
      repo: entry.repo,
      chart: entry.chart,
      version,
      targetNamespace: entry.targetNamespace,
      createNamespace: true,
      valuesContent: stringify(values, { sortMapEntries: true }),
    },
  };
}
