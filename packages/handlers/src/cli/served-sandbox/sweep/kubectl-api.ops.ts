// kubectl (Debian's, 1.32) against a served cluster's API surface: version, discovery, OpenAPI and explain, field
// validation and server-side dry run, status subresources, logs of a pod that never ran, labels, selectors, paging.
// The operations run in order in one namespace of their own, and later ones use what earlier ones made.
import { check, json, type CliOp, type SweepVars } from './ops.js';

export const KUBECTL_API_NAMESPACE = 'sweep-kubectl';
const NS = ['-n', KUBECTL_API_NAMESPACE];

/**
 * The manifests the operations apply, by file name: the test writes them into a folder and passes it as `vars.dir`
 * (kubectl reads `-f <file>`; the sweep's runner gives a command no standard input).
 */
export const KUBECTL_API_MANIFESTS: Record<string, string> = {};
const file = (name: string, content: string) => {
  KUBECTL_API_MANIFESTS[name] = content;
  return name;
};

function deployment(name: string, container: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { sweep: 'kubectl' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ...container }] } },
    },
  });
}

/** `-f -` in `args` reads `manifest`, written to a file of the sweep's folder. */
function withManifest(args: string[], manifest?: string): string[] | ((vars: SweepVars) => string[]) {
  if (manifest === undefined) return args;
  const name = file(`${Object.keys(KUBECTL_API_MANIFESTS).length}.json`, manifest);
  return (vars) => args.map((a) => (a === '-' ? `${vars['dir'] ?? '.'}/${name}` : a));
}

const right = (operation: string, expect: string, args: string[], check?: Extract<CliOp, { outcome: 'right' }>['check'], manifest?: string): CliOp => ({
  api: 'Kubernetes',
  operation,
  expect,
  outcome: 'right',
  args: withManifest(args, manifest),
  ...(check ? { check } : {}),
});

const refused = (operation: string, expect: string, args: string[], refusal: RegExp, manifest?: string): CliOp => ({
  api: 'Kubernetes',
  operation,
  expect,
  outcome: 'refused',
  refusal,
  args: withManifest(args, manifest),
});

export const KUBECTL_API_OPS: CliOp[] = [
  right('kubectl version -o json', 'the server version with its build date, Go release and commit', ['version', '-o', 'json'], (run) => {
    const server = json<{ serverVersion: Record<string, string> }>(run).serverVersion;
    check(/^v1\.\d+\.\d+$/.test(server['gitVersion'] ?? ''), `gitVersion ${server['gitVersion']}`);
    check(/^go1\.\d+/.test(server['goVersion'] ?? '') && /^\d{4}-\d\d-\d\dT/.test(server['buildDate'] ?? ''), JSON.stringify(server));
    check(/^[0-9a-f]{40}$/.test(server['gitCommit'] ?? '') && server['platform'] === 'linux/amd64', JSON.stringify(server));
  }),
  right('kubectl get --raw /version', 'version.Info with every field', ['get', '--raw', '/version'], (run) => {
    const v = json(run);
    for (const f of ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'])
      check(typeof v[f] === 'string' && v[f] !== '', `${f} missing`);
  }),
  right('kubectl api-versions', 'v1, apps/v1 and the other served group-versions', ['api-versions'], (run) => {
    const versions = run.stdout.split('\n');
    check(versions.includes('v1') && versions.includes('apps/v1') && versions.includes('policy/v1'), run.stdout);
  }),
  right('kubectl api-resources', 'deployments in apps, pods in the core group', ['api-resources', '--no-headers'], (run) => {
    check(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m.test(run.stdout), 'deployments');
    check(/^pods\s+po\s+v1\s+true\s+Pod$/m.test(run.stdout), 'pods');
  }),
  right('kubectl get --raw /openapi/v3', 'the index names apis/apps/v1 at a hash-versioned URL', ['get', '--raw', '/openapi/v3'], (run) => {
    const paths = json<{ paths: Record<string, { serverRelativeURL: string }> }>(run).paths;
    check(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/.test(paths['apis/apps/v1']?.serverRelativeURL ?? ''), JSON.stringify(paths['apis/apps/v1']));
  }),
  right(
    'kubectl get --raw /openapi/v3/apis/apps/v1',
    "Kubernetes' own schemas: the Deployment and the pod template's Container",
    ['get', '--raw', '/openapi/v3/apis/apps/v1'],
    (run) => {
      const schemas = json<{ components: { schemas: Record<string, { properties?: Record<string, unknown> }> } }>(run).components.schemas;
      check(schemas['io.k8s.api.apps.v1.Deployment'] !== undefined, 'Deployment');
      check(schemas['io.k8s.api.core.v1.Container']?.properties?.['livenessProbe'] !== undefined, 'Container.livenessProbe');
    },
  ),
  right('kubectl get --raw /openapi/v2', 'a Swagger 2.0 document with the Pod definition', ['get', '--raw', '/openapi/v2'], (run) => {
    const doc = json<{ swagger: string; definitions: Record<string, unknown> }>(run);
    check(doc.swagger === '2.0' && doc.definitions['io.k8s.api.core.v1.Pod'] !== undefined, 'swagger');
  }),
  right(
    'kubectl explain deployment.spec.template.spec.containers',
    'the Container type, with its fields',
    ['explain', 'deployment.spec.template.spec.containers'],
    (run) => {
      check(/FIELD:\s+containers <\[\]Container>/.test(run.stdout), 'field line');
      check(/livenessProbe\s+<Probe>/.test(run.stdout) && /imagePullPolicy\s+<string>/.test(run.stdout), 'fields');
    },
  ),
  right(
    'kubectl explain deployment.spec.template.spec.containers.livenessProbe.httpGet.port',
    'the leaf: an IntOrString, required',
    ['explain', 'deployment.spec.template.spec.containers.livenessProbe.httpGet.port'],
    (run) => check(/FIELD:\s+port <IntOrString>( -required-)?/.test(run.stdout), run.stdout.slice(0, 300)),
  ),
  right('kubectl explain pods --recursive', 'every nested field of a Pod', ['explain', 'pods', '--recursive'], (run) => {
    check(/readinessProbe\s+<Probe>/.test(run.stdout) && /\bsecurityContext\s+<PodSecurityContext>/.test(run.stdout), 'nested fields');
  }),
  right('kubectl explain service.spec.ports.targetPort', 'the IntOrString target port', ['explain', 'service.spec.ports.targetPort'], (run) =>
    check(/FIELD:\s+targetPort <IntOrString>/.test(run.stdout), run.stdout.slice(0, 300)),
  ),
  right('kubectl create namespace', 'the namespace of the operations below', ['create', 'namespace', KUBECTL_API_NAMESPACE]),
  refused(
    'kubectl apply --dry-run=server (a typo in a container field)',
    'refused with the strict decoding error kubectl asks for (its default is --validate=strict)',
    ['apply', ...NS, '--dry-run=server', '-f', '-'],
    /strict decoding error: unknown field "spec\.template\.spec\.containers\[0\]\.imagee"/,
    deployment('typo', { imagee: 'nginx' }),
  ),
  refused(
    'kubectl create --validate=strict (a typo)',
    'refused, and nothing is created',
    ['create', ...NS, '--validate=strict', '-f', '-'],
    /strict decoding error: unknown field "spec\.template\.spec\.containers\[0\]\.imagee"/,
    deployment('typo', { imagee: 'nginx' }),
  ),
  refused(
    'kubectl apply --server-side (a typo)',
    "refused as the field manager refuses an undeclared field (the API server's 500)",
    ['apply', ...NS, '--server-side', '-f', '-'],
    new RegExp(
      String.raw`failed to create typed patch object \(sweep-kubectl/typo; apps/v1, Kind=Deployment\): ` +
        String.raw`\.spec\.template\.spec\.containers\[name="web"\]\.imagee: field not declared in schema`,
    ),
    deployment('typo', { imagee: 'nginx' }),
  ),
  refused('kubectl get deployment typo', 'NotFound: neither refused write stored anything', ['get', ...NS, 'deployment', 'typo'], /NotFound.*"typo" not found/),
  right(
    'kubectl create --validate=warn --dry-run=server (a typo)',
    'created in the dry run, with the warning of the unknown field',
    ['create', ...NS, '--validate=warn', '--dry-run=server', '-f', '-'],
    (run) => {
      check(/Warning: unknown field "spec\.template\.spec\.containers\[0\]\.imagee"/.test(run.stderr), run.stderr);
      check(/deployment\.apps\/typo created \(server dry run\)/.test(run.stdout), run.stdout);
    },
    deployment('typo', { imagee: 'nginx' }),
  ),
  refused(
    'kubectl apply --dry-run=server (replicas as a string)',
    'refused as the JSON decoder words it',
    ['apply', ...NS, '--dry-run=server', '-f', '-'],
    /cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32/,
    deployment('badtype').replace('"replicas":1', '"replicas":"one"'),
  ),
  refused(
    'kubectl apply --dry-run=server (an image pull policy outside its enum)',
    '422 Invalid, as the registry validation words it',
    ['apply', ...NS, '--dry-run=server', '-f', '-'],
    // kubectl words a 422 from its details: `The <kind> "<name>" is invalid: <causes>`.
    new RegExp(
      String.raw`The Deployment "badenum" is invalid: spec\.template\.spec\.containers\[0\]\.imagePullPolicy: ` +
        String.raw`Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
    ),
    deployment('badenum', { imagePullPolicy: 'Sometimes' }),
  ),
  right(
    'kubectl apply --dry-run=server',
    'answered as created (server dry run)',
    ['apply', ...NS, '--dry-run=server', '-f', '-'],
    (run) => check(/deployment\.apps\/web created \(server dry run\)/.test(run.stdout), run.stdout),
    deployment('web'),
  ),
  refused('kubectl get deployment web (after the dry run)', 'NotFound: the dry run stored nothing', ['get', ...NS, 'deployment', 'web'], /NotFound/),
  right(
    'kubectl apply -f -',
    'the deployment, created',
    ['apply', ...NS, '-f', '-'],
    (run) => check(/deployment\.apps\/web created/.test(run.stdout), run.stdout),
    deployment('web'),
  ),
  right('kubectl label deployment', 'the label set', ['label', ...NS, 'deployment', 'web', 'tier=frontend'], (run) =>
    check(/deployment\.apps\/web labeled/.test(run.stdout), run.stdout),
  ),
  right('kubectl annotate deployment', 'the annotation set', ['annotate', ...NS, 'deployment', 'web', 'sweep/note=kept'], (run) =>
    check(/deployment\.apps\/web annotated/.test(run.stdout), run.stdout),
  ),
  right(
    'kubectl get deployments -l tier=frontend -o name',
    'only the labelled deployment',
    ['get', ...NS, 'deployments', '-l', 'tier=frontend', '-o', 'name'],
    (run) => check(run.stdout.trim() === 'deployment.apps/web', run.stdout),
  ),
  right(
    'kubectl get deployment --subresource=status',
    'the deployment, read through its status subresource',
    ['get', ...NS, 'deployment', 'web', '--subresource=status', '-o', 'json'],
    (run) => check(json(run)['kind'] === 'Deployment', run.stdout.slice(0, 200)),
  ),
  right(
    'kubectl patch deployment --subresource=status',
    'a status write; the spec stays as it was',
    [
      'patch',
      ...NS,
      'deployment',
      'web',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"spec":{"replicas":7},"status":{"observedGeneration":1}}',
      '-o',
      'json',
    ],
    (run) => check((json(run)['spec'] as { replicas: number }).replicas === 1, run.stdout.slice(0, 300)),
  ),
  right('kubectl scale deployment --replicas=2', 'scaled through the scale subresource', ['scale', ...NS, 'deployment', 'web', '--replicas=2'], (run) =>
    check(/deployment\.apps\/web scaled/.test(run.stdout), run.stdout),
  ),
  right(
    'kubectl run (a pod no node takes)',
    'the pod, Pending',
    ['run', ...NS, 'never', '--image=busybox', '--restart=Never', '--overrides={"spec":{"nodeSelector":{"sweep/nowhere":"true"}}}'],
    (run) => check(/pod\/never created/.test(run.stdout), run.stdout),
  ),
  right('kubectl logs (a pod that never ran)', 'nothing: the API server streams nothing for a pod without a node', ['logs', ...NS, 'never'], (run) =>
    check(run.stdout === '', run.stdout),
  ),
  refused(
    'kubectl logs -c (a container the pod lacks)',
    '400, as the API server words it',
    ['logs', ...NS, 'never', '-c', 'nope'],
    /container nope is not valid for pod never/,
  ),
  right('kubectl auth can-i create deployments', 'yes (the admin kubeconfig may do anything)', ['auth', 'can-i', 'create', 'deployments', ...NS], (run) =>
    check(run.stdout.trim() === 'yes', run.stdout),
  ),
  right('kubectl get events', "the namespace's events (the scheduler could not place the pod)", ['get', 'events', ...NS, '-o', 'json'], (run) =>
    check(json(run)['kind'] === 'List' || Array.isArray(json(run)['items']), run.stdout.slice(0, 200)),
  ),
  right(
    'kubectl get pods -A --field-selector=metadata.namespace=kube-system',
    'only kube-system pods',
    ['get', 'pods', '-A', '--field-selector=metadata.namespace=kube-system', '-o', 'json'],
    (run) => {
      const items = json<{ items: Array<{ metadata: { namespace: string } }> }>(run).items;
      check(items.length > 0 && items.every((p) => p.metadata.namespace === 'kube-system'), `${items.length} pods`);
    },
  ),
  right(
    'kubectl get configmaps --chunk-size=1',
    'every config map, read a page at a time',
    ['get', 'configmaps', '-A', '--chunk-size=1', '-o', 'name'],
    (run) => check(run.stdout.split('\n').filter((l) => l.startsWith('configmap/')).length >= 2, run.stdout),
  ),
  right(
    'kubectl create configmap --dry-run=server -o yaml',
    'the object as the server would store it, with its namespace',
    ['create', 'configmap', 'dry', ...NS, '--from-literal=a=1', '--dry-run=server', '-o', 'json'],
    (run) => check((json(run)['metadata'] as { namespace: string }).namespace === KUBECTL_API_NAMESPACE, run.stdout.slice(0, 200)),
  ),
  refused(
    'kubectl create -f job (no restartPolicy)',
    'refused 422: the defaults give the template Always, which a Job may not have',
    ['create', ...NS, '-f', '-'],
    /spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"/,
    JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'always' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:1.37' }] } } },
    }),
  ),
  right('kubectl auth whoami', "the served kubeconfig's user and its groups", ['auth', 'whoami', '-o', 'json'], (run) => {
    const user = (json(run)['status'] as { userInfo: { username: string; groups: string[] } }).userInfo;
    check(user.username === 'kubeplane-admin' && user.groups.includes('system:authenticated'), JSON.stringify(user));
  }),
  refused(
    'kubectl auth can-i --as (impersonation)',
    'refused 403 in the sandbox words: RBAC is not enforced, so it cannot answer as that user',
    ['auth', 'can-i', 'list', 'pods', ...NS, `--as=system:serviceaccount:${KUBECTL_API_NAMESPACE}:robot`],
    /impersonation \("system:serviceaccount:sweep-kubectl:robot"\) is not modelled by the sandbox/,
  ),
  right('kubectl create serviceaccount', 'created (kubectl sends it as protobuf)', ['create', ...NS, 'serviceaccount', 'robot'], (run) =>
    check(run.stdout.includes('serviceaccount/robot created'), run.stdout),
  ),
  right('kubectl create role', 'created with its rule', ['create', ...NS, 'role', 'reader', '--verb=get,list', '--resource=pods'], (run) =>
    check(run.stdout.includes('role.rbac.authorization.k8s.io/reader created'), run.stdout),
  ),
  right(
    'kubectl create rolebinding',
    'the role bound to the service account',
    ['create', ...NS, 'rolebinding', 'reader', '--role=reader', `--serviceaccount=${KUBECTL_API_NAMESPACE}:robot`, '-o', 'json'],
    (run) => {
      const binding = json(run);
      check(JSON.stringify(binding['roleRef']) === JSON.stringify({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' }), run.stdout);
      check(JSON.stringify(binding['subjects']) === JSON.stringify([{ kind: 'ServiceAccount', name: 'robot', namespace: KUBECTL_API_NAMESPACE }]), run.stdout);
    },
  ),
  right('kubectl expose deployment', 'a Service for the Deployment', ['expose', ...NS, 'deployment', 'web', '--port=80', '--target-port=80'], (run) =>
    check(run.stdout.includes('service/web exposed'), run.stdout),
  ),
  right('kubectl get endpoints', "the Service's pods by address, with the target port", ['get', ...NS, 'endpoints', 'web', '-o', 'json'], (run) => {
    const subsets = (json(run)['subsets'] as Array<{ addresses?: Array<{ targetRef: { kind: string } }>; ports: Array<{ port: number }> }> | undefined) ?? [];
    const addresses = subsets.flatMap((s) => s.addresses ?? []);
    check(subsets.length === 1 && subsets[0]?.ports[0]?.port === 80, JSON.stringify(subsets));
    check(addresses.length >= 1 && addresses.every((a) => a.targetRef.kind === 'Pod'), JSON.stringify(subsets));
  }),
  right('kubectl describe service', 'its endpoints, read from the EndpointSlice', ['describe', ...NS, 'service', 'web'], (run) =>
    check(/Endpoints:\s+\d+\.\d+\.\d+\.\d+:80/.test(run.stdout), run.stdout),
  ),
  right('kubectl delete deployment', 'deleted', ['delete', ...NS, 'deployment', 'web'], (run) =>
    check(/deployment\.apps "web" deleted/.test(run.stdout), run.stdout),
  ),
  right('kubectl delete namespace', 'deleted, with what was in it', ['delete', 'namespace', KUBECTL_API_NAMESPACE], (run) =>
    check(/namespace "sweep-kubectl" deleted/.test(run.stdout), run.stdout),
  ),
];
