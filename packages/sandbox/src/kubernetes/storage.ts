// StorageClasses, PersistentVolumeClaims and PersistentVolumes as the API server's registry strategies and admission
// leave them: a StorageClass defaults reclaimPolicy Delete and volumeBindingMode Immediate and may not change its
// provisioner, parameters, reclaimPolicy or binding mode (pkg/apis/storage/validation ValidateStorageClassUpdate);
// a claim without a class gets the default class (the DefaultStorageClass admission plugin,
// plugin/pkg/admission/storage/storageclass/setdefault), starts Pending, and may not change its class or selector
// once bound; a volume starts Available (its phase is the PV controller's).
// Binding (which volume, when) is the scheduler's and the PV controller's: scheduling.ts.
import { ApiError, obj, type Json, type KubeObject, type ObjectStore } from './store.js';

export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';

function immutable(kind: string, group: string, name: string, field: string): ApiError {
  const qualified = group ? `${kind}.${group}` : kind;
  return new ApiError(422, 'Invalid', `${qualified} "${name}" is invalid: ${field}: Forbidden: updates to ${field.split('.').pop() ?? field} are forbidden.`, {
    name,
    kind,
    ...(group ? { group } : {}),
    causes: [{ reason: 'FieldValueForbidden', message: `Forbidden: updates to ${field.split('.').pop() ?? field} are forbidden.`, field }],
  });
}

export function prepareStorageClass(next: KubeObject, current: KubeObject | null): KubeObject {
  const name = next.metadata.name;
  if (typeof next['provisioner'] !== 'string' || next['provisioner'] === '') {
    throw new ApiError(422, 'Invalid', `StorageClass.storage.k8s.io "${name}" is invalid: provisioner: Required value`, {
      name,
      kind: 'StorageClass',
      group: 'storage.k8s.io',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'provisioner' }],
    });
  }
  const prepared: KubeObject = {
    ...next,
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    reclaimPolicy: next['reclaimPolicy'] ?? 'Delete',
    volumeBindingMode: next['volumeBindingMode'] ?? 'Immediate',
  };
  if (current) {
    for (const field of ['provisioner', 'parameters', 'reclaimPolicy', 'volumeBindingMode']) {
      if (JSON.stringify(current[field] ?? null) !== JSON.stringify(prepared[field] ?? null)) throw immutable('StorageClass', 'storage.k8s.io', name, field);
    }
  }
  return prepared;
}

/** The class a claim without one gets: the newest class annotated default (setdefault picks the newest since 1.28). */
export function defaultStorageClass(store: ObjectStore): string | undefined {
  const defaults = store
    .list('storageclasses')
    .filter((c) => (c.metadata['annotations'] as Record<string, string> | undefined)?.[DEFAULT_CLASS_ANNOTATION] === 'true');
  defaults.sort(
    (a, b) => String(b.metadata['creationTimestamp']).localeCompare(String(a.metadata['creationTimestamp'])) || b.metadata.name.localeCompare(a.metadata.name),
  );
  return defaults[0]?.metadata.name;
}

export function preparePvc(next: KubeObject, current: KubeObject | null, defaultClass: string | undefined): KubeObject {
  const name = next.metadata.name;
  const spec = obj(next['spec']) ?? {};
  const causes: Array<{ field: string; message: string; reason: string }> = [];
  if (!Array.isArray(spec['accessModes']) || spec['accessModes'].length === 0)
    causes.push({ field: 'spec.accessModes', message: 'Required value: at least 1 access mode is required', reason: 'FieldValueRequired' });
  if (obj(obj(spec['resources'])?.['requests'])?.['storage'] === undefined)
    causes.push({ field: 'spec.resources[storage]', message: 'Required value', reason: 'FieldValueRequired' });
  if (causes.length > 0) {
    const text = causes.map((c) => `${c.field}: ${c.message}`);
    throw new ApiError(422, 'Invalid', `PersistentVolumeClaim "${name}" is invalid: ${text.length > 1 ? `[${text.join(', ')}]` : text[0]}`, {
      name,
      kind: 'PersistentVolumeClaim',
      causes,
    });
  }
  // The admission plugin fills the class on create only (a nil storageClassName; "" asks for no class).
  const storageClassName = current ? spec['storageClassName'] : (spec['storageClassName'] ?? defaultClass);
  const prepared: KubeObject = {
    ...next,
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    spec: { volumeMode: 'Filesystem', ...spec, ...(storageClassName !== undefined ? { storageClassName } : {}) },
    status: current ? (current['status'] as Json) : { phase: 'Pending' },
  };
  if (current) {
    const before = obj(current['spec']) ?? {};
    // ValidatePersistentVolumeClaimUpdate: the spec is immutable after creation except resources.requests and volumeName
    // being set by the binder.
    const { resources: _a, volumeName: _b, ...was } = before;
    const { resources: _c, volumeName: _d, ...now } = obj(prepared['spec']) ?? {};
    if (JSON.stringify(was) !== JSON.stringify(now)) {
      throw new ApiError(
        422,
        'Invalid',
        `PersistentVolumeClaim "${name}" is invalid: spec: Forbidden: spec is immutable after ` +
          `creation except resources.requests and volumeAttributesClassName for bound claims`,
        { name, kind: 'PersistentVolumeClaim' },
      );
    }
  }
  return prepared;
}

export function preparePv(next: KubeObject, current: KubeObject | null): KubeObject {
  return {
    ...next,
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    status: current ? (current['status'] as Json) : { phase: next['spec'] && obj(obj(next['spec'])?.['claimRef']) ? 'Bound' : 'Available' },
  };
}
