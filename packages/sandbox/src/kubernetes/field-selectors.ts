// Field selectors as the API server supports them: per resource, only the fields its registry indexes
// (https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors/#supported-fields, and the
// AddFieldLabelConversionFunc calls in pkg/apis/core/v1/conversion.go); any other is a 400
// `field label not supported: <field>`. `=`, `==` and `!=`, clauses joined by `,`.
import { ApiError, obj, type KubeObject, type Resource } from './store.js';

type Getter = (o: KubeObject) => string;

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
const spec = (o: KubeObject, k: string): string => str(obj(o['spec'])?.[k]);
const status = (o: KubeObject, k: string): string => str(obj(o['status'])?.[k]);
const involved = (o: KubeObject, k: string): string => str(obj(o['involvedObject'])?.[k]);

const COMMON: Record<string, Getter> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

/** Beyond metadata.name and metadata.namespace, which every resource supports. */
const BY_RESOURCE: Partial<Record<Resource, Record<string, Getter>>> = {
  pods: {
    'spec.nodeName': (o) => spec(o, 'nodeName'),
    'spec.restartPolicy': (o) => spec(o, 'restartPolicy'),
    'spec.schedulerName': (o) => spec(o, 'schedulerName'),
    'spec.serviceAccountName': (o) => spec(o, 'serviceAccountName'),
    'spec.hostNetwork': (o) => String(obj(o['spec'])?.['hostNetwork'] === true),
    'status.phase': (o) => status(o, 'phase'),
    'status.podIP': (o) => status(o, 'podIP'),
    'status.nominatedNodeName': (o) => status(o, 'nominatedNodeName'),
  },
  // A node that was never cordoned has no spec.unschedulable: it matches `false` (pkg/registry/core/node/strategy.go).
  nodes: { 'spec.unschedulable': (o) => String(obj(o['spec'])?.['unschedulable'] === true) },
  namespaces: { 'status.phase': (o) => status(o, 'phase') },
  secrets: { type: (o) => str(o['type']) },
  events: {
    'involvedObject.kind': (o) => involved(o, 'kind'),
    'involvedObject.namespace': (o) => involved(o, 'namespace'),
    'involvedObject.name': (o) => involved(o, 'name'),
    'involvedObject.uid': (o) => involved(o, 'uid'),
    'involvedObject.apiVersion': (o) => involved(o, 'apiVersion'),
    'involvedObject.resourceVersion': (o) => involved(o, 'resourceVersion'),
    'involvedObject.fieldPath': (o) => involved(o, 'fieldPath'),
    reason: (o) => str(o['reason']),
    reportingComponent: (o) => str(o['reportingComponent']),
    source: (o) => str(obj(o['source'])?.['component']),
    type: (o) => str(o['type']),
  },
};

interface Clause {
  field: string;
  value: string;
  negate: boolean;
  get: Getter;
}

/** The selector's clauses; throws the API server's 400 for a malformed one or an unsupported field. */
export function parseFieldSelector(resource: Resource, selector: string): Clause[] {
  const clauses: Clause[] = [];
  for (const raw of selector.split(',')) {
    const clause = raw.trim();
    if (clause === '') continue;
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(clause);
    if (!m) throw new ApiError(400, 'BadRequest', `invalid selector: '${selector}'; can't understand '${clause}'`);
    const field = (m[1] ?? '').trim();
    const get = COMMON[field] ?? BY_RESOURCE[resource]?.[field];
    if (!get) throw new ApiError(400, 'BadRequest', `field label not supported: ${field}`);
    clauses.push({ field, value: (m[3] ?? '').trim(), negate: m[2] === '!=', get });
  }
  return clauses;
}

export function matchesFieldSelector(o: KubeObject, clauses: Clause[]): boolean {
  return clauses.every((c) => (c.get(o) === c.value) !== c.negate);
}
