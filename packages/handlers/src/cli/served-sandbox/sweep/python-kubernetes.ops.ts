// python3-kubernetes (Debian's, the official client generated from Kubernetes' OpenAPI) against a served cluster.
// The prelude loads the served kubeconfig (TLS verified) and makes the API objects the operations use.
import type { PythonOp } from './ops.js';

export const PYTHON_KUBERNETES_PRELUDE = `
import os
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
import yaml
# The served kubeconfig keeps TLS verification on the cluster's real name with tls-server-name, which this client
# (22.6) does not read: it is told the name to check instead, as its users do.
kubeconfig = yaml.safe_load(open(os.environ['KUBECONFIG']))
configuration = client.Configuration()
config.load_kube_config(config_file=os.environ['KUBECONFIG'], client_configuration=configuration)
configuration.assert_hostname = kubeconfig['clusters'][0]['cluster']['tls-server-name']
client.Configuration.set_default(configuration)
core = client.CoreV1Api()
apps = client.AppsV1Api()
version = client.VersionApi()
coordination = client.CoordinationV1Api()
NS = 'sweep-py'
def deployment_body(name, **container):
    return {
        'apiVersion': 'apps/v1',
        'kind': 'Deployment',
        'metadata': {'name': name, 'labels': {'sweep': 'py'}},
        'spec': {
            'replicas': 1,
            'selector': {'matchLabels': {'app': name}},
            'template': {'metadata': {'labels': {'app': name}}, 'spec': {'containers': [dict({'name': 'web', 'image': 'nginx:1.27'}, **container)]}},
        },
    }
def status_of(e):
    return e.status if isinstance(e, ApiException) else None
`;

const op = (operation: string, expect: string, code: string): PythonOp => ({ api: 'Kubernetes', operation, expect, outcome: 'right', code });
const refused = (operation: string, expect: string, refusal: RegExp, code: string): PythonOp => ({
  api: 'Kubernetes',
  operation,
  expect,
  outcome: 'refused',
  refusal,
  code,
});

export const PYTHON_KUBERNETES_OPS: PythonOp[] = [
  op(
    'list_node',
    'every node of the cluster, Ready',
    `
nodes = core.list_node().items
check(len(nodes) > 0, 'no nodes')
check(all(any(c.type == 'Ready' and c.status == 'True' for c in n.status.conditions) for n in nodes), 'a node not Ready')
`,
  ),
  op(
    'list_namespace',
    'default, kube-system, kube-public, kube-node-lease',
    `
names = {n.metadata.name for n in core.list_namespace().items}
check({'default', 'kube-system', 'kube-public', 'kube-node-lease'} <= names, str(names))
`,
  ),
  op(
    'create_namespaced_config_map',
    'created, with a uid and a resourceVersion',
    `
cm = core.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='sweep'), data={'a': '1'}))
check(cm.metadata.uid and cm.metadata.resource_version, str(cm.metadata))
`,
  ),
  op(
    'read_namespaced_config_map',
    'what was created',
    `
check(core.read_namespaced_config_map('sweep', 'default').data == {'a': '1'}, 'data')
`,
  ),
  op(
    'patch_namespaced_config_map',
    'a strategic merge patch merges the data',
    `
cm = core.patch_namespaced_config_map('sweep', 'default', {'data': {'b': '2'}})
check(cm.data == {'a': '1', 'b': '2'}, str(cm.data))
`,
  ),
  op(
    'delete_namespaced_config_map',
    'gone: a read then answers 404',
    `
core.delete_namespaced_config_map('sweep', 'default')
try:
    core.read_namespaced_config_map('sweep', 'default')
    check(False, 'still there')
except ApiException as e:
    check(e.status == 404, str(e.status))
`,
  ),
  op(
    'VersionApi.get_code',
    'every field of version.Info: git_version, build_date, go_version, platform',
    `
v = version.get_code()
check(v.git_version.startswith('v1.') and v.major == '1', v.git_version)
check(v.build_date and v.go_version.startswith('go') and v.compiler == 'gc' and v.platform == 'linux/amd64', str(v))
check(len(v.git_commit) == 40 and v.git_tree_state == 'clean', str(v))
`,
  ),
  op(
    'get_api_versions (core, apis)',
    'v1 in the core group; apps among the groups',
    `
check('v1' in client.CoreApi().get_api_versions().versions, 'core v1')
check('apps' in {g.name for g in client.ApisApi().get_api_versions().groups}, 'apps')
`,
  ),
  op(
    'AppsV1Api.get_api_resources',
    'deployments among the resources of apps/v1',
    `
check('deployments' in {r.name for r in apps.get_api_resources().resources}, 'deployments')
`,
  ),
  op(
    'create_namespace',
    'the namespace, Active',
    `
ns = core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS, labels={'sweep': 'py'})))
check(ns.status.phase == 'Active', str(ns.status))
`,
  ),
  op(
    'read_namespace / patch_namespace',
    'a label added by a patch is read back',
    `
core.patch_namespace(NS, {'metadata': {'labels': {'team': 'a'}}})
check(core.read_namespace(NS).metadata.labels.get('team') == 'a', 'label')
`,
  ),
  op(
    'create_namespaced_deployment (models)',
    'created from the model objects, with a uid and generation 1',
    `
d = apps.create_namespaced_deployment(NS, client.V1Deployment(
    metadata=client.V1ObjectMeta(name='web', labels={'sweep': 'py'}),
    spec=client.V1DeploymentSpec(
        replicas=1,
        selector=client.V1LabelSelector(match_labels={'app': 'web'}),
        template=client.V1PodTemplateSpec(
            metadata=client.V1ObjectMeta(labels={'app': 'web'}),
            spec=client.V1PodSpec(containers=[client.V1Container(name='web', image='nginx:1.27', ports=[client.V1ContainerPort(container_port=80)])])))))
check(d.metadata.uid and d.metadata.generation == 1, str(d.metadata))
`,
  ),
  op(
    'read_namespaced_deployment',
    'the container as created',
    `
d = apps.read_namespaced_deployment('web', NS)
check(d.spec.template.spec.containers[0].image == 'nginx:1.27', str(d.spec.template.spec.containers[0]))
`,
  ),
  op(
    'list_namespaced_deployment (label_selector)',
    'only the labelled deployment',
    `
check([d.metadata.name for d in apps.list_namespaced_deployment(NS, label_selector='sweep=py').items] == ['web'], 'selected')
check(apps.list_namespaced_deployment(NS, label_selector='sweep=other').items == [], 'none')
`,
  ),
  op(
    'patch_namespaced_deployment',
    'a strategic merge patch changes the replicas and bumps the generation',
    `
d = apps.patch_namespaced_deployment('web', NS, {'spec': {'replicas': 2}})
check(d.spec.replicas == 2 and d.metadata.generation == 2, str(d.metadata.generation))
`,
  ),
  op(
    'replace_namespaced_deployment',
    'the read object, changed and put back whole (read again on a 409, as clients retry on conflict)',
    `
# As client-go's RetryOnConflict: the deployment controller may write the status between the read and the write.
for attempt in range(5):
    d = apps.read_namespaced_deployment('web', NS)
    d.metadata.annotations = {'sweep/replaced': 'yes'}
    try:
        r = apps.replace_namespaced_deployment('web', NS, d)
        break
    except ApiException as e:
        if e.status != 409 or attempt == 4:
            raise
check(r.metadata.annotations.get('sweep/replaced') == 'yes', str(r.metadata.annotations))
`,
  ),
  op(
    'replace_namespaced_deployment (stale resource_version)',
    '409 Conflict, as the API server refuses a stale write',
    `
d = apps.read_namespaced_deployment('web', NS)
d.metadata.resource_version = '1'
try:
    apps.replace_namespaced_deployment('web', NS, d)
    check(False, 'accepted')
except ApiException as e:
    check(e.status == 409, str(e.status))
`,
  ),
  op(
    'read_namespaced_deployment_status',
    'the deployment, read through its status subresource',
    `
s = apps.read_namespaced_deployment_status('web', NS)
check(s.kind == 'Deployment' and s.metadata.name == 'web', str(s.kind))
`,
  ),
  op(
    'patch_namespaced_deployment_status',
    'a status write leaves the spec as it was',
    `
s = apps.patch_namespaced_deployment_status('web', NS, {'spec': {'replicas': 9}, 'status': {'observedGeneration': 2}})
check(s.spec.replicas == 2, str(s.spec.replicas))
check(apps.read_namespaced_deployment('web', NS).spec.replicas == 2, 'spec changed')
`,
  ),
  op(
    'read_namespaced_deployment_scale / patch_namespaced_deployment_scale',
    'the Scale, and a patch of it sets the replicas',
    `
check(apps.read_namespaced_deployment_scale('web', NS).spec.replicas == 2, 'scale')
apps.patch_namespaced_deployment_scale('web', NS, {'spec': {'replicas': 1}})
check(apps.read_namespaced_deployment('web', NS).spec.replicas == 1, 'replicas')
`,
  ),
  op(
    'create_namespaced_deployment (dry_run=All)',
    'answered as created, stored nowhere',
    `
d = apps.create_namespaced_deployment(NS, deployment_body('dry'), dry_run='All')
check(d.metadata.name == 'dry', 'answer')
try:
    apps.read_namespaced_deployment('dry', NS)
    check(False, 'stored')
except ApiException as e:
    check(e.status == 404, str(e.status))
`,
  ),
  refused(
    'create_namespaced_deployment (dryRun=All, fieldValidation=Strict, unknown field)',
    'refused with the strict decoding error; nothing stored (client 22.6 has no field_validation: sent with call_api)',
    /strict decoding error: unknown field \\?"spec\.template\.spec\.containers\[0\]\.imagee\\?"/,
    `
api = client.ApiClient()
api.call_api('/apis/apps/v1/namespaces/{namespace}/deployments', 'POST', {'namespace': NS},
    [('dryRun', 'All'), ('fieldValidation', 'Strict')], {'Content-Type': 'application/json', 'Accept': 'application/json'},
    body=deployment_body('typo', imagee='nginx'), response_type='V1Deployment', auth_settings=['BearerToken'], _return_http_data_only=True)
`,
  ),
  refused(
    'create_namespaced_deployment (dry_run=All, replicas as a string)',
    'refused as the JSON decoder words it, whatever the field validation',
    /cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32/,
    `
body = deployment_body('badtype')
body['spec']['replicas'] = 'two'
apps.create_namespaced_deployment(NS, body, dry_run='All')
`,
  ),
  op(
    'create_namespaced_config_map x5, list_namespaced_config_map (limit, _continue)',
    'pages of 2 with a continue token, every map once',
    `
for i in range(5):
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='page-%d' % i, labels={'page': 'yes'})))
seen, token, pages = [], None, 0
while True:
    kwargs = {'limit': 2, 'label_selector': 'page=yes'}
    if token:
        kwargs['_continue'] = token
    page = core.list_namespaced_config_map(NS, **kwargs)
    pages += 1
    seen += [c.metadata.name for c in page.items]
    token = page.metadata._continue
    if not token:
        break
check(sorted(seen) == ['page-%d' % i for i in range(5)] and pages == 3, '%s in %d pages' % (seen, pages))
`,
  ),
  op(
    'watch list_namespaced_config_map (timeout_seconds)',
    'an ADDED event per existing map, and the stream ends at the timeout',
    `
w = watch.Watch()
events = [(e['type'], e['object'].metadata.name) for e in w.stream(core.list_namespaced_config_map, NS, label_selector='page=yes', timeout_seconds=2)]
check(sorted(n for t, n in events if t == 'ADDED') == ['page-%d' % i for i in range(5)], str(events))
`,
  ),
  op(
    'list_config_map_for_all_namespaces (field_selector)',
    'only kube-system maps for metadata.namespace=kube-system',
    `
maps = core.list_config_map_for_all_namespaces(field_selector='metadata.namespace=kube-system').items
check(len(maps) > 0 and all(m.metadata.namespace == 'kube-system' for m in maps), str(len(maps)))
`,
  ),
  op(
    'create_namespaced_pod (unschedulable), read_namespaced_pod_log',
    'a pod no node takes: its log is empty, as the API server streams nothing for a pod without a node',
    `
core.create_namespaced_pod(NS, client.V1Pod(metadata=client.V1ObjectMeta(name='never', labels={'sweep': 'never'}), spec=client.V1PodSpec(
    node_selector={'sweep/nowhere': 'true'}, containers=[client.V1Container(name='app', image='busybox')])))
check(core.read_namespaced_pod_log('never', NS) == '', 'log')
`,
  ),
  op(
    "read_namespaced_pod (the API server's defaults)",
    "restartPolicy, dnsPolicy, schedulerName, grace period and the container's pull policy and termination message as the API server fills them",
    `
p = core.read_namespaced_pod('never', NS)
check((p.spec.restart_policy, p.spec.dns_policy, p.spec.scheduler_name, p.spec.termination_grace_period_seconds) == ('Always', 'ClusterFirst', 'default-scheduler', 30), str(p.spec))
c = p.spec.containers[0]
check((c.image_pull_policy, c.termination_message_path, c.termination_message_policy) == ('Always', '/dev/termination-log', 'File'), str(c))
`,
  ),
  op(
    'list_namespaced_pod (label_selector)',
    'only the labelled pod',
    `
check([p.metadata.name for p in core.list_namespaced_pod(NS, label_selector='sweep=never').items] == ['never'], 'selected')
`,
  ),
  refused(
    'read_namespaced_pod_log (container not in the pod)',
    '400, as the API server words it',
    /container nope is not valid for pod never/,
    `
core.read_namespaced_pod_log('never', NS, container='nope')
`,
  ),
  op(
    'read_namespaced_pod_status / patch_namespaced_pod_status',
    'a status write changes the status and leaves the labels',
    `
core.read_namespaced_pod_status('never', NS)
p = core.patch_namespaced_pod_status('never', NS, {'metadata': {'labels': {'x': 'y'}}, 'status': {'message': 'sweep'}})
check(p.status.message == 'sweep' and 'x' not in (p.metadata.labels or {}), str(p.metadata.labels))
`,
  ),
  op(
    'read_node_status / patch_node_status',
    'a status write leaves the node spec and labels as they were',
    `
name = core.list_node().items[0].metadata.name
before = core.read_node_status(name)
after = core.patch_node_status(name, {'metadata': {'labels': {'sweep': 'status'}}, 'spec': {'unschedulable': True}})
check('sweep' not in after.metadata.labels and not after.spec.unschedulable, str(after.spec.unschedulable))
check(before.status.node_info.kubelet_version == after.status.node_info.kubelet_version, 'node info')
`,
  ),
  op(
    'create_namespaced_service / read_namespaced_service',
    'a ClusterIP service with an address from the service subnet',
    `
core.create_namespaced_service(NS, client.V1Service(metadata=client.V1ObjectMeta(name='web'), spec=client.V1ServiceSpec(
    selector={'app': 'web'}, ports=[client.V1ServicePort(port=80)])))
svc = core.read_namespaced_service('web', NS)
check(svc.spec.type == 'ClusterIP' and svc.spec.cluster_ip, str(svc.spec))
`,
  ),
  op(
    'list_namespaced_event',
    'an EventList (the scheduler reported the pod it could not place)',
    `
events = core.list_namespaced_event(NS)
check(events.kind == 'EventList' or events.items is not None, 'list')
`,
  ),
  op(
    'CoordinationV1Api.list_namespaced_lease',
    'one node Lease per node in kube-node-lease',
    `
leases = {l.metadata.name for l in coordination.list_namespaced_lease('kube-node-lease').items}
check(leases == {n.metadata.name for n in core.list_node().items}, str(leases))
`,
  ),
  op(
    'delete_namespaced_deployment',
    'gone: a read then answers 404',
    `
apps.delete_namespaced_deployment('web', NS)
try:
    apps.read_namespaced_deployment('web', NS)
    check(False, 'still there')
except ApiException as e:
    check(e.status == 404, str(e.status))
`,
  ),
  op(
    'delete_namespace',
    'the namespace and what was in it go',
    `
core.delete_namespace(NS)
check(core.list_namespaced_config_map(NS).items == [], 'config maps left')
`,
  ),
];
