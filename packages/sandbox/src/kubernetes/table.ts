// Server-side printing: the meta.k8s.io Table a client gets when its Accept header asks for `as=Table` (kubectl does
// for every `get`), with the columns and cell rules of the API server's printers, so kubectl shows what it shows there.
// Columns and cells: kubernetes/pkg/printers/internalversion/printers.go (AddHandlers, printNode, printPod, …);
// the Table shape and includeObject: https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables
import { obj, type Json, type KubeObject, type Resource } from './store.js';
import { typed } from './typed.js';

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  format: string;
  description: string;
  /** 0: always shown; 1: shown with `-o wide`. */
  priority: number;
}

/** meta.k8s.io/v1 TableOptions.includeObject: `Metadata` unless the client asks (kubectl asks for `Object`). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** What the Accept header asked for: the Table's API version (v1 or v1beta1), or undefined for the object itself. */
export function tableVersion(accept: string | null): 'v1' | 'v1beta1' | undefined {
  // The first acceptable entry wins, as in apimachinery's negotiation (NegotiateOutputMediaType, in order of the header).
  for (const entry of (accept ?? '').split(',')) {
    const [type, ...params] = entry.split(';').map((s) => s.trim());
    const p = Object.fromEntries(params.map((x) => x.split('=').map((s) => s.trim()) as [string, string]));
    if (p['as'] === 'Table') {
      if ((type === 'application/json' || type === '*/*') && p['g'] === 'meta.k8s.io' && (p['v'] === 'v1' || p['v'] === 'v1beta1')) return p['v'];
      continue;
    }
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === '') return undefined;
  }
  return undefined;
}

export function includeObjectOf(value: string | null): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

const col = (name: string, type: TableColumn['type'], description: string, priority = 0, format = ''): TableColumn => ({
  name,
  type,
  format,
  description,
  priority,
});
const NAME = col('Name', 'string', 'Name must be unique within a namespace.', 0, 'name');
const AGE = col('Age', 'string', 'CreationTimestamp is a timestamp representing the server time when this object was created.');

/**
 * apimachinery/pkg/util/duration.HumanDuration: two significant units at most, coarser as the duration grows.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** printers.go translateTimestampSince: `<unknown>` without a timestamp. */
function age(o: KubeObject, nowMs: number): string {
  const created = o.metadata['creationTimestamp'];
  if (typeof created !== 'string') return '<unknown>';
  return humanDuration(nowMs - Date.parse(created));
}

const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => obj(x) !== undefined) : []);
const str = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

function nodeCells(o: KubeObject, nowMs: number): unknown[] {
  const spec = obj(o['spec']) ?? {};
  const status = obj(o['status']) ?? {};
  // printNode: the Ready condition's status names the state; unschedulable appends SchedulingDisabled.
  const ready = list(status['conditions']).find((c) => c['type'] === 'Ready');
  const states = [ready?.['status'] === 'True' ? 'Ready' : ready?.['status'] === 'False' ? 'NotReady' : 'Unknown'];
  if (spec['unschedulable'] === true) states.push('SchedulingDisabled');
  // findNodeRoles: node-role.kubernetes.io/<role> labels and the older kubernetes.io/role label.
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  const address = (type: string) => str(list(status['addresses']).find((a) => a['type'] === type)?.['address'], '<none>');
  const info = obj(status['nodeInfo']) ?? {};
  return [
    o.metadata.name,
    states.join(','),
    roles.size > 0 ? [...roles].sort().join(',') : '<none>',
    age(o, nowMs),
    str(info['kubeletVersion'], ''),
    address('InternalIP'),
    address('ExternalIP'),
    str(info['osImage'], '<unknown>'),
    str(info['kernelVersion'], '<unknown>'),
    str(info['containerRuntimeVersion'], '<unknown>'),
  ];
}

function podCells(o: KubeObject, nowMs: number): unknown[] {
  const spec = obj(o['spec']) ?? {};
  const status = obj(o['status']) ?? {};
  const statuses = list(status['containerStatuses']);
  // printPod: the phase, overridden by the pod's reason, then by a container's waiting or terminated reason.
  let reason = str(status['reason'], str(status['phase'], 'Pending'));
  let restarts = 0;
  let ready = 0;
  for (const c of statuses) {
    restarts += num(c['restartCount']);
    const state = obj(c['state']) ?? {};
    const waiting = obj(state['waiting']);
    const terminated = obj(state['terminated']);
    if (waiting && typeof waiting['reason'] === 'string' && waiting['reason'] !== '') reason = waiting['reason'];
    else if (terminated)
      reason = str(terminated['reason'], terminated['signal'] ? `Signal:${String(terminated['signal'])}` : `ExitCode:${String(terminated['exitCode'] ?? 0)}`);
    else if (c['ready'] === true && state['running'] !== undefined) ready += 1;
  }
  if (o.metadata['deletionTimestamp'] !== undefined) reason = status['reason'] === 'NodeLost' ? 'Unknown' : 'Terminating';
  const gates = list(spec['readinessGates']);
  const conditions = list(status['conditions']);
  const gatesReady = gates.filter((g) => conditions.some((c) => c['type'] === g['conditionType'] && c['status'] === 'True')).length;
  return [
    o.metadata.name,
    `${ready}/${list(spec['containers']).length}`,
    reason,
    String(restarts),
    age(o, nowMs),
    str(status['podIP'], '<none>'),
    str(spec['nodeName'], '<none>'),
    str(status['nominatedNodeName'], '<none>'),
    gates.length > 0 ? `${gatesReady}/${gates.length}` : '<none>',
  ];
}

/** metav1.FormatLabelSelector: `k=v,k2 in (a,b)`, or `<none>`. */
function selectorString(selector: Json | undefined): string {
  if (!selector) return '<none>';
  const parts = Object.entries(obj(selector['matchLabels']) ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  for (const e of list(selector['matchExpressions'])) {
    const values = Array.isArray(e['values']) ? (e['values'] as unknown[]).map(String) : [];
    const op = String(e['operator'] ?? '');
    if (op === 'Exists') parts.push(String(e['key']));
    else if (op === 'DoesNotExist') parts.push(`!${String(e['key'])}`);
    else parts.push(`${String(e['key'])} ${op === 'NotIn' ? 'notin' : 'in'} (${values.join(',')})`);
  }
  return parts.length > 0 ? parts.join(',') : '<none>';
}

function deploymentCells(o: KubeObject, nowMs: number): unknown[] {
  const spec = obj(o['spec']) ?? {};
  const status = obj(o['status']) ?? {};
  const containers = list(obj(obj(spec['template'])?.['spec'])?.['containers']);
  return [
    o.metadata.name,
    `${num(status['readyReplicas'])}/${typeof spec['replicas'] === 'number' ? spec['replicas'] : 1}`,
    num(status['updatedReplicas']),
    num(status['availableReplicas']),
    age(o, nowMs),
    containers.map((c) => String(c['name'] ?? '')).join(','),
    containers.map((c) => String(c['image'] ?? '')).join(','),
    selectorString(obj(spec['selector'])),
  ];
}

/** printReplicaSet: desired, current and ready replicas, and (wide) the template's containers and the selector. */
function replicaSetCells(o: KubeObject, nowMs: number): unknown[] {
  const spec = obj(o['spec']) ?? {};
  const status = obj(o['status']) ?? {};
  const containers = list(obj(obj(spec['template'])?.['spec'])?.['containers']);
  return [
    o.metadata.name,
    typeof spec['replicas'] === 'number' ? spec['replicas'] : 1,
    num(status['replicas']),
    num(status['readyReplicas']),
    age(o, nowMs),
    containers.map((c) => String(c['name'] ?? '')).join(','),
    containers.map((c) => String(c['image'] ?? '')).join(','),
    selectorString(obj(spec['selector'])),
  ];
}

/** printDaemonSet: the scheduling counts, the template's node selector, and (wide) containers and selector. */
function daemonSetCells(o: KubeObject, nowMs: number): unknown[] {
  const spec = obj(o['spec']) ?? {};
  const status = obj(o['status']) ?? {};
  const podSpec = obj(obj(spec['template'])?.['spec']) ?? {};
  const containers = list(podSpec['containers']);
  const nodeSelector = Object.entries(obj(podSpec['nodeSelector']) ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .sort();
  return [
    o.metadata.name,
    num(status['desiredNumberScheduled']),
    num(status['currentNumberScheduled']),
    num(status['numberReady']),
    num(status['updatedNumberScheduled']),
    num(status['numberAvailable']),
    nodeSelector.length > 0 ? nodeSelector.join(',') : '<none>',
    age(o, nowMs),
    containers.map((c) => String(c['name'] ?? '')).join(','),
    containers.map((c) => String(c['image'] ?? '')).join(','),
    selectorString(obj(spec['selector'])),
  ];
}

/** printPodDisruptionBudget: minAvailable or maxUnavailable (N/A for the one not set), and the disruptions allowed. */
function budgetCells(o: KubeObject, nowMs: number): unknown[] {
  const spec = obj(o['spec']) ?? {};
  const status = obj(o['status']) ?? {};
  const value = (v: unknown) => (v === undefined || v === null ? 'N/A' : String(v));
  return [o.metadata.name, value(spec['minAvailable']), value(spec['maxUnavailable']), num(status['disruptionsAllowed']), age(o, nowMs)];
}

/** printService: the external address depends on the type; a load balancer without ingress is <pending>. */
function serviceCells(o: KubeObject, nowMs: number): unknown[] {
  const spec = obj(o['spec']) ?? {};
  const type = str(spec['type'], 'ClusterIP');
  const externalIPs = Array.isArray(spec['externalIPs']) ? (spec['externalIPs'] as unknown[]).map(String) : [];
  let external = externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
  if (type === 'ExternalName') external = str(spec['externalName'], '<none>');
  if (type === 'LoadBalancer') {
    const ingress = list(obj(obj(o['status'])?.['loadBalancer'])?.['ingress'])
      .map((i) => str(i['ip'], str(i['hostname'], '')))
      .filter((x) => x !== '');
    const all = [...ingress, ...externalIPs];
    external = all.length > 0 ? all.join(',') : '<pending>';
  }
  const ports = list(spec['ports']).map((p) => `${String(p['port'] ?? '')}${p['nodePort'] ? `:${String(p['nodePort'])}` : ''}/${str(p['protocol'], 'TCP')}`);
  const selector = Object.entries(obj(spec['selector']) ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  return [
    o.metadata.name,
    type,
    str(spec['clusterIP'], '<none>'),
    external,
    ports.length > 0 ? ports.join(',') : '<none>',
    age(o, nowMs),
    selector.length > 0 ? selector.join(',') : '<none>',
  ];
}

/** formatEndpoints: `ip:port` for every address and port, the first three, then how many more. */
function endpointsCells(o: KubeObject, nowMs: number): unknown[] {
  const all: string[] = [];
  for (const subset of list(o['subsets'])) {
    const ports = list(subset['ports']);
    for (const address of list(subset['addresses'])) {
      if (ports.length === 0) all.push(String(address['ip'] ?? ''));
      for (const port of ports) all.push(`${String(address['ip'] ?? '')}:${String(port['port'] ?? '')}`);
    }
  }
  const shown = all.slice(0, 3).join(',') + (all.length > 3 ? ` + ${all.length - 3} more...` : '');
  return [o.metadata.name, all.length > 0 ? shown : '<none>', age(o, nowMs)];
}

/** printEvent: when it was last seen, what it is about, and (wide) where it came from and how often. */
function eventCells(o: KubeObject, nowMs: number): unknown[] {
  const involved = obj(o['involvedObject']) ?? {};
  const seen = (field: string) => (typeof o[field] === 'string' ? humanDuration(nowMs - Date.parse(o[field] as string)) : undefined);
  const last = seen('lastTimestamp') ?? seen('eventTime') ?? age(o, nowMs);
  const first = seen('firstTimestamp') ?? seen('eventTime') ?? age(o, nowMs);
  const count = typeof o['count'] === 'number' ? o['count'] : 1;
  const source = obj(o['source']) ?? {};
  return [
    count > 1 ? `${last} (x${count} over ${first})` : last,
    str(o['type'], ''),
    str(o['reason'], ''),
    `${String(involved['kind'] ?? '').toLowerCase()}/${String(involved['name'] ?? '')}`,
    str(involved['fieldPath'], ''),
    [str(source['component'], str(o['reportingComponent'], '')), str(source['host'], '')].filter((x) => x !== '').join(', '),
    str(o['message'], ''),
    first,
    count,
    o.metadata.name,
  ];
}

export interface Printer {
  columns: TableColumn[];
  cells: (o: KubeObject, nowMs: number) => unknown[];
}

const dataCount = (o: KubeObject) => Object.keys(obj(o['data']) ?? {}).length + Object.keys(obj(o['binaryData']) ?? {}).length;

/** The printers registered for the kinds served; any other kind gets the registry's default (Name, Created At). */
const PRINTERS: Partial<Record<string, Printer>> = {
  nodes: {
    columns: [
      NAME,
      col('Status', 'string', 'The status of the node'),
      col('Roles', 'string', 'The roles of the node'),
      AGE,
      col('Version', 'string', 'Kubelet Version reported by the node.'),
      col('Internal-IP', 'string', 'List of addresses reachable to the node. Queried from cloud provider, if available.', 1),
      col('External-IP', 'string', 'List of addresses reachable to the node. Queried from cloud provider, if available.', 1),
      col('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
      col('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
      col('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
    ],
    cells: nodeCells,
  },
  pods: {
    columns: [
      NAME,
      col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'string', 'The aggregate status of the containers in this pod.'),
      col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
      AGE,
      col('IP', 'string', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
      col('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.', 1),
      col('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1),
      col('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
    ],
    cells: podCells,
  },
  deployments: {
    columns: [
      NAME,
      col('Ready', 'string', 'Number of the pod with ready state'),
      col('Up-to-date', 'integer', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
      col('Available', 'integer', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
      AGE,
      col('Containers', 'string', 'Names of each container in the template.', 1),
      col('Images', 'string', 'Images referenced by each container in the template.', 1),
      col(
        'Selector',
        'string',
        'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
        1,
      ),
    ],
    cells: deploymentCells,
  },
  replicasets: {
    columns: [
      NAME,
      col('Desired', 'integer', 'Replicas is the number of desired pods.'),
      col('Current', 'integer', 'Replicas is the most recently observed number of non-terminating pods.'),
      col('Ready', 'integer', 'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.'),
      AGE,
      col('Containers', 'string', 'Names of each container in the template.', 1),
      col('Images', 'string', 'Images referenced by each container in the template.', 1),
      col(
        'Selector',
        'string',
        'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
        1,
      ),
    ],
    cells: replicaSetCells,
  },
  daemonsets: {
    columns: [
      NAME,
      col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).'),
      col('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
      col(
        'Ready',
        'integer',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.',
      ),
      col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
      col(
        'Available',
        'integer',
        'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available ' +
          '(ready for at least spec.minReadySeconds)',
      ),
      col('Node Selector', 'string', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
      AGE,
      col('Containers', 'string', 'Names of each container in the template.', 1),
      col('Images', 'string', 'Images referenced by each container in the template.', 1),
      col('Selector', 'string', 'A label query over pods that are managed by the daemon set.', 1),
    ],
    cells: daemonSetCells,
  },
  controllerrevisions: {
    columns: [
      NAME,
      col('Controller', 'string', 'Controller of the object'),
      col('Revision', 'integer', 'Revision indicates the revision of the state represented by Data.'),
      AGE,
    ],
    // printControllerRevision: the controller as <kind>.<group>/<name>.
    cells: (o, now) => {
      const ref = list(o.metadata['ownerReferences']).find((r) => r['controller'] === true);
      const group = ref
        ? String(ref['apiVersion'] ?? '')
            .split('/')
            .slice(0, -1)
            .join('/')
        : '';
      const controller = ref ? `${String(ref['kind'] ?? '').toLowerCase()}${group ? `.${group}` : ''}/${String(ref['name'] ?? '')}` : '<none>';
      return [o.metadata.name, controller, num(o['revision']), age(o, now)];
    },
  },
  poddisruptionbudgets: {
    columns: [
      NAME,
      col(
        'Min Available',
        'string',
        'The minimum number of pods that must be available simultaneously.  This can be either an integer or a string specifying a percentage, e.g. "28%".',
      ),
      col(
        'Max Unavailable',
        'string',
        'The maximum number of pods that may be unavailable simultaneously.  This can be either an integer or a string specifying a percentage, e.g. "28%".',
      ),
      col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      AGE,
    ],
    cells: budgetCells,
  },
  namespaces: {
    columns: [NAME, col('Status', 'string', 'The status of the namespace'), AGE],
    cells: (o, now) => [o.metadata.name, str(obj(o['status'])?.['phase'], ''), age(o, now)],
  },
  configmaps: {
    columns: [NAME, col('Data', 'integer', 'Data contains the configuration data.'), AGE],
    cells: (o, now) => [o.metadata.name, dataCount(o), age(o, now)],
  },
  secrets: {
    columns: [NAME, col('Type', 'string', 'The type of the secret'), col('Data', 'integer', 'Data contains the secret data.'), AGE],
    cells: (o, now) => [o.metadata.name, str(o['type'], 'Opaque'), dataCount(o), age(o, now)],
  },
  services: {
    columns: [
      NAME,
      col('Type', 'string', 'type determines how the Service is exposed.'),
      col('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
      col('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
      col('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
      AGE,
      col('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', 1),
    ],
    cells: serviceCells,
  },
  endpoints: { columns: [NAME, col('Endpoints', 'string', 'Endpoints is the list of endpoints in the Endpoints object.'), AGE], cells: endpointsCells },
  leases: {
    columns: [NAME, col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), AGE],
    cells: (o, now) => [o.metadata.name, str(obj(o['spec'])?.['holderIdentity'], ''), age(o, now)],
  },
  storageclasses: {
    columns: [
      NAME,
      col('Provisioner', 'string', 'Indicates the type of the provisioner.'),
      col('ReclaimPolicy', 'string', 'Dynamically provisioned PersistentVolumes of this storage class are created with this reclaimPolicy.'),
      col('VolumeBindingMode', 'string', 'VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.'),
      col('AllowVolumeExpansion', 'string', 'AllowVolumeExpansion shows whether the storage class allow volume expand.'),
      AGE,
    ],
    // printStorageClass: a default class's name gets " (default)" (storageutil.IsDefaultAnnotation, beta annotation too).
    cells: (o, now) => {
      const a = (obj(o.metadata['annotations']) ?? {}) as Record<string, string>;
      const isDefault = a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
      return [
        isDefault ? `${o.metadata.name} (default)` : o.metadata.name,
        str(o['provisioner'], ''),
        str(o['reclaimPolicy'], 'Delete'),
        str(o['volumeBindingMode'], 'Immediate'),
        o['allowVolumeExpansion'] === true ? 'true' : 'false',
        age(o, now),
      ];
    },
  },
  persistentvolumeclaims: {
    columns: [
      NAME,
      col('Status', 'string', 'Status represents the current information/status of a persistent volume claim.'),
      col('Volume', 'string', 'VolumeName is the binding reference to the PersistentVolume backing this claim.'),
      col('Capacity', 'string', 'Capacity represents the actual resources of the underlying volume.'),
      col('Access Modes', 'string', 'AccessModes contains the actual access modes the volume backing the PVC has.'),
      col('StorageClass', 'string', 'StorageClassName is the name of the StorageClass required by the claim.'),
      col('VolumeAttributesClass', 'string', 'VolumeAttributesClassName is the name of the VolumeAttributesClass the claim uses.'),
      AGE,
      col('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', 1),
    ],
    cells: (o, now) => {
      const spec = obj(o['spec']) ?? {};
      const status = obj(o['status']) ?? {};
      const bound = status['phase'] === 'Bound';
      return [
        o.metadata.name,
        str(status['phase'], 'Pending'),
        str(spec['volumeName'], ''),
        bound ? str(obj(status['capacity'])?.['storage'], '') : '',
        bound ? accessModes(status['accessModes']) : '',
        str(spec['storageClassName'], '<unset>'),
        str(spec['volumeAttributesClassName'], '<unset>'),
        age(o, now),
        str(spec['volumeMode'], 'Filesystem'),
      ];
    },
  },
  persistentvolumes: {
    columns: [
      NAME,
      col('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity."),
      col('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted.'),
      col('Reclaim Policy', 'string', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
      col('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
      col('Claim', 'string', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
      col('StorageClass', 'string', 'storageClassName is the name of StorageClass to which this persistent volume belongs.'),
      col('VolumeAttributesClass', 'string', 'Name of VolumeAttributesClass to which this persistent volume belongs.'),
      col('Reason', 'string', 'reason is a brief CamelCase string that describes any failure.'),
      AGE,
      col('VolumeMode', 'string', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', 1),
    ],
    cells: (o, now) => {
      const spec = obj(o['spec']) ?? {};
      const status = obj(o['status']) ?? {};
      const claim = obj(spec['claimRef']);
      return [
        o.metadata.name,
        str(obj(spec['capacity'])?.['storage'], ''),
        accessModes(spec['accessModes']),
        str(spec['persistentVolumeReclaimPolicy'], 'Delete'),
        str(status['phase'], 'Available'),
        claim ? `${String(claim['namespace'] ?? '')}/${String(claim['name'] ?? '')}` : '',
        str(spec['storageClassName'], ''),
        str(spec['volumeAttributesClassName'], '<unset>'),
        str(status['reason'], ''),
        age(o, now),
        str(spec['volumeMode'], 'Filesystem'),
      ];
    },
  },
  events: {
    columns: [
      col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
      col('Type', 'string', 'Type of this event (Normal, Warning).'),
      col(
        'Reason',
        'string',
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      ),
      col('Object', 'string', 'The object that this event is about.'),
      col('Subobject', 'string', 'The subobject that this event is about.', 1),
      col('Source', 'string', 'The component reporting this event.', 1),
      col('Message', 'string', 'A human-readable description of the status of this operation.'),
      col('First Seen', 'string', 'The time at which the event was first recorded.', 1),
      col('Count', 'string', 'The number of times this event has occurred.', 1),
      col('Name', 'string', 'Name must be unique within a namespace.', 1, 'name'),
    ],
    cells: eventCells,
  },
};

/** printers.go GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order. */
function accessModes(v: unknown): string {
  const modes = Array.isArray(v) ? v.map(String) : [];
  const short: Array<[string, string]> = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short
    .filter(([m]) => modes.includes(m))
    .map(([, s]) => s)
    .join(',');
}

/** A CRD version's additionalPrinterColumns (apiextensions-apiserver pkg/registry/customresource/tableconvertor). */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

/**
 * A column's JSONPath: dotted fields, and the one filter form CRDs commonly use (`.status.conditions[?(@.type=='X')].status`);
 * anything else prints empty.
 */
function jsonPathValue(o: Json, path: string): unknown {
  let current: unknown[] = [o];
  const steps = path.replace(/^\./, '').match(/[^.[\]]+|\[\?\(@\.[^)]*\)\]/g) ?? [];
  for (const step of steps) {
    const filter = /^\[\?\(@\.([\w-]+)\s*==\s*['"]([^'"]*)['"]\)\]$/.exec(step);
    if (filter) current = current.flatMap((c) => (Array.isArray(c) ? c : [])).filter((x) => obj(x)?.[filter[1] ?? ''] === filter[2]);
    else current = current.map((c) => obj(c)?.[step]).filter((x) => x !== undefined);
  }
  return current.length === 1 ? current[0] : current.length === 0 ? undefined : current;
}

/** The printer of a custom resource: Name, then the CRD's columns (Age when it lists none, as v1 CRDs default it). */
export function customPrinter(columns: PrinterColumn[]): Printer {
  const cols = columns.length > 0 ? columns : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  return {
    columns: [
      NAME,
      ...cols.map((c) =>
        col(c.name, (c.type === 'integer' ? 'integer' : c.type === 'date' ? 'date' : 'string') as TableColumn['type'], c.description ?? '', c.priority ?? 0),
      ),
    ],
    cells: (o, now) => [
      o.metadata.name,
      ...cols.map((c) => {
        const v = jsonPathValue(o, c.jsonPath);
        if (c.type === 'date') return typeof v === 'string' ? humanDuration(now - Date.parse(v)) : '<unknown>';
        if (v === undefined) return null;
        return typeof v === 'object' ? JSON.stringify(v) : v;
      }),
    ],
  };
}

/** apiserver/pkg/registry/rest/table.go defaultTableConvertor: for kinds with no printer. */
const DEFAULT_PRINTER: Printer = {
  columns: [NAME, col('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created.')],
  cells: (o) => [o.metadata.name, o.metadata['creationTimestamp'] ?? null],
};

function rowObject(resource: Resource, o: KubeObject, include: IncludeObject, version: string): Json | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return typed(resource, o);
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: o.metadata };
}

export interface TableRequest {
  resource: Resource;
  objects: KubeObject[];
  nowMs: number;
  version: 'v1' | 'v1beta1';
  include: IncludeObject;
  /** The list's metadata (resourceVersion, continue); a single object's Table carries its resourceVersion. */
  listMeta: Json;
  /** A watch event's Table after the first: the server leaves the column definitions out. */
  withoutColumns?: boolean;
  /** A custom resource's printer columns (from its CRD). */
  customColumns?: PrinterColumn[];
}

export function toTable(request: TableRequest): Json {
  const printer = request.customColumns ? customPrinter(request.customColumns) : (PRINTERS[request.resource] ?? DEFAULT_PRINTER);
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${request.version}`,
    metadata: request.listMeta,
    columnDefinitions: request.withoutColumns ? null : printer.columns,
    rows: request.objects.map((o) => {
      const object = rowObject(request.resource, o, request.include, request.version);
      return { cells: printer.cells(o, request.nowMs), ...(object ? { object } : {}) };
    }),
  };
}
