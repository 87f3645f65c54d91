// The sandbox's own schemas, for the served kinds Kubernetes' published document lacks (openapi-spec.ts covers the
// rest): apimachinery's ObjectMeta and the meta/v1 types they refer to, field by field, and each such kind (cilium.io's
// CiliumClusterwideNetworkPolicy, whose CRD Cilium installs on a real cluster) keeping unknown fields
// (`x-kubernetes-preserve-unknown-fields`), so strict field validation never refuses what a real server takes.
import { resourceVersion, specOf, type Resource } from './store.js';

export interface Schema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  $ref?: string;
  allOf?: Schema[];
  default?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
}

/** A reference to another schema by its definition name; documents turn it into their own $ref form. */
export const ref = (name: string, description?: string): Schema =>
  description ? { allOf: [{ $ref: `#/components/schemas/${name}` }], description } : { $ref: `#/components/schemas/${name}` };

const s = (description: string, format?: string): Schema => ({ type: 'string', description, ...(format ? { format } : {}) });
const i = (description: string, format = 'int32'): Schema => ({ type: 'integer', format, description });
const b = (description: string): Schema => ({ type: 'boolean', description });
const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string', default: '' }, description });
const stringMap = (description: string): Schema => ({ type: 'object', additionalProperties: { type: 'string', default: '' }, description });
/** An object the sandbox does not describe field by field. */
const free = (description: string): Schema => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
const list = (item: Schema, description: string, mergeKey?: string): Schema => ({
  type: 'array',
  items: item,
  description,
  ...(mergeKey
    ? {
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': mergeKey,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': [mergeKey],
      }
    : {}),
});

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const CORE = 'io.k8s.api.core.v1';

/** Definitions every document carries (meta/v1), by name. */
export const SHARED: Record<string, Schema> = {
  [`${META}.Time`]: {
    type: 'string',
    format: 'date-time',
    description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.',
  },
  [`${META}.OwnerReference`]: {
    type: 'object',
    description: 'OwnerReference contains enough information to let you identify an owning object.',
    required: ['apiVersion', 'kind', 'name', 'uid'],
    properties: {
      apiVersion: s('API version of the referent.'),
      kind: s('Kind of the referent.'),
      name: s('Name of the referent.'),
      uid: s('UID of the referent.'),
      controller: b('If true, this reference points to the managing controller.'),
      blockOwnerDeletion: b(
        'If true, AND if the owner has the "foregroundDeletion" finalizer, then the ' +
          'owner cannot be deleted from the key-value store until this reference is removed.',
      ),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${META}.ManagedFieldsEntry`]: {
    type: 'object',
    description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
    properties: {
      apiVersion: s('APIVersion defines the version of this resource that this field set applies to.'),
      fieldsType: s('FieldsType is the discriminator for the different fields format and version.'),
      fieldsV1: free('FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.'),
      manager: s('Manager is an identifier of the workflow managing these fields.'),
      operation: s('Operation is the type of operation which lead to this ManagedFieldsEntry being created.'),
      subresource: s('Subresource is the name of the subresource used to update that object.'),
      time: ref(`${META}.Time`, 'Time is the timestamp of when the ManagedFields entry was added.'),
    },
  },
  [`${META}.ObjectMeta`]: {
    type: 'object',
    description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    properties: {
      annotations: stringMap(
        'Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.',
      ),
      creationTimestamp: ref(`${META}.Time`, 'CreationTimestamp is a timestamp representing the server time when this object was created.'),
      deletionGracePeriodSeconds: i('Number of seconds allowed for this object to gracefully terminate before it will be removed from the system.', 'int64'),
      deletionTimestamp: ref(`${META}.Time`, 'DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.'),
      finalizers: {
        ...strings('Must be empty before the object is deleted from the registry.'),
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
      generateName: s('GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided.'),
      generation: i('A sequence number representing a specific generation of the desired state.', 'int64'),
      labels: stringMap('Map of string keys and values that can be used to organize and categorize (scope and select) objects.'),
      managedFields: list(
        ref(`${META}.ManagedFieldsEntry`),
        'ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow.',
      ),
      name: s('Name must be unique within a namespace.'),
      namespace: s('Namespace defines the space within which each name must be unique.'),
      ownerReferences: list(ref(`${META}.OwnerReference`), 'List of objects depended by this object.', 'uid'),
      resourceVersion: s('An opaque value that represents the internal version of this object.'),
      selfLink: s('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
      uid: s('UID is the unique in time and space value for this object.'),
    },
  },
  [`${META}.Patch`]: { type: 'object', description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.' },
  [`${META}.ListMeta`]: {
    type: 'object',
    description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    properties: {
      continue: s('continue may be set if the user set a limit on the number of items returned.'),
      remainingItemCount: i('remainingItemCount is the number of subsequent items in the list which are not included in this list response.', 'int64'),
      resourceVersion: s("String that identifies the server's internal version of this object."),
      selfLink: s('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
    },
  },
  [`${META}.LabelSelector`]: {
    type: 'object',
    description: 'A label selector is a label query over a set of resources.',
    properties: {
      matchExpressions: list(
        free('A label selector requirement: key, operator and values.'),
        'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
      ),
      matchLabels: stringMap('matchLabels is a map of {key,value} pairs.'),
    },
    'x-kubernetes-map-type': 'atomic',
  },
  [`${META}.Status`]: {
    type: 'object',
    description: 'Status is a return value for calls that do not return other objects.',
    properties: {
      apiVersion: s('APIVersion defines the versioned schema of this representation of an object.'),
      code: i('Suggested HTTP return code for this status, 0 if not set.'),
      details: free('Extended data associated with the reason.'),
      kind: s('Kind is a string value representing the REST resource this object represents.'),
      message: s('A human-readable description of the status of this operation.'),
      metadata: ref(`${META}.ListMeta`, 'Standard list metadata.'),
      reason: s('A machine-readable description of why this operation is in the "Failure" status.'),
      status: s('Status of the operation. One of: "Success" or "Failure".'),
    },
  },
};

/**
 * The definition name a kind has in the API server's documents: io.k8s.api.<group>.<version>.<Kind> for the
 * built-in groups (core for the legacy group, the first label of *.k8s.io groups), the reversed domain for others
 * (a CRD's cilium.io v2 is io.cilium.v2.<Kind>).
 */
export function definitionName(resource: Resource): string {
  const { group, kind } = specOf(resource);
  const version = resourceVersion(resource);
  if (group === '') return `${CORE.replace(/\.v1$/, '')}.${version}.${kind}`;
  if (group.endsWith('.k8s.io') || !group.includes('.')) return `io.k8s.api.${group.split('.')[0] ?? group}.${version}.${kind}`;
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** A served kind's schema, with its group-version-kind, as the documents list it. */
export function kindSchema(resource: Resource): Schema {
  const { group, kind } = specOf(resource);
  return {
    type: 'object',
    description: `${kind} (the sandbox keeps its fields as given).`,
    properties: {
      apiVersion: s('APIVersion defines the versioned schema of this representation of an object.'),
      kind: s('Kind is a string value representing the REST resource this object represents.'),
      metadata: ref(`${META}.ObjectMeta`, "Standard object's metadata."),
    },
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [{ group, version: resourceVersion(resource), kind }],
  };
}

/** The list kind's schema (`ConfigMapList`). */
export function listSchema(resource: Resource): Schema {
  const { group, kind } = specOf(resource);
  return {
    type: 'object',
    description: `${kind}List is a list of ${kind} objects.`,
    required: ['items'],
    properties: {
      apiVersion: s('APIVersion defines the versioned schema of this representation of an object.'),
      items: list(ref(definitionName(resource)), `Items is the list of ${kind} objects.`),
      kind: s('Kind is a string value representing the REST resource this object represents.'),
      metadata: ref(`${META}.ListMeta`, 'Standard list metadata.'),
    },
    'x-kubernetes-group-version-kind': [{ group, version: resourceVersion(resource), kind: `${kind}List` }],
  };
}
