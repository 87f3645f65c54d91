// Request bodies in the API server's protobuf encoding, which kubectl's typed clients send for built-in kinds
// (`kubectl create configmap|secret|namespace|deployment|serviceaccount|role|rolebinding|…`, drain's evictions, `auth
// can-i`'s access reviews): the `k8s\0` envelope around a runtime.Unknown, whose raw bytes are the kind's message.
// Only the kinds and fields described here decode; a body of another kind, or one that sets a field not described,
// gets 415 (never a field silently dropped), as from a server without a protobuf serializer for it. Wire format:
// apimachinery/pkg/runtime/serializer/protobuf/protobuf.go; field numbers: the generated.proto files of k8s.io/api
// core/v1, policy/v1 and apimachinery meta/v1.
import { ApiError, type Json } from './store.js';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

type Field =
  | { name: string; type: 'string' | 'bytes' | 'bool' | 'time' }
  /** `optional`: a pointer in Go (replicas), so a zero sent is a zero meant; other zero numbers are unset. */
  | { name: string; type: 'int'; optional?: boolean }
  /** Read and left out: what a create ignores (a Deployment's status). */
  | { name: string; type: 'ignored' }
  /** intstr.IntOrString: {type, intVal, strVal}, a number or a string in JSON (a Service's targetPort). */
  | { name: string; type: 'int-or-string' }
  | { name: string; type: 'message'; message: Message }
  | { name: string; type: 'repeated-string' }
  | { name: string; type: 'repeated-message'; message: Message }
  | { name: string; type: 'map-string' | 'map-bytes' };
type Message = Record<number, Field>;

const OWNER_REFERENCE: Message = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};

const OBJECT_META: Message = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  4: { name: 'selfLink', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: 'time' },
  9: { name: 'deletionTimestamp', type: 'time' },
  10: { name: 'deletionGracePeriodSeconds', type: 'int' },
  11: { name: 'labels', type: 'map-string' },
  12: { name: 'annotations', type: 'map-string' },
  13: { name: 'ownerReferences', type: 'repeated-message', message: OWNER_REFERENCE },
  14: { name: 'finalizers', type: 'repeated-string' },
};

const meta: Field = { name: 'metadata', type: 'message', message: OBJECT_META };

const LABEL_SELECTOR: Message = {
  1: { name: 'matchLabels', type: 'map-string' },
  2: {
    name: 'matchExpressions',
    type: 'repeated-message',
    message: { 1: { name: 'key', type: 'string' }, 2: { name: 'operator', type: 'string' }, 3: { name: 'values', type: 'repeated-string' } },
  },
};

const CONTAINER: Message = {
  1: { name: 'name', type: 'string' },
  2: { name: 'image', type: 'string' },
  3: { name: 'command', type: 'repeated-string' },
  4: { name: 'args', type: 'repeated-string' },
  5: { name: 'workingDir', type: 'string' },
  6: {
    name: 'ports',
    type: 'repeated-message',
    message: {
      1: { name: 'name', type: 'string' },
      2: { name: 'hostPort', type: 'int' },
      3: { name: 'containerPort', type: 'int' },
      4: { name: 'protocol', type: 'string' },
      5: { name: 'hostIP', type: 'string' },
    },
  },
  7: { name: 'env', type: 'repeated-message', message: { 1: { name: 'name', type: 'string' }, 2: { name: 'value', type: 'string' } } },
  // ResourceRequirements: an empty one is what kubectl create sends; limits and requests are not decoded.
  8: { name: 'resources', type: 'message', message: {} },
  13: { name: 'terminationMessagePath', type: 'string' },
  14: { name: 'imagePullPolicy', type: 'string' },
  16: { name: 'stdin', type: 'bool' },
  17: { name: 'stdinOnce', type: 'bool' },
  18: { name: 'tty', type: 'bool' },
  20: { name: 'terminationMessagePolicy', type: 'string' },
};

const POD_SPEC: Message = {
  2: { name: 'containers', type: 'repeated-message', message: CONTAINER },
  3: { name: 'restartPolicy', type: 'string' },
  4: { name: 'terminationGracePeriodSeconds', type: 'int', optional: true },
  6: { name: 'dnsPolicy', type: 'string' },
  7: { name: 'nodeSelector', type: 'map-string' },
  8: { name: 'serviceAccountName', type: 'string' },
  9: { name: 'serviceAccount', type: 'string' },
  10: { name: 'nodeName', type: 'string' },
  11: { name: 'hostNetwork', type: 'bool' },
  12: { name: 'hostPID', type: 'bool' },
  13: { name: 'hostIPC', type: 'bool' },
  16: { name: 'hostname', type: 'string' },
  17: { name: 'subdomain', type: 'string' },
  19: { name: 'schedulerName', type: 'string' },
  24: { name: 'priorityClassName', type: 'string' },
};

const DEPLOYMENT_SPEC: Message = {
  1: { name: 'replicas', type: 'int', optional: true },
  2: { name: 'selector', type: 'message', message: LABEL_SELECTOR },
  3: { name: 'template', type: 'message', message: { 1: meta, 2: { name: 'spec', type: 'message', message: POD_SPEC } } },
  4: { name: 'strategy', type: 'message', message: { 1: { name: 'type', type: 'string' } } },
  5: { name: 'minReadySeconds', type: 'int' },
  6: { name: 'revisionHistoryLimit', type: 'int', optional: true },
  7: { name: 'paused', type: 'bool' },
  9: { name: 'progressDeadlineSeconds', type: 'int', optional: true },
};

const SERVICE_SPEC: Message = {
  1: {
    name: 'ports',
    type: 'repeated-message',
    message: {
      1: { name: 'name', type: 'string' },
      2: { name: 'protocol', type: 'string' },
      3: { name: 'port', type: 'int' },
      4: { name: 'targetPort', type: 'int-or-string' },
      5: { name: 'nodePort', type: 'int' },
    },
  },
  2: { name: 'selector', type: 'map-string' },
  3: { name: 'clusterIP', type: 'string' },
  4: { name: 'type', type: 'string' },
  7: { name: 'sessionAffinity', type: 'string' },
  8: { name: 'loadBalancerIP', type: 'string' },
  10: { name: 'externalName', type: 'string' },
  11: { name: 'externalTrafficPolicy', type: 'string' },
  12: { name: 'healthCheckNodePort', type: 'int' },
  13: { name: 'publishNotReadyAddresses', type: 'bool' },
};

const RESOURCE_ATTRIBUTES: Message = {
  1: { name: 'namespace', type: 'string' },
  2: { name: 'verb', type: 'string' },
  3: { name: 'group', type: 'string' },
  4: { name: 'version', type: 'string' },
  5: { name: 'resource', type: 'string' },
  6: { name: 'subresource', type: 'string' },
  7: { name: 'name', type: 'string' },
};

/** core/v1 ObjectReference: kind=1, namespace=2, name=3, uid=4, apiVersion=5, resourceVersion=6, fieldPath=7. */
const OBJECT_REFERENCE: Message = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'namespace', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'fieldPath', type: 'string' },
};

/** rbac/v1 PolicyRule: verbs=1, apiGroups=2, resources=3, resourceNames=4, nonResourceURLs=5. */
const POLICY_RULE: Message = {
  1: { name: 'verbs', type: 'repeated-string' },
  2: { name: 'apiGroups', type: 'repeated-string' },
  3: { name: 'resources', type: 'repeated-string' },
  4: { name: 'resourceNames', type: 'repeated-string' },
  5: { name: 'nonResourceURLs', type: 'repeated-string' },
};

/** rbac/v1 RoleBinding and ClusterRoleBinding: Subject{kind=1, apiGroup=2, name=3, namespace=4}, RoleRef{apiGroup=1, kind=2, name=3}. */
const ROLE_BINDING: Message = {
  1: meta,
  2: {
    name: 'subjects',
    type: 'repeated-message',
    message: {
      1: { name: 'kind', type: 'string' },
      2: { name: 'apiGroup', type: 'string' },
      3: { name: 'name', type: 'string' },
      4: { name: 'namespace', type: 'string' },
    },
  },
  3: {
    name: 'roleRef',
    type: 'message',
    message: { 1: { name: 'apiGroup', type: 'string' }, 2: { name: 'kind', type: 'string' }, 3: { name: 'name', type: 'string' } },
  },
};

/** The kinds decoded, by `apiVersion/kind` (the envelope's TypeMeta). */
const KINDS: Record<string, Message> = {
  'v1/ConfigMap': { 1: meta, 2: { name: 'data', type: 'map-string' }, 3: { name: 'binaryData', type: 'map-bytes' }, 4: { name: 'immutable', type: 'bool' } },
  'v1/Secret': {
    1: meta,
    2: { name: 'data', type: 'map-bytes' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'map-string' },
    5: { name: 'immutable', type: 'bool' },
  },
  'v1/Namespace': {
    1: meta,
    2: { name: 'spec', type: 'message', message: { 1: { name: 'finalizers', type: 'repeated-string' } } },
    3: { name: 'status', type: 'message', message: { 1: { name: 'phase', type: 'string' } } },
  },
  // What `kubectl create service clusterip|nodeport|externalname` sends.
  'v1/Service': { 1: meta, 2: { name: 'spec', type: 'message', message: SERVICE_SPEC }, 3: { name: 'status', type: 'ignored' } },
  'apps/v1/Deployment': { 1: meta, 2: { name: 'spec', type: 'message', message: DEPLOYMENT_SPEC }, 3: { name: 'status', type: 'ignored' } },
  // What `kubectl auth can-i` sends: SelfSubjectAccessReview{metadata=1, spec=2}, spec{resourceAttributes=1,
  // nonResourceAttributes=2} (k8s.io/api/authorization/v1/generated.proto). fieldSelector and labelSelector
  // (ResourceAttributes 8 and 9, 1.31+) are not described: a review that sets them gets 415.
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: meta,
    2: {
      name: 'spec',
      type: 'message',
      message: {
        1: { name: 'resourceAttributes', type: 'message', message: RESOURCE_ATTRIBUTES },
        2: { name: 'nonResourceAttributes', type: 'message', message: { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } } },
      },
    },
    3: { name: 'status', type: 'ignored' },
  },
  // What `kubectl create poddisruptionbudget` sends: PodDisruptionBudgetSpec{minAvailable=1, selector=2,
  // maxUnavailable=3, unhealthyPodEvictionPolicy=4} (k8s.io/api/policy/v1/generated.proto).
  'policy/v1/PodDisruptionBudget': {
    1: meta,
    2: {
      name: 'spec',
      type: 'message',
      message: {
        1: { name: 'minAvailable', type: 'int-or-string' },
        2: { name: 'selector', type: 'message', message: LABEL_SELECTOR },
        3: { name: 'maxUnavailable', type: 'int-or-string' },
        4: { name: 'unhealthyPodEvictionPolicy', type: 'string' },
      },
    },
    3: { name: 'status', type: 'ignored' },
  },
  // What `kubectl create job` sends: Job{metadata=1, spec=2, status=3}, JobSpec{parallelism=1, completions=2,
  // activeDeadlineSeconds=3, selector=4, manualSelector=5, template=6, backoffLimit=7, ttlSecondsAfterFinished=8,
  // completionMode=9, suspend=10, podReplacementPolicy=14} (k8s.io/api/batch/v1/generated.proto).
  'batch/v1/Job': {
    1: meta,
    2: {
      name: 'spec',
      type: 'message',
      message: {
        1: { name: 'parallelism', type: 'int', optional: true },
        2: { name: 'completions', type: 'int', optional: true },
        3: { name: 'activeDeadlineSeconds', type: 'int', optional: true },
        4: { name: 'selector', type: 'message', message: LABEL_SELECTOR },
        5: { name: 'manualSelector', type: 'bool' },
        6: { name: 'template', type: 'message', message: { 1: meta, 2: { name: 'spec', type: 'message', message: POD_SPEC } } },
        7: { name: 'backoffLimit', type: 'int', optional: true },
        8: { name: 'ttlSecondsAfterFinished', type: 'int', optional: true },
        9: { name: 'completionMode', type: 'string' },
        10: { name: 'suspend', type: 'bool' },
        14: { name: 'podReplacementPolicy', type: 'string' },
      },
    },
    3: { name: 'status', type: 'ignored' },
  },
  // What `kubectl create serviceaccount` sends: ServiceAccount{metadata=1, secrets=2, imagePullSecrets=3,
  // automountServiceAccountToken=4} (k8s.io/api/core/v1/generated.proto).
  'v1/ServiceAccount': {
    1: meta,
    2: { name: 'secrets', type: 'repeated-message', message: OBJECT_REFERENCE },
    3: { name: 'imagePullSecrets', type: 'repeated-message', message: { 1: { name: 'name', type: 'string' } } },
    4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
  // What `kubectl create role|clusterrole|rolebinding|clusterrolebinding` sends (k8s.io/api/rbac/v1/generated.proto):
  // Role{metadata=1, rules=2}, ClusterRole{…, aggregationRule=3}, the bindings {metadata=1, subjects=2, roleRef=3}.
  'rbac.authorization.k8s.io/v1/Role': { 1: meta, 2: { name: 'rules', type: 'repeated-message', message: POLICY_RULE } },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    1: meta,
    2: { name: 'rules', type: 'repeated-message', message: POLICY_RULE },
    3: {
      name: 'aggregationRule',
      type: 'message',
      message: { 1: { name: 'clusterRoleSelectors', type: 'repeated-message', message: LABEL_SELECTOR } },
    },
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': ROLE_BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ROLE_BINDING,
  // What `kubectl auth whoami` sends: SelfSubjectReview{metadata=1, status=2} (k8s.io/api/authentication/v1).
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: meta, 2: { name: 'status', type: 'ignored' } },
  // DeleteOptions: an eviction's grace period and preconditions are not honoured anyway.
  'policy/v1/Eviction': { 1: meta, 2: { name: 'deleteOptions', type: 'ignored' } },
};

class Reader {
  #pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.#pos >= this.bytes.length;
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.bytes[this.#pos++];
      if (b === undefined) throw malformed();
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
    }
    throw malformed();
  }

  chunk(): Uint8Array {
    const length = Number(this.varint());
    if (this.#pos + length > this.bytes.length) throw malformed();
    const out = this.bytes.subarray(this.#pos, this.#pos + length);
    this.#pos += length;
    return out;
  }

  /** Skips a field; whether it held anything but the zero value (an unset field in Go's encoding). */
  skip(wireType: number): boolean {
    if (wireType === 0) return this.varint() !== 0n;
    if (wireType === 2) return this.chunk().length > 0;
    if (wireType === 1 || wireType === 5) {
      const width = wireType === 1 ? 8 : 4;
      const set = this.bytes.subarray(this.#pos, this.#pos + width).some((b) => b !== 0);
      this.#pos += width;
      return set;
    }
    throw malformed();
  }
}

function unsupported(): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json');
}

function malformed(): ApiError {
  return new ApiError(400, 'BadRequest', 'the protobuf request body is malformed');
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** The message's fields as `(number, wire type, reader)` in order. */
function* fields(bytes: Uint8Array): Generator<{ number: number; wireType: number; reader: Reader }> {
  const reader = new Reader(bytes);
  while (!reader.done) {
    const key = Number(reader.varint());
    yield { number: key >>> 3, wireType: key & 7, reader };
  }
}

function mapEntry(bytes: Uint8Array, valueAsBase64: boolean): [string, string] {
  let key = '';
  let value = '';
  for (const { number, wireType, reader } of fields(bytes)) {
    if (wireType !== 2) reader.skip(wireType);
    else if (number === 1) key = text(reader.chunk());
    else if (number === 2) value = valueAsBase64 ? Buffer.from(reader.chunk()).toString('base64') : text(reader.chunk());
    else reader.skip(wireType);
  }
  return [key, value];
}

/** meta/v1 Time: seconds and nanos since the epoch; the zero time is no time (omitted, as in JSON). */
function time(bytes: Uint8Array): string | undefined {
  let seconds = 0n;
  for (const { number, wireType, reader } of fields(bytes)) {
    if (number === 1 && wireType === 0) seconds = reader.varint();
    else reader.skip(wireType);
  }
  return seconds === 0n ? undefined : new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The message as the JSON the same object has: empty strings, zero numbers and empty maps left out (omitempty). */
function decode(bytes: Uint8Array, message: Message): Json {
  const out: Json = {};
  for (const { number, wireType, reader } of fields(bytes)) {
    const field = message[number];
    if (!field) {
      if (reader.skip(wireType)) throw unsupported();
      continue;
    }
    switch (field.type) {
      case 'string': {
        const v = text(reader.chunk());
        if (v !== '') out[field.name] = v;
        break;
      }
      case 'bytes':
        out[field.name] = Buffer.from(reader.chunk()).toString('base64');
        break;
      case 'int': {
        const v = BigInt.asIntN(64, reader.varint());
        if (v !== 0n || field.optional) out[field.name] = Number(v);
        break;
      }
      case 'bool':
        if (reader.varint() !== 0n) out[field.name] = true;
        break;
      case 'ignored':
        reader.skip(wireType);
        break;
      case 'int-or-string': {
        const v = decode(reader.chunk(), { 1: { name: 'type', type: 'int' }, 2: { name: 'intVal', type: 'int' }, 3: { name: 'strVal', type: 'string' } });
        out[field.name] = v['type'] === 1 ? (v['strVal'] ?? '') : (v['intVal'] ?? 0);
        break;
      }
      case 'time': {
        const v = time(reader.chunk());
        if (v) out[field.name] = v;
        break;
      }
      case 'message':
        out[field.name] = decode(reader.chunk(), field.message);
        break;
      case 'repeated-string':
        out[field.name] = [...((out[field.name] as string[] | undefined) ?? []), text(reader.chunk())];
        break;
      case 'repeated-message':
        out[field.name] = [...((out[field.name] as Json[] | undefined) ?? []), decode(reader.chunk(), field.message)];
        break;
      case 'map-string':
      case 'map-bytes': {
        const [k, v] = mapEntry(reader.chunk(), field.type === 'map-bytes');
        out[field.name] = { ...((out[field.name] as Json | undefined) ?? {}), [k]: v };
        break;
      }
    }
  }
  return out;
}

/** The JSON object a protobuf body holds, with its apiVersion and kind; 415 for a kind the sandbox cannot decode. */
export function decodeProtobufBody(body: Uint8Array): Json {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b)) throw malformed();
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array | undefined;
  for (const { number, wireType, reader } of fields(body.subarray(MAGIC.length))) {
    if (number === 1 && wireType === 2) {
      const typeMeta = decode(reader.chunk(), { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } });
      apiVersion = String(typeMeta['apiVersion'] ?? '');
      kind = String(typeMeta['kind'] ?? '');
    } else if (number === 2 && wireType === 2) raw = reader.chunk();
    else reader.skip(wireType);
  }
  const message = KINDS[`${apiVersion}/${kind}`];
  if (!message || !raw) throw unsupported();
  return { apiVersion, kind, ...decode(raw, message) };
}
