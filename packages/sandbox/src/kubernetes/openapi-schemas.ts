// The schemas of the served kinds, as the API server publishes them in its OpenAPI documents: field names and types
// from k8s.io/api (core/v1, apps/v1 types.go) and apimachinery's ObjectMeta, with short descriptions for `kubectl
// explain`. A kind or sub-object the sandbox does not describe field by field keeps unknown fields
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
  [`${CORE}.Container`]: {
    type: 'object',
    description: 'A single application container that you want to run within a pod.',
    required: ['name'],
    properties: {
      args: strings('Arguments to the entrypoint.'),
      command: strings('Entrypoint array. Not executed within a shell.'),
      env: list(free('EnvVar represents an environment variable present in a Container.'), 'List of environment variables to set in the container.', 'name'),
      envFrom: list(
        free('EnvFromSource represents the source of a set of ConfigMaps or Secrets.'),
        'List of sources to populate environment variables in the container.',
      ),
      image: s('Container image name.'),
      imagePullPolicy: s('Image pull policy. One of Always, Never, IfNotPresent.'),
      lifecycle: free('Actions that the management system should take in response to container lifecycle events.'),
      livenessProbe: free('Periodic probe of container liveness.'),
      name: s('Name of the container specified as a DNS_LABEL.'),
      ports: list(free('ContainerPort represents a network port in a single container.'), 'List of ports to expose from the container.', 'containerPort'),
      readinessProbe: free('Periodic probe of container service readiness.'),
      resizePolicy: list(free('ContainerResizePolicy represents resource resize policy for the container.'), 'Resources resize policy for the container.'),
      resources: free('Compute Resources required by this container.'),
      restartPolicy: s('RestartPolicy defines the restart behavior of individual containers in a pod.'),
      securityContext: free('SecurityContext defines the security options the container should be run with.'),
      startupProbe: free('StartupProbe indicates that the Pod has successfully initialized.'),
      stdin: b('Whether this container should allocate a buffer for stdin in the container runtime.'),
      stdinOnce: b('Whether the container runtime should close the stdin channel after it has been opened by a single attach.'),
      terminationMessagePath: s(
        "Path at which the file to which the container's termination message will be written is mounted into the container's filesystem.",
      ),
      terminationMessagePolicy: s('Indicate how the termination message should be populated.'),
      tty: b('Whether this container should allocate a TTY for itself.'),
      volumeDevices: list(
        free('volumeDevice describes a mapping of a raw block device within a container.'),
        'volumeDevices is the list of block devices to be used by the container.',
        'devicePath',
      ),
      volumeMounts: list(
        free('VolumeMount describes a mounting of a Volume within a container.'),
        "Pod volumes to mount into the container's filesystem.",
        'mountPath',
      ),
      workingDir: s("Container's working directory."),
    },
  },
  [`${CORE}.PodSpec`]: {
    type: 'object',
    description: 'PodSpec is a description of a pod.',
    required: ['containers'],
    properties: {
      activeDeadlineSeconds: i('Optional duration in seconds the pod may be active on the node relative to StartTime.', 'int64'),
      affinity: free("If specified, the pod's scheduling constraints."),
      automountServiceAccountToken: b('AutomountServiceAccountToken indicates whether a service account token should be automatically mounted.'),
      containers: list(ref(`${CORE}.Container`), 'List of containers belonging to the pod.', 'name'),
      dnsConfig: free('Specifies the DNS parameters of a pod.'),
      dnsPolicy: s('Set DNS policy for the pod.'),
      enableServiceLinks: b("EnableServiceLinks indicates whether information about services should be injected into pod's environment variables."),
      ephemeralContainers: list(
        free('An EphemeralContainer is a temporary container that you may add to an existing Pod.'),
        'List of ephemeral containers run in this pod.',
        'name',
      ),
      hostAliases: list(
        free('HostAlias holds the mapping between IP and hostnames.'),
        "HostAliases is an optional list of hosts and IPs that will be injected into the pod's hosts file.",
        'ip',
      ),
      hostIPC: b("Use the host's ipc namespace."),
      hostNetwork: b('Host networking requested for this pod.'),
      hostPID: b("Use the host's pid namespace."),
      hostUsers: b("Use the host's user namespace."),
      hostname: s('Specifies the hostname of the Pod.'),
      imagePullSecrets: list(
        free('A reference to a secret in the same namespace.'),
        'ImagePullSecrets is an optional list of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec.',
        'name',
      ),
      initContainers: list(ref(`${CORE}.Container`), 'List of initialization containers belonging to the pod.', 'name'),
      nodeName: s('NodeName indicates in which node this pod is scheduled.'),
      nodeSelector: stringMap('NodeSelector is a selector which must be true for the pod to fit on a node.'),
      os: free('Specifies the OS of the containers in the pod.'),
      overhead: free('Overhead represents the resource overhead associated with running a pod for a given RuntimeClass.'),
      preemptionPolicy: s('PreemptionPolicy is the Policy for preempting pods with lower priority.'),
      priority: i('The priority value.'),
      priorityClassName: s("If specified, indicates the pod's priority."),
      readinessGates: list(
        free('PodReadinessGate contains the reference to a pod condition.'),
        'If specified, all readiness gates will be evaluated for pod readiness.',
      ),
      resourceClaims: list(
        free('PodResourceClaim references exactly one ResourceClaim.'),
        'ResourceClaims defines which ResourceClaims must be allocated and reserved before the Pod is allowed to start.',
        'name',
      ),
      resources: free('Resources is the total amount of CPU and Memory resources required by all containers in the pod.'),
      restartPolicy: s('Restart policy for all containers within the pod.'),
      runtimeClassName: s('RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group.'),
      schedulerName: s('If specified, the pod will be dispatched by specified scheduler.'),
      schedulingGates: list(
        free('PodSchedulingGate is associated to a Pod to guard its scheduling.'),
        'SchedulingGates is an opaque list of values that if specified will block scheduling the pod.',
        'name',
      ),
      securityContext: free('SecurityContext holds pod-level security attributes and common container settings.'),
      serviceAccount: s('DeprecatedServiceAccount is a deprecated alias for ServiceAccountName.'),
      serviceAccountName: s('ServiceAccountName is the name of the ServiceAccount to use to run this pod.'),
      setHostnameAsFQDN: b("If true the pod's hostname will be configured as the pod's FQDN."),
      shareProcessNamespace: b('Share a single process namespace between all of the containers in a pod.'),
      subdomain: s('If specified, the fully qualified Pod hostname will be "<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>".'),
      terminationGracePeriodSeconds: i('Optional duration in seconds the pod needs to terminate gracefully.', 'int64'),
      tolerations: list(
        free('The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect>.'),
        "If specified, the pod's tolerations.",
      ),
      topologySpreadConstraints: list(
        free('TopologySpreadConstraint specifies how to spread matching pods among the given topology.'),
        'TopologySpreadConstraints describes how a group of pods ought to spread across topology domains.',
        'topologyKey',
      ),
      volumes: list(
        free('Volume represents a named volume in a pod that may be accessed by any container in the pod.'),
        'List of volumes that can be mounted by containers belonging to the pod.',
        'name',
      ),
    },
  },
  [`${CORE}.PodTemplateSpec`]: {
    type: 'object',
    description: 'PodTemplateSpec describes the data a pod should have when created from a template.',
    properties: {
      metadata: ref(`${META}.ObjectMeta`, "Standard object's metadata."),
      spec: ref(`${CORE}.PodSpec`, 'Specification of the desired behavior of the pod.'),
    },
  },
};

/** The fields of a kind other than apiVersion, kind and metadata; a kind missing here keeps whatever it is given. */
const KIND_FIELDS: Partial<Record<string, { description: string; properties: Record<string, Schema> }>> = {
  ConfigMap: {
    description: 'ConfigMap holds configuration data for pods to consume.',
    properties: {
      binaryData: {
        type: 'object',
        additionalProperties: { type: 'string', format: 'byte' },
        description: "BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', '_' or '.'.",
      },
      data: stringMap("Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'."),
      immutable: b('Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified).'),
    },
  },
  Secret: {
    description: 'Secret holds secret data of a certain type.',
    properties: {
      data: {
        type: 'object',
        additionalProperties: { type: 'string', format: 'byte' },
        description: 'Data contains the secret data. The serialized form of the secret data is a base64 encoded string.',
      },
      immutable: b('Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified).'),
      stringData: stringMap('stringData allows specifying non-binary secret data in string form.'),
      type: s('Used to facilitate programmatic handling of secret data.'),
    },
  },
  Namespace: {
    description: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
    properties: {
      spec: {
        type: 'object',
        description: 'Spec defines the behavior of the Namespace.',
        properties: { finalizers: strings('Finalizers is an opaque list of values that must be empty to permanently remove object from storage.') },
      },
      status: free('Status describes the current status of a Namespace.'),
    },
  },
  Deployment: {
    description: 'Deployment enables declarative updates for Pods and ReplicaSets.',
    properties: {
      spec: {
        type: 'object',
        description: 'Specification of the desired behavior of the Deployment.',
        required: ['selector', 'template'],
        properties: {
          minReadySeconds: i(
            'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available.',
          ),
          paused: b('Indicates that the deployment is paused.'),
          progressDeadlineSeconds: i('The maximum time in seconds for a deployment to make progress before it is considered to be failed.'),
          replicas: i('Number of desired pods.'),
          revisionHistoryLimit: i('The number of old ReplicaSets to retain to allow rollback.'),
          selector: ref(`${META}.LabelSelector`, 'Label selector for pods.'),
          strategy: free('The deployment strategy to use to replace existing pods with new ones.'),
          template: ref(`${CORE}.PodTemplateSpec`, 'Template describes the pods that will be created.'),
        },
      },
      status: free('Most recently observed status of the Deployment.'),
    },
  },
  Pod: {
    description: 'Pod is a collection of containers that can run on a host.',
    properties: {
      spec: ref(`${CORE}.PodSpec`, 'Specification of the desired behavior of the pod.'),
      status: free('Most recently observed status of the pod.'),
    },
  },
  Node: {
    description: 'Node is a worker node in Kubernetes.',
    properties: { spec: free('Spec defines the behavior of a node.'), status: free('Most recently observed status of the node.') },
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
  const fields = KIND_FIELDS[kind];
  return {
    type: 'object',
    description: fields?.description ?? `${kind} (the sandbox keeps its fields as given).`,
    properties: {
      apiVersion: s('APIVersion defines the versioned schema of this representation of an object.'),
      kind: s('Kind is a string value representing the REST resource this object represents.'),
      metadata: ref(`${META}.ObjectMeta`, "Standard object's metadata."),
      ...(fields?.properties ?? {}),
    },
    ...(fields ? {} : { 'x-kubernetes-preserve-unknown-fields': true }),
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
