// Owner references as the API server and the controllers use them (apimachinery metav1.OwnerReference,
// https://kubernetes.io/docs/concepts/overview/working-with-objects/owners-dependents/): every reference names its
// owner's uid, and at most one reference is the controller; a controller owns what names it as controller by uid.
import { obj, type Json, type KubeObject } from './store.js';

const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => obj(x) !== undefined) : []);

/** Records an Event about `involved` from a controller (`component`), as its EventRecorder would (type Normal). */
export type RecordEvent = (involved: KubeObject, component: string, reason: string, message: string) => void;

/** The reference a controller puts on what it makes: controller, and blocking its owner's foreground deletion. */
export function ownerReference(owner: KubeObject, apiVersion: string, kind: string): Json {
  return { apiVersion, kind, name: owner.metadata.name, uid: owner.metadata['uid'], controller: true, blockOwnerDeletion: true };
}

export function ownerReferencesOf(o: KubeObject): Json[] {
  return list(o.metadata['ownerReferences']);
}

/** The reference marked controller, if any. */
export function controllerOf(o: KubeObject): Json | undefined {
  return ownerReferencesOf(o).find((r) => r['controller'] === true);
}

/** `o` names `owner` (by uid) as its controller. */
export function ownedBy(o: KubeObject, owner: KubeObject): boolean {
  const ref = controllerOf(o);
  return ref !== undefined && ref['uid'] === owner.metadata['uid'];
}

/** A metav1.LabelSelector (matchLabels and matchExpressions) against labels; an empty selector matches everything. */
export function matchesSelector(selector: Json | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const match = (obj(selector['matchLabels']) ?? {}) as Record<string, unknown>;
  if (!Object.entries(match).every(([k, v]) => labels[k] === v)) return false;
  return list(selector['matchExpressions']).every((e) => {
    const key = String(e['key'] ?? '');
    const values = Array.isArray(e['values']) ? (e['values'] as unknown[]).map(String) : [];
    switch (e['operator']) {
      case 'In':
        return key in labels && values.includes(labels[key] ?? '');
      case 'NotIn':
        return !(key in labels) || !values.includes(labels[key] ?? '');
      case 'Exists':
        return key in labels;
      case 'DoesNotExist':
        return !(key in labels);
      default:
        return false;
    }
  });
}

/**
 * What the API server checks of every reference (apimachinery validation.ValidateOwnerReferences): apiVersion, kind,
 * name and uid present, and at most one controller. The field and message forms are its own.
 */
export function ownerReferenceErrors(o: KubeObject): Array<{ field: string; message: string }> {
  const errors: Array<{ field: string; message: string }> = [];
  const refs = o.metadata['ownerReferences'];
  if (refs === undefined || refs === null) return errors;
  for (const r of list(refs)) {
    for (const [key, what] of [
      ['apiVersion', 'version'],
      ['kind', 'kind'],
      ['name', 'name'],
      ['uid', 'uid'],
    ] as const) {
      const v = r[key];
      if (typeof v !== 'string' || v === '') errors.push({ field: `metadata.ownerReferences.${key}`, message: `Invalid value: "": ${what} must not be empty` });
    }
  }
  const controllers = list(refs).filter((r) => r['controller'] === true);
  if (controllers.length > 1) {
    errors.push({
      field: 'metadata.ownerReferences',
      message:
        'Only one reference can have Controller set to true. Found "true" in references for ' +
        controllers.map((r) => `${String(r['kind'])}/${String(r['name'])}`).join(' and '),
    });
  }
  return errors;
}
