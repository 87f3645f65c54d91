// metadata.generation as the API server keeps it: only the registries whose strategy's PrepareForCreate sets
// `Generation = 1` give an object one, and each bumps it on the changes its PrepareForUpdate names. Other kinds
// (ConfigMaps, Secrets, ServiceAccounts, Services, Namespaces, Nodes, RBAC, Leases, Events …) have none.
// Sources (kubernetes/pkg/registry/<group>/<kind>/strategy.go unless said):
// - Deployments: a change of spec or of annotations (annotations are copied to the ReplicaSets);
// - ReplicaSets, DaemonSets, Jobs, PodDisruptionBudgets, CSIDrivers, CRDs (apiextensions-apiserver
//   pkg/registry/customresourcedefinition): a change of spec;
// - EndpointSlices: a change of anything but metadata, or of the labels;
// - custom resources (apiextensions-apiserver pkg/registry/customresource): anything but metadata, and but status
//   when the CRD's version declares the status subresource;
// - Pods from 1.33 (KEP-5067 Pod Generation, alpha in 1.33: the API server sets it for every pod, the gate governs
//   only status.observedGeneration): a change of spec.
// Every update keeps the stored generation whatever the request says (apiserver pkg/registry/rest/update.go
// BeforeUpdate, "Ensure requests cannot update generation"); setting deletionTimestamp bumps a generation above 0
// (rest/delete.go BeforeDelete for graceful deletion, generic/registry/store.go markAsDeleting for finalizers).
import { crdDeclaresStatus } from './customresources.js';
import { isBuiltin, type GenerationPolicy, type Json, type KubeObject, type ObjectStore } from './store.js';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Everything but `metadata` (and but `status` when `withoutStatus`). */
function body(o: KubeObject, withoutStatus: boolean): Json {
  const { metadata: _metadata, status, ...rest } = o;
  return withoutStatus || status === undefined ? rest : { ...rest, status };
}

/** The policy of a cluster (read at each write: its version changes with upgrades; custom resources read their CRD). */
export function generationPolicy(cluster: { readonly identity: { readonly kubernetesVersion: string }; readonly store: ObjectStore }): GenerationPolicy {
  const bySpec = new Set<string>(['replicasets', 'daemonsets', 'jobs', 'poddisruptionbudgets', 'csidrivers', 'customresourcedefinitions']);
  const podsToo = (): boolean => Number(/^v?\d+\.(\d+)/.exec(cluster.identity.kubernetesVersion)?.[1] ?? 0) >= 33;
  const specTracked = (resource: string): boolean => bySpec.has(resource) || (resource === 'pods' && podsToo());
  return {
    tracks: (resource) => !isBuiltin(resource) || specTracked(resource) || resource === 'deployments' || resource === 'endpointslices',
    changed(resource, current, next) {
      if (!isBuiltin(resource)) {
        const withoutStatus = crdDeclaresStatus(cluster.store, resource);
        return !same(body(current, withoutStatus), body(next, withoutStatus));
      }
      if (specTracked(resource)) return !same(current['spec'], next['spec']);
      if (resource === 'deployments') return !same(current['spec'], next['spec']) || !same(current.metadata['annotations'], next.metadata['annotations']);
      if (resource === 'endpointslices') return !same(body(current, false), body(next, false)) || !same(current.metadata.labels, next.metadata.labels);
      return false;
    },
  };
}
