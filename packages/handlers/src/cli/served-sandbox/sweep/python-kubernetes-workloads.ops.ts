// python3-kubernetes (Debian's official client) driving workloads on a served cluster: the controllers' objects it
// reads (ReplicaSets, DaemonSets, Deployment status), evictions a PodDisruptionBudget refuses with 429, and deletes
// that propagate by V1DeleteOptions. The operations share one interpreter, in order, in their own namespace.
import type { PythonOp } from './ops.js';
import { PYTHON_KUBERNETES_PRELUDE } from './python-kubernetes.ops.js';

export const PYTHON_KUBERNETES_WORKLOADS_PRELUDE = `${PYTHON_KUBERNETES_PRELUDE}
import time
policy = client.PolicyV1Api()
NS = 'sweep-py-wl'

def wait_for(what, condition, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise CheckFailed('timed out waiting for ' + what)

def deployment(name, image, replicas):
    labels = {'app': name}
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            replicas=replicas,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name=name, image=image)]))))

def available(name, replicas):
    def done():
        d = apps.read_namespaced_deployment_status(name, NS)
        s = d.status
        counts = (s.updated_replicas, s.available_replicas, s.replicas or 0)
        return (s.observed_generation or 0) >= d.metadata.generation and counts == (replicas, replicas, replicas) and d
    return wait_for(name + ' available', done)

def revision(o):
    return (o.metadata.annotations or {}).get('deployment.kubernetes.io/revision')
`;

const op = (operation: string, expect: string, code: string): PythonOp => ({ api: 'Kubernetes', operation, expect, outcome: 'right', code });

export const PYTHON_KUBERNETES_WORKLOADS_OPS: PythonOp[] = [
  op(
    'list_pod_for_all_namespaces',
    "every pod, each owner reference with its owner's uid",
    `
pods = core.list_pod_for_all_namespaces().items
check(len(pods) > 0, 'no pods')
check(all(r.uid for p in pods for r in (p.metadata.owner_references or [])), 'an owner reference without a uid')
`,
  ),
  op(
    'list_namespaced_replica_set',
    "coredns's ReplicaSet: revision 1, owned by the Deployment's uid",
    `
dep = apps.read_namespaced_deployment('coredns', 'kube-system')
rss = [r for r in apps.list_namespaced_replica_set('kube-system', label_selector='k8s-app=kube-dns').items]
check(len(rss) == 1, str([r.metadata.name for r in rss]))
rs = rss[0]
check(rs.metadata.owner_references[0].uid == dep.metadata.uid and rs.metadata.owner_references[0].kind == 'Deployment', str(rs.metadata.owner_references))
check(revision(rs) == '1', str(rs.metadata.annotations))
check(rs.metadata.name == 'coredns-' + rs.metadata.labels['pod-template-hash'], rs.metadata.name)
check(rs.status.ready_replicas == 2 and rs.spec.replicas == 2, str(rs.status))
`,
  ),
  op(
    'read_namespaced_deployment_status',
    'observedGeneration, counts, Available and Progressing',
    `
d = apps.read_namespaced_deployment_status('coredns', 'kube-system')
s = d.status
check(s.observed_generation == d.metadata.generation, 'observedGeneration')
check(s.replicas == 2 and s.updated_replicas == 2 and s.ready_replicas == 2 and s.available_replicas == 2, str(s))
by = {c.type: c for c in s.conditions}
check(by['Available'].status == 'True' and by['Available'].reason == 'MinimumReplicasAvailable', str(by['Available']))
check(by['Progressing'].reason == 'NewReplicaSetAvailable' and by['Progressing'].message.endswith('has successfully progressed.'), str(by['Progressing']))
`,
  ),
  op(
    'list_daemon_set_for_all_namespaces',
    'kube-system/cilium, scheduled on every node',
    `
nodes = len(core.list_node().items)
ds = {d.metadata.name: d for d in apps.list_daemon_set_for_all_namespaces().items}
check('cilium' in ds, str(list(ds)))
s = ds['cilium'].status
check(s.desired_number_scheduled == nodes and s.current_number_scheduled == nodes and s.number_ready == nodes, str(s))
`,
  ),
  op(
    'read_namespaced_daemon_set',
    'the DaemonSet the cilium pods name, by uid',
    `
ds = apps.read_namespaced_daemon_set('cilium', 'kube-system')
agents = core.list_namespaced_pod('kube-system', label_selector='k8s-app=cilium').items
check(len(agents) == len(core.list_node().items), str(len(agents)))
check(all(p.metadata.owner_references[0].uid == ds.metadata.uid for p in agents), 'an agent not owned by the DaemonSet')
`,
  ),
  op(
    'read_node',
    "a podCIDR per node, and each pod's IP in its node's",
    `
import ipaddress
cidrs = {n.metadata.name: n.spec.pod_cidr for n in core.list_node().items}
check(all(c for c in cidrs.values()), str(cidrs))
check(len(set(cidrs.values())) == len(cidrs), 'two nodes share a podCIDR')
for p in core.list_namespaced_pod('kube-system', label_selector='k8s-app=kube-dns').items:
    check(ipaddress.ip_address(p.status.pod_ip) in ipaddress.ip_network(cidrs[p.spec.node_name]), p.status.pod_ip)
`,
  ),
  op(
    'create_namespace',
    'the sweep namespace',
    `
core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
`,
  ),
  op(
    'create_namespaced_deployment',
    'created with the defaults the API server sets, then available',
    `
d = apps.create_namespaced_deployment(NS, deployment('pyweb', 'nginx:1.25', 3))
check(d.spec.strategy.type == 'RollingUpdate' and d.spec.revision_history_limit == 10 and d.spec.progress_deadline_seconds == 600, str(d.spec.strategy))
available('pyweb', 3)
`,
  ),
  op(
    'patch_namespaced_deployment_scale',
    'five replicas, in the same ReplicaSet',
    `
apps.patch_namespaced_deployment_scale('pyweb', NS, {'spec': {'replicas': 5}})
available('pyweb', 5)
rss = apps.list_namespaced_replica_set(NS, label_selector='app=pyweb').items
check(len(rss) == 1 and rss[0].spec.replicas == 5, str([(r.metadata.name, r.spec.replicas) for r in rss]))
`,
  ),
  op(
    'read_namespaced_replica_set_scale',
    "the ReplicaSet's Scale",
    `
rs = apps.list_namespaced_replica_set(NS, label_selector='app=pyweb').items[0]
scale = apps.read_namespaced_replica_set_scale(rs.metadata.name, NS)
check(scale.spec.replicas == 5 and scale.status.replicas == 5, str(scale))
`,
  ),
  op(
    'patch_namespaced_deployment',
    'a new image: a second ReplicaSet at revision 2, the first scaled to zero',
    `
apps.patch_namespaced_deployment('pyweb', NS, {'spec': {'template': {'spec': {'containers': [{'name': 'pyweb', 'image': 'nginx:1.26'}]}}}})
d = available('pyweb', 5)
check(revision(d) == '2', str(d.metadata.annotations))
rss = {revision(r): r for r in apps.list_namespaced_replica_set(NS, label_selector='app=pyweb').items}
check(set(rss) == {'1', '2'}, str(list(rss)))
check(rss['1'].spec.replicas == 0 and rss['2'].spec.replicas == 5, 'replicas not moved')
`,
  ),
  op(
    'read_namespaced_replica_set_status',
    'the new ReplicaSet: five ready, observedGeneration',
    `
rs = [r for r in apps.list_namespaced_replica_set(NS, label_selector='app=pyweb').items if revision(r) == '2'][0]
s = apps.read_namespaced_replica_set_status(rs.metadata.name, NS).status
check(s.replicas == 5 and s.ready_replicas == 5 and s.available_replicas == 5 and s.observed_generation == rs.metadata.generation, str(s))
`,
  ),
  op(
    'patch_namespaced_deployment_status',
    'the status written, the spec and generation untouched; the controller then writes its own view back',
    `
before = apps.read_namespaced_deployment('pyweb', NS)
written = apps.patch_namespaced_deployment_status('pyweb', NS, {'spec': {'replicas': 1}, 'status': {'availableReplicas': 1}})
check(written.status.available_replicas == 1, str(written.status))
check(written.spec.replicas == before.spec.replicas and written.metadata.generation == before.metadata.generation, str(written.spec.replicas))
wait_for('the controller to count again', lambda: apps.read_namespaced_deployment_status('pyweb', NS).status.available_replicas == 5)
`,
  ),
  op(
    'create_namespaced_pod_disruption_budget',
    'minAvailable 5 of 5: status says no disruption allowed',
    `
policy.create_namespaced_pod_disruption_budget(NS, client.V1PodDisruptionBudget(
    metadata=client.V1ObjectMeta(name='pyweb'),
    spec=client.V1PodDisruptionBudgetSpec(min_available=5, selector=client.V1LabelSelector(match_labels={'app': 'pyweb'}))))
s = wait_for('the budget status', lambda: (lambda b: b.status.observed_generation and b.status)(policy.read_namespaced_pod_disruption_budget('pyweb', NS)))
check(s.current_healthy == 5 and s.desired_healthy == 5 and s.expected_pods == 5 and s.disruptions_allowed == 0, str(s))
check(s.conditions[0].type == 'DisruptionAllowed' and s.conditions[0].status == 'False' and s.conditions[0].reason == 'InsufficientPods', str(s.conditions))
`,
  ),
  op(
    'create_namespaced_pod_eviction (budget exhausted)',
    "429 TooManyRequests: Cannot evict pod as it would violate the pod's disruption budget.",
    `
import json
victim = core.list_namespaced_pod(NS, label_selector='app=pyweb').items[0].metadata.name
try:
    core.create_namespaced_pod_eviction(victim, NS, client.V1Eviction(metadata=client.V1ObjectMeta(name=victim, namespace=NS)))
    check(False, 'evicted')
except ApiException as e:
    check(e.status == 429, str(e.status))
    body = json.loads(e.body)
    check(body['reason'] == 'TooManyRequests' and body['message'] == "Cannot evict pod as it would violate the pod's disruption budget.", e.body)
    check(body['details']['causes'][0]['reason'] == 'DisruptionBudget', e.body)
core.read_namespaced_pod(victim, NS)
`,
  ),
  op(
    'patch_namespaced_pod_disruption_budget',
    'minAvailable 4: one disruption allowed',
    `
policy.patch_namespaced_pod_disruption_budget('pyweb', NS, {'spec': {'minAvailable': 4}})
s = wait_for('the budget status', lambda: (lambda b: b.status.disruptions_allowed == 1 and b.status)(policy.read_namespaced_pod_disruption_budget('pyweb', NS)))
check(s.desired_healthy == 4 and s.current_healthy == 5, str(s))
`,
  ),
  op(
    'create_namespaced_pod_eviction (budget allows)',
    'evicted; the ReplicaSet replaces the pod',
    `
victim = core.list_namespaced_pod(NS, label_selector='app=pyweb').items[0].metadata.name
core.create_namespaced_pod_eviction(victim, NS, client.V1Eviction(metadata=client.V1ObjectMeta(name=victim, namespace=NS)))
names = [p.metadata.name for p in core.list_namespaced_pod(NS, label_selector='app=pyweb').items]
check(victim not in names, 'the evicted pod is still there')
available('pyweb', 5)
`,
  ),
  op(
    'list_namespaced_pod_disruption_budget',
    'the budget with its counts',
    `
b = policy.list_namespaced_pod_disruption_budget(NS).items
check(len(b) == 1 and b[0].status.expected_pods == 5, str([x.status for x in b]))
`,
  ),
  op(
    'create_namespaced_config_map (owned)',
    'a ConfigMap whose owner reference names the Deployment by uid',
    `
owner = apps.read_namespaced_deployment('pyweb', NS)
core.create_namespaced_config_map(NS, client.V1ConfigMap(
    metadata=client.V1ObjectMeta(name='pyweb-config', owner_references=[
        client.V1OwnerReference(api_version='apps/v1', kind='Deployment', name='pyweb', uid=owner.metadata.uid)]),
    data={'k': 'v'}))
`,
  ),
  op(
    'create_namespaced_config_map (owner without uid)',
    '422: an owner reference must name its uid',
    `
try:
    ref = {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'name': 'pyweb'}
    core.create_namespaced_config_map(NS, {'metadata': {'name': 'no-uid', 'ownerReferences': [ref]}})
    check(False, 'accepted')
except ApiException as e:
    check(e.status == 422 and 'uid must not be empty' in e.body, str(e.status) + e.body)
`,
  ),
  op(
    'delete_namespaced_deployment (Orphan)',
    'the Deployment goes; its ReplicaSets and the ConfigMap stay, without references to it',
    `
apps.delete_namespaced_deployment('pyweb', NS, body=client.V1DeleteOptions(propagation_policy='Orphan'))
rss = apps.list_namespaced_replica_set(NS, label_selector='app=pyweb').items
check(len(rss) == 2 and all(not r.metadata.owner_references for r in rss), str([r.metadata.owner_references for r in rss]))
cm = core.read_namespaced_config_map('pyweb-config', NS)
check(not cm.metadata.owner_references, str(cm.metadata.owner_references))
check(len(core.list_namespaced_pod(NS, label_selector='app=pyweb').items) == 5, 'pods gone')
`,
  ),
  op(
    'delete_namespaced_replica_set (Foreground)',
    'answered while it waits for its pods; then it and its pods are gone',
    `
rs = [r for r in apps.list_namespaced_replica_set(NS, label_selector='app=pyweb').items if r.spec.replicas == 5][0]
apps.delete_namespaced_replica_set(rs.metadata.name, NS, body=client.V1DeleteOptions(propagation_policy='Foreground'))
def gone():
    try:
        apps.read_namespaced_replica_set(rs.metadata.name, NS)
        return False
    except ApiException as e:
        return e.status == 404
wait_for('the ReplicaSet to go', gone)
check(core.list_namespaced_pod(NS, label_selector='app=pyweb').items == [], 'pods left')
`,
  ),
  op(
    'delete_namespaced_replica_set (bad propagation)',
    '422: an unsupported propagationPolicy',
    `
rs = apps.list_namespaced_replica_set(NS, label_selector='app=pyweb').items[0]
try:
    apps.delete_namespaced_replica_set(rs.metadata.name, NS, body=client.V1DeleteOptions(propagation_policy='Sideways'))
    check(False, 'accepted')
except ApiException as e:
    check(e.status == 422 and 'Unsupported value: "Sideways"' in json.loads(e.body)['message'], str(e.status) + e.body)
`,
  ),
  op(
    'delete_namespaced_deployment (Background)',
    'the default: its ReplicaSet, pods and owned ConfigMap are collected',
    `
apps.create_namespaced_deployment(NS, deployment('pyapi', 'nginx:1.25', 2))
d = available('pyapi', 2)
core.create_namespaced_config_map(NS, client.V1ConfigMap(
    metadata=client.V1ObjectMeta(name='pyapi-config', owner_references=[
        client.V1OwnerReference(api_version='apps/v1', kind='Deployment', name='pyapi', uid=d.metadata.uid)])))
apps.delete_namespaced_deployment('pyapi', NS)
wait_for('the dependents to go', lambda: not apps.list_namespaced_replica_set(NS, label_selector='app=pyapi').items
         and not core.list_namespaced_pod(NS, label_selector='app=pyapi').items)
try:
    core.read_namespaced_config_map('pyapi-config', NS)
    check(False, 'the owned ConfigMap is still there')
except ApiException as e:
    check(e.status == 404, str(e.status))
`,
  ),
  op(
    'patch_namespaced_deployment (paused)',
    'Progressing Unknown DeploymentPaused, and no new ReplicaSet for a new template',
    `
apps.create_namespaced_deployment(NS, deployment('pypause', 'nginx:1.25', 1))
available('pypause', 1)
apps.patch_namespaced_deployment('pypause', NS, {'spec': {'paused': True}})
apps.patch_namespaced_deployment('pypause', NS, {'spec': {'template': {'spec': {'containers': [{'name': 'pypause', 'image': 'nginx:1.27'}]}}}})
d = apps.read_namespaced_deployment_status('pypause', NS)
by = {c.type: c for c in d.status.conditions}
check(by['Progressing'].status == 'Unknown' and by['Progressing'].reason == 'DeploymentPaused', str(by['Progressing']))
check(len(apps.list_namespaced_replica_set(NS, label_selector='app=pypause').items) == 1, 'a new ReplicaSet while paused')
`,
  ),
  op(
    'create_namespaced_daemon_set',
    'answered with zero counts, then one pod per untainted node',
    `
labels = {'app': 'pyagent'}
ds = apps.create_namespaced_daemon_set(NS, client.V1DaemonSet(
    metadata=client.V1ObjectMeta(name='pyagent'),
    spec=client.V1DaemonSetSpec(
        selector=client.V1LabelSelector(match_labels=labels),
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(labels=labels),
            spec=client.V1PodSpec(containers=[client.V1Container(name='agent', image='busybox')])))))
check(ds.status.desired_number_scheduled == 0 and ds.status.number_ready == 0, str(ds.status))
untainted = [n.metadata.name for n in core.list_node().items if not any(t.effect in ('NoSchedule', 'NoExecute') for t in (n.spec.taints or []))]
def agents_ready():
    d = apps.read_namespaced_daemon_set_status('pyagent', NS)
    return d.status.number_ready == len(untainted) and d.status
s = wait_for('the agents to be ready', agents_ready)
check(s.desired_number_scheduled == len(untainted) and s.current_number_scheduled == len(untainted), str(s))
nodes = sorted(p.spec.node_name for p in core.list_namespaced_pod(NS, label_selector='app=pyagent').items)
check(nodes == sorted(untainted), str(nodes))
`,
  ),
  op(
    'delete_namespaced_daemon_set',
    'its pods collected with it',
    `
apps.delete_namespaced_daemon_set('pyagent', NS)
wait_for('the agents to go', lambda: not core.list_namespaced_pod(NS, label_selector='app=pyagent').items)
`,
  ),
  op(
    'create_namespaced_replica_set',
    'a ReplicaSet of its own makes its pods, which name it by uid',
    `
labels = {'app': 'pyrs'}
rs = apps.create_namespaced_replica_set(NS, client.V1ReplicaSet(
    metadata=client.V1ObjectMeta(name='pyrs'),
    spec=client.V1ReplicaSetSpec(replicas=2, selector=client.V1LabelSelector(match_labels=labels),
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(labels=labels),
            spec=client.V1PodSpec(containers=[client.V1Container(name='c', image='nginx')])))))
check(rs.status.replicas == 0, str(rs.status))
wait_for('two ready pods', lambda: apps.read_namespaced_replica_set_status('pyrs', NS).status.ready_replicas == 2)
pods = core.list_namespaced_pod(NS, label_selector='app=pyrs').items
check(len(pods) == 2 and all(p.metadata.owner_references[0].uid == rs.metadata.uid for p in pods), str([p.metadata.owner_references for p in pods]))
check(all(p.metadata.generate_name == 'pyrs-' for p in pods), 'generateName')
apps.delete_namespaced_replica_set('pyrs', NS)
wait_for('the pods to go', lambda: not core.list_namespaced_pod(NS, label_selector='app=pyrs').items)
`,
  ),
  op(
    'BatchV1Api.create_namespaced_job',
    'its pod runs to completion: Complete, succeeded 1, the pod Succeeded with exit code 0',
    `
batch = client.BatchV1Api()
batch.create_namespaced_job(NS, client.V1Job(
    metadata=client.V1ObjectMeta(name='pyjob'),
    spec=client.V1JobSpec(template=client.V1PodTemplateSpec(
        spec=client.V1PodSpec(restart_policy='Never', containers=[client.V1Container(name='c', image='busybox:1.37', command=['true'])])))))
job = wait_for('the Job to complete', lambda: (lambda j: j.status.succeeded == 1 and j)(batch.read_namespaced_job_status('pyjob', NS)))
check(any(c.type == 'Complete' and c.status == 'True' for c in job.status.conditions), str(job.status.conditions))
check(job.spec.completions == 1 and job.spec.backoff_limit == 6, str(job.spec))
pod = core.list_namespaced_pod(NS, label_selector='batch.kubernetes.io/job-name=pyjob').items[0]
check(pod.status.phase == 'Succeeded' and pod.status.container_statuses[0].state.terminated.exit_code == 0, str(pod.status))
`,
  ),
  op(
    'BatchV1Api.create_namespaced_job (no restartPolicy)',
    'refused 422: the defaults give the template Always, which a Job may not have',
    `
try:
    client.BatchV1Api().create_namespaced_job(NS, client.V1Job(
        metadata=client.V1ObjectMeta(name='always'),
        spec=client.V1JobSpec(template=client.V1PodTemplateSpec(
            spec=client.V1PodSpec(containers=[client.V1Container(name='c', image='busybox:1.37')])))))
    check(False, 'created')
except ApiException as e:
    check(e.status == 422 and 'spec.template.spec.restartPolicy: Unsupported value' in e.body and 'OnFailure' in e.body, e.body)
`,
  ),
  op(
    'delete_namespaced_pod',
    'answers the Pod, marked for its graceful deletion, as the pod registry does',
    `
core.create_namespaced_pod(NS, client.V1Pod(metadata=client.V1ObjectMeta(name='gone'),
    spec=client.V1PodSpec(containers=[client.V1Container(name='c', image='nginx:1.28')])))
wait_for('the pod to run', lambda: core.read_namespaced_pod('gone', NS).status.phase == 'Running')
deleted = core.delete_namespaced_pod('gone', NS)
check(deleted.kind == 'Pod' and deleted.metadata.deletion_timestamp is not None and deleted.metadata.deletion_grace_period_seconds == 30, str(deleted.metadata))
`,
  ),
  op(
    'delete_namespace',
    'the sweep namespace goes',
    `
core.delete_namespace(NS)
`,
  ),
];
