// kubectl (Debian's kubernetes-client) driving workloads on a served cluster: Deployments and their ReplicaSets
// through a rollout, history and undo, DaemonSets, PodDisruptionBudgets honoured by drain, garbage collection by
// cascade, and pod addresses from each node's podCIDR. The operations run in order in their own namespace; an earlier
// one leaves names for later ones in `vars`.
import { check, json, type CliOp, type SweepVars } from './ops.js';

const NS = 'sweep-wl';
type Obj = Record<string, unknown> & { metadata: Record<string, unknown> & { name: string; uid?: string } };
type List = { items: Obj[] };

const ok = (operation: string, expect: string, args: CliOp['args'], checkRun?: (run: { stdout: string; stderr: string }, vars: SweepVars) => void): CliOp => ({
  api: 'Kubernetes',
  operation,
  expect,
  outcome: 'right',
  args,
  ...(checkRun ? { check: checkRun } : {}),
});

const o = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {});
const annotations = (x: Obj): Record<string, string> => o(x.metadata['annotations']) as Record<string, string>;
const refs = (x: Obj): Array<Record<string, unknown>> => (x.metadata['ownerReferences'] as Array<Record<string, unknown>> | undefined) ?? [];
const condition = (x: Obj, type: string): Record<string, unknown> | undefined =>
  ((o(x['status'])['conditions'] as Array<Record<string, unknown>> | undefined) ?? []).find((c) => c['type'] === type);
const revisions = (rs: List) => rs.items.map((r) => annotations(r)['deployment.kubernetes.io/revision']);

/** Whether an IPv4 address lies in a CIDR. */
function inCidr(ip: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  const n = (s: string) => s.split('.').reduce((a, b) => a * 256 + Number(b), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n(ip) / size) === Math.floor(n(base) / size);
}

export const KUBECTL_WORKLOADS_OPS: CliOp[] = [
  ok('kubectl create namespace', 'the sweep namespace', ['create', 'namespace', NS]),
  ok('kubectl create deployment', 'created with three replicas', ['create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=3', '-n', NS], (run) =>
    check(run.stdout.includes('deployment.apps/web created'), run.stdout),
  ),
  ok('kubectl rollout status deployment', 'waits, then "successfully rolled out"', ['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=90s'], (run) =>
    check(run.stdout.includes('deployment "web" successfully rolled out'), run.stdout),
  ),
  ok(
    'kubectl get deployment -o json',
    'Available and Progressing conditions as the controller words them',
    ['get', 'deployment', 'web', '-n', NS, '-o', 'json'],
    (run, vars) => {
      const d = json<Obj>(run);
      vars['webUid'] = String(d.metadata.uid);
      const available = condition(d, 'Available');
      const progressing = condition(d, 'Progressing');
      check(available?.['status'] === 'True' && available['reason'] === 'MinimumReplicasAvailable', JSON.stringify(available));
      check(available?.['message'] === 'Deployment has minimum availability.', JSON.stringify(available));
      check(
        progressing?.['reason'] === 'NewReplicaSetAvailable' &&
          /^ReplicaSet "web-[a-z0-9]+" has successfully progressed\.$/.test(String(progressing['message'])),
        JSON.stringify(progressing),
      );
      const status = o(d['status']);
      check(status['observedGeneration'] === d.metadata['generation'], 'observedGeneration');
      check(
        status['replicas'] === 3 && status['updatedReplicas'] === 3 && status['readyReplicas'] === 3 && status['availableReplicas'] === 3,
        JSON.stringify(status),
      );
      check(annotations(d)['deployment.kubernetes.io/revision'] === '1', 'revision annotation');
    },
  ),
  ok(
    'kubectl get rs -o json',
    'one ReplicaSet, revision 1, owned by the Deployment by uid',
    ['get', 'rs', '-n', NS, '-l', 'app=web', '-o', 'json'],
    (run, vars) => {
      const list = json<List>(run);
      check(list.items.length === 1, `${list.items.length} ReplicaSets`);
      const rs = list.items[0] as Obj;
      const hash = (rs.metadata['labels'] as Record<string, string>)['pod-template-hash'];
      check(hash !== undefined && rs.metadata.name === `web-${hash}`, rs.metadata.name);
      check(annotations(rs)['deployment.kubernetes.io/revision'] === '1', JSON.stringify(annotations(rs)));
      check(
        refs(rs)[0]?.['uid'] === vars['webUid'] && refs(rs)[0]?.['kind'] === 'Deployment' && refs(rs)[0]?.['controller'] === true,
        JSON.stringify(refs(rs)),
      );
      vars['rs1'] = rs.metadata.name;
    },
  ),
  ok('kubectl get rs', 'the printer: DESIRED, CURRENT, READY', ['get', 'rs', '-n', NS], (run, vars) => {
    check(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/m.test(run.stdout), run.stdout);
    check(new RegExp(`^${vars['rs1']}\\s+3\\s+3\\s+3\\s+`, 'm').test(run.stdout), run.stdout);
  }),
  ok('kubectl get rs -o wide', 'containers, images and the selector with the hash', ['get', 'rs', '-n', NS, '-o', 'wide'], (run) =>
    check(/nginx\s+nginx:1\.25\s+app=web,pod-template-hash=/.test(run.stdout), run.stdout),
  ),
  ok(
    'kubectl get pods -o json',
    'each pod owned by the ReplicaSet, its uid in the reference',
    ['get', 'pods', '-n', NS, '-l', 'app=web', '-o', 'json'],
    (run) => {
      const pods = json<List>(run).items;
      check(pods.length === 3, `${pods.length} pods`);
      for (const p of pods)
        check(refs(p).length === 1 && typeof refs(p)[0]?.['uid'] === 'string' && refs(p)[0]?.['kind'] === 'ReplicaSet', JSON.stringify(refs(p)));
    },
  ),
  ok('kubectl get nodes -o json', 'every node has a /24 podCIDR of the pod subnet', ['get', 'nodes', '-o', 'json'], (run, vars) => {
    const nodes = json<List>(run).items;
    const cidrs: Record<string, string> = {};
    for (const n of nodes) {
      const spec = o(n['spec']);
      check(typeof spec['podCIDR'] === 'string' && /\/24$/.test(String(spec['podCIDR'])), `${n.metadata.name}: ${String(spec['podCIDR'])}`);
      check(JSON.stringify(spec['podCIDRs']) === JSON.stringify([spec['podCIDR']]), 'podCIDRs');
      cidrs[n.metadata.name] = String(spec['podCIDR']);
    }
    check(new Set(Object.values(cidrs)).size === nodes.length, 'two nodes share a podCIDR');
    vars['cidrs'] = JSON.stringify(cidrs);
    vars['nodeCount'] = String(nodes.length);
  }),
  ok('kubectl get pods -o wide', "each pod's IP in its node's podCIDR", ['get', 'pods', '-n', NS, '-o', 'wide', '--no-headers'], (run, vars) => {
    const cidrs = JSON.parse(vars['cidrs'] ?? '{}') as Record<string, string>;
    const rows = run.stdout.trim().split('\n');
    check(rows.length === 3, run.stdout);
    for (const row of rows) {
      const [, , , , , ip = '', node = ''] = row.split(/\s+/);
      check(inCidr(ip, cidrs[node] ?? '0.0.0.0/32'), `${ip} not in ${node}'s ${cidrs[node]}`);
    }
  }),
  ok(
    'kubectl get pods -n kube-system -o wide',
    'host-network pods (cilium, etcd) show their node address',
    ['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=cilium', '-o', 'json'],
    (run) => {
      for (const p of json<List>(run).items) {
        const status = o(p['status']);
        check(
          status['podIP'] !== undefined && status['podIP'] === status['hostIP'],
          `${p.metadata.name}: ${String(status['podIP'])} vs ${String(status['hostIP'])}`,
        );
      }
    },
  ),
  ok('kubectl scale deployment', 'scaled to five', ['scale', 'deployment/web', '--replicas=5', '-n', NS], (run) =>
    check(run.stdout.includes('deployment.apps/web scaled'), run.stdout),
  ),
  ok('kubectl rollout status (after scale)', 'rolled out with five', ['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=90s'], (run) =>
    check(run.stdout.includes('successfully rolled out'), run.stdout),
  ),
  ok('kubectl get deployment (after scale)', 'READY 5/5, the same ReplicaSet', ['get', 'deployment', 'web', '-n', NS, '--no-headers'], (run) =>
    check(/^web\s+5\/5\s+5\s+5\s+/.test(run.stdout), run.stdout),
  ),
  ok('kubectl set image', 'a new pod template', ['set', 'image', 'deployment/web', 'nginx=nginx:1.26', '-n', NS], (run) =>
    check(run.stdout.includes('deployment.apps/web image updated'), run.stdout),
  ),
  ok('kubectl rollout status (after set image)', 'rolled out', ['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=90s'], (run) =>
    check(run.stdout.includes('successfully rolled out'), run.stdout),
  ),
  ok(
    'kubectl get rs (after set image)',
    'revision 2 holds the replicas, revision 1 kept at zero',
    ['get', 'rs', '-n', NS, '-l', 'app=web', '-o', 'json'],
    (run, vars) => {
      const list = json<List>(run);
      check(list.items.length === 2, `${list.items.length} ReplicaSets`);
      const byRevision = Object.fromEntries(list.items.map((r) => [annotations(r)['deployment.kubernetes.io/revision'], r]));
      check(o(byRevision['1']?.['spec'])['replicas'] === 0 && byRevision['1']?.metadata.name === vars['rs1'], 'revision 1 not scaled down');
      check(o(byRevision['2']?.['spec'])['replicas'] === 5, 'revision 2 does not hold the replicas');
      vars['rs2'] = String(byRevision['2']?.metadata.name);
    },
  ),
  ok('kubectl annotate deployment (change-cause)', 'annotated', ['annotate', 'deployment/web', 'kubernetes.io/change-cause=nginx 1.26', '-n', NS]),
  ok('kubectl rollout history', 'revisions 1 and 2, the change cause on 2', ['rollout', 'history', 'deployment/web', '-n', NS], (run) => {
    check(/^1\s+<none>$/m.test(run.stdout), run.stdout);
    check(/^2\s+nginx 1\.26$/m.test(run.stdout), run.stdout);
  }),
  ok('kubectl rollout history --revision=1', "revision 1's pod template", ['rollout', 'history', 'deployment/web', '--revision=1', '-n', NS], (run) =>
    check(/Image:\s+nginx:1\.25/.test(run.stdout), run.stdout),
  ),
  ok('kubectl rollout undo', 'rolled back to revision 1, which becomes 3', ['rollout', 'undo', 'deployment/web', '-n', NS], (run) =>
    check(run.stdout.includes('deployment.apps/web rolled back'), run.stdout),
  ),
  ok('kubectl rollout status (after undo)', 'rolled out', ['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=90s'], (run) =>
    check(run.stdout.includes('successfully rolled out'), run.stdout),
  ),
  ok('kubectl get rs (after undo)', "revision 1's ReplicaSet is reused as revision 3", ['get', 'rs', '-n', NS, '-l', 'app=web', '-o', 'json'], (run, vars) => {
    const list = json<List>(run);
    check(list.items.length === 2, `${list.items.length} ReplicaSets`);
    const first = list.items.find((r) => r.metadata.name === vars['rs1']);
    check(annotations(first as Obj)['deployment.kubernetes.io/revision'] === '3', JSON.stringify(first?.metadata));
    check(annotations(first as Obj)['deployment.kubernetes.io/revision-history'] === '1', 'revision-history');
    check(o(first?.['spec'])['replicas'] === 5, 'the replicas are not back on it');
  }),
  ok('kubectl get deployment (after undo)', 'the image of revision 1 and revision 3', ['get', 'deployment', 'web', '-n', NS, '-o', 'json'], (run) => {
    const d = json<Obj>(run);
    const containers = o(o(o(d['spec'])['template'])['spec'])['containers'] as Array<Record<string, unknown>>;
    check(containers[0]?.['image'] === 'nginx:1.25', String(containers[0]?.['image']));
    check(annotations(d)['deployment.kubernetes.io/revision'] === '3', JSON.stringify(annotations(d)));
  }),
  ok('kubectl rollout history (after undo)', 'revisions 2 and 3', ['rollout', 'history', 'deployment/web', '-n', NS], (run) => {
    check(!/^1\s/m.test(run.stdout) && /^2\s/m.test(run.stdout) && /^3\s/m.test(run.stdout), run.stdout);
  }),
  ok('kubectl rollout undo --to-revision=2', 'back to nginx 1.26', ['rollout', 'undo', 'deployment/web', '--to-revision=2', '-n', NS], (run) =>
    check(run.stdout.includes('rolled back'), run.stdout),
  ),
  ok('kubectl rollout restart', 'a new ReplicaSet from the restartedAt annotation', ['rollout', 'restart', 'deployment/web', '-n', NS], (run) =>
    check(run.stdout.includes('deployment.apps/web restarted'), run.stdout),
  ),
  ok('kubectl rollout status (after restart)', 'rolled out', ['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=90s'], (run) =>
    check(run.stdout.includes('successfully rolled out'), run.stdout),
  ),
  ok('kubectl get rs (after restart)', 'three ReplicaSets, revision 5 holding five pods', ['get', 'rs', '-n', NS, '-l', 'app=web', '-o', 'json'], (run) => {
    const list = json<List>(run);
    check(JSON.stringify(revisions(list).sort()) === JSON.stringify(['3', '4', '5']), JSON.stringify(revisions(list)));
    const newest = list.items.find((r) => annotations(r)['deployment.kubernetes.io/revision'] === '5');
    check(o(newest?.['status'])['readyReplicas'] === 5, JSON.stringify(newest?.['status']));
    check(
      typeof annotations({ metadata: o(o(newest?.['spec'])['template'])['metadata'] } as Obj)['kubectl.kubernetes.io/restartedAt'] === 'string',
      'restartedAt',
    );
  }),
  ok('kubectl rollout pause', 'paused', ['rollout', 'pause', 'deployment/web', '-n', NS], (run) => check(run.stdout.includes('paused'), run.stdout)),
  ok('kubectl set image (paused)', 'no new ReplicaSet while paused; Progressing Unknown DeploymentPaused', [
    'set',
    'image',
    'deployment/web',
    'nginx=nginx:1.27',
    '-n',
    NS,
  ]),
  ok(
    'kubectl get deployment (paused)',
    'Progressing Unknown, DeploymentPaused, the old pods kept',
    ['get', 'deployment', 'web', '-n', NS, '-o', 'json'],
    (run) => {
      const d = json<Obj>(run);
      const progressing = condition(d, 'Progressing');
      check(
        progressing?.['status'] === 'Unknown' && progressing['reason'] === 'DeploymentPaused' && progressing['message'] === 'Deployment is paused',
        JSON.stringify(progressing),
      );
      check(o(d['status'])['availableReplicas'] === 5, JSON.stringify(d['status']));
    },
  ),
  ok('kubectl rollout resume', 'resumed', ['rollout', 'resume', 'deployment/web', '-n', NS], (run) => check(run.stdout.includes('resumed'), run.stdout)),
  ok('kubectl rollout status (after resume)', 'the paused change rolls out', ['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=90s'], (run) =>
    check(run.stdout.includes('successfully rolled out'), run.stdout),
  ),
  ok('kubectl describe deployment', 'NewReplicaSet, the conditions and the scaling events', ['describe', 'deployment', 'web', '-n', NS], (run) => {
    check(/Normal\s+ScalingReplicaSet\s+\S+\s+deployment-controller\s+Scaled down replica set web-[a-z0-9]+ to 0 from 5/.test(run.stdout), run.stdout);
    check(/NewReplicaSet:\s+web-[a-z0-9]+ \(5\/5 replicas created\)/.test(run.stdout), run.stdout);
    check(/Available\s+True\s+MinimumReplicasAvailable/.test(run.stdout) && /Progressing\s+True\s+NewReplicaSetAvailable/.test(run.stdout), run.stdout);
  }),
  ok('kubectl get ds -A', 'kube-system/cilium with a pod on every node', ['get', 'ds', '-A', '--no-headers'], (run, vars) =>
    check(new RegExp(`^kube-system\\s+cilium${`\\s+${vars['nodeCount']}`.repeat(5)}\\s+<none>\\s+`, 'm').test(run.stdout), run.stdout),
  ),
  ok(
    'kubectl get ds cilium -o json',
    'status counts, and its pods owned by it by uid',
    ['get', 'ds', 'cilium', '-n', 'kube-system', '-o', 'json'],
    (run, vars) => {
      const ds = json<Obj>(run);
      const status = o(ds['status']);
      const n = Number(vars['nodeCount']);
      check(
        status['desiredNumberScheduled'] === n && status['currentNumberScheduled'] === n && status['numberReady'] === n && status['numberAvailable'] === n,
        JSON.stringify(status),
      );
      vars['ciliumUid'] = String(ds.metadata.uid);
    },
  ),
  ok(
    'kubectl get pods -l k8s-app=cilium',
    "every agent pod names the DaemonSet's uid",
    ['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=cilium', '-o', 'json'],
    (run, vars) => {
      const pods = json<List>(run).items;
      check(pods.length === Number(vars['nodeCount']), `${pods.length} agents`);
      for (const p of pods) check(refs(p)[0]?.['kind'] === 'DaemonSet' && refs(p)[0]?.['uid'] === vars['ciliumUid'], JSON.stringify(refs(p)));
    },
  ),
  ok('kubectl rollout status daemonset', 'cilium rolled out', ['rollout', 'status', 'daemonset/cilium', '-n', 'kube-system', '--timeout=30s'], (run) =>
    check(run.stdout.includes('daemon set "cilium" successfully rolled out'), run.stdout),
  ),
  ok('kubectl rollout history daemonset', 'revision 1', ['rollout', 'history', 'daemonset/cilium', '-n', 'kube-system'], (run) =>
    check(/^REVISION\s+CHANGE-CAUSE$/m.test(run.stdout) && /^1\s+<none>$/m.test(run.stdout), run.stdout),
  ),
  ok(
    'kubectl set image daemonset',
    'a new agent template',
    ['set', 'image', 'daemonset/cilium', 'cilium-agent=quay.io/cilium/cilium:v1.16.5', '-n', 'kube-system'],
    (run) => check(run.stdout.includes('daemonset.apps/cilium image updated'), run.stdout),
  ),
  ok(
    'kubectl rollout status daemonset (after set image)',
    'rolled out on every node',
    ['rollout', 'status', 'daemonset/cilium', '-n', 'kube-system', '--timeout=90s'],
    (run) => check(run.stdout.includes('daemon set "cilium" successfully rolled out'), run.stdout),
  ),
  ok('kubectl get controllerrevisions', "the DaemonSet's two revisions", ['get', 'controllerrevisions', '-n', 'kube-system', '--no-headers'], (run) => {
    check(/^cilium-[a-z0-9]+\s+daemonset\.apps\/cilium\s+1\s+/m.test(run.stdout), run.stdout);
    check(/^cilium-[a-z0-9]+\s+daemonset\.apps\/cilium\s+2\s+/m.test(run.stdout), run.stdout);
  }),
  ok('kubectl rollout undo daemonset', 'back to the first template', ['rollout', 'undo', 'daemonset/cilium', '-n', 'kube-system'], (run) =>
    check(run.stdout.includes('daemonset.apps/cilium rolled back'), run.stdout),
  ),
  ok('kubectl rollout status daemonset (after undo)', 'rolled out', ['rollout', 'status', 'daemonset/cilium', '-n', 'kube-system', '--timeout=90s']),
  ok('kubectl rollout history daemonset (after undo)', 'revisions 2 and 3', ['rollout', 'history', 'daemonset/cilium', '-n', 'kube-system'], (run) =>
    check(!/^1\s/m.test(run.stdout) && /^2\s/m.test(run.stdout) && /^3\s/m.test(run.stdout), run.stdout),
  ),
  ok('kubectl get ds (after undo)', 'the first image, every agent ready', ['get', 'ds', 'cilium', '-n', 'kube-system', '-o', 'json'], (run, vars) => {
    const ds = json<Obj>(run);
    const containers = o(o(o(ds['spec'])['template'])['spec'])['containers'] as Array<Record<string, unknown>>;
    check(containers[0]?.['image'] === 'quay.io/cilium/cilium', String(containers[0]?.['image']));
    check(o(ds['status'])['numberReady'] === Number(vars['nodeCount']), JSON.stringify(ds['status']));
  }),
  ok(
    'kubectl create pdb',
    'a budget that allows no disruption (minAvailable 5 of 5)',
    ['create', 'pdb', 'web', '--selector=app=web', '--min-available=5', '-n', NS],
    (run) => check(run.stdout.includes('poddisruptionbudget.policy/web created'), run.stdout),
  ),
  ok('kubectl get pdb -o json', 'status counted by the disruption controller', ['get', 'pdb', 'web', '-n', NS, '-o', 'json'], (run) => {
    const status = o(json<Obj>(run)['status']);
    check(
      status['currentHealthy'] === 5 && status['desiredHealthy'] === 5 && status['expectedPods'] === 5 && status['disruptionsAllowed'] === 0,
      JSON.stringify(status),
    );
    const allowed = ((status['conditions'] as Array<Record<string, unknown>> | undefined) ?? [])[0];
    check(allowed?.['type'] === 'DisruptionAllowed' && allowed['status'] === 'False' && allowed['reason'] === 'InsufficientPods', JSON.stringify(allowed));
  }),
  ok('kubectl get pdb', 'MIN AVAILABLE 5, MAX UNAVAILABLE N/A, ALLOWED DISRUPTIONS 0', ['get', 'pdb', '-n', NS, '--no-headers'], (run) =>
    check(/^web\s+5\s+N\/A\s+0\s+/.test(run.stdout), run.stdout),
  ),
  ok(
    'kubectl get pods (a node of the rollout)',
    'where a web pod runs',
    ['get', 'pods', '-n', NS, '-l', 'app=web', '-o', 'jsonpath={.items[0].spec.nodeName}'],
    (run, vars) => {
      check(run.stdout.trim() !== '', 'no node');
      vars['webNode'] = run.stdout.trim();
    },
  ),
  {
    api: 'Kubernetes',
    operation: 'kubectl drain (budget exhausted)',
    expect: 'evictions refused with 429 as the API server words it; the drain gives up at its timeout',
    outcome: 'refused',
    refusal: /Cannot evict pod as it would violate the pod's disruption budget\./,
    args: (vars: SweepVars) => ['drain', vars['webNode'] ?? '', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=12s'],
  },
  ok(
    'kubectl get node (after a refused drain)',
    'cordoned: SchedulingDisabled',
    (vars) => ['get', 'node', vars['webNode'] ?? '', '--no-headers'],
    (run) => check(/Ready,SchedulingDisabled/.test(run.stdout), run.stdout),
  ),
  ok('kubectl get pods (after a refused drain)', 'all five still there', ['get', 'pods', '-n', NS, '-l', 'app=web', '--no-headers'], (run) =>
    check(run.stdout.trim().split('\n').length === 5, run.stdout),
  ),
  ok(
    'kubectl uncordon',
    'uncordoned',
    (vars) => ['uncordon', vars['webNode'] ?? ''],
    (run) => check(run.stdout.includes('uncordoned'), run.stdout),
  ),
  ok('kubectl patch pdb', 'minAvailable 4: one disruption allowed', ['patch', 'pdb', 'web', '-n', NS, '--type=merge', '-p', '{"spec":{"minAvailable":4}}']),
  ok('kubectl get pdb (after patch)', 'ALLOWED DISRUPTIONS 1', ['get', 'pdb', 'web', '-n', NS, '-o', 'jsonpath={.status.disruptionsAllowed}'], (run) =>
    check(run.stdout.trim() === '1', run.stdout),
  ),
  ok(
    'kubectl drain (budget allows)',
    'evicts (not deletes) the pods, and finishes',
    (vars) => ['drain', vars['webNode'] ?? '', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=120s'],
    (run) => {
      check(/evicting pod sweep-wl\/web-/.test(`${run.stderr}${run.stdout}`), `${run.stderr}${run.stdout}`);
      check(/drained/.test(run.stdout), run.stdout);
    },
  ),
  ok(
    'kubectl get pods -o wide (after drain)',
    'five pods again, none on the drained node',
    ['get', 'pods', '-n', NS, '-l', 'app=web', '-o', 'json'],
    (run, vars) => {
      const pods = json<List>(run).items;
      check(pods.length === 5, `${pods.length} pods`);
      check(
        pods.every((p) => o(p['spec'])['nodeName'] !== vars['webNode']),
        'a pod on the drained node',
      );
    },
  ),
  ok('kubectl uncordon (after drain)', 'schedulable again', (vars) => ['uncordon', vars['webNode'] ?? '']),
  ok(
    'kubectl cordon',
    'unschedulable',
    (vars) => ['cordon', vars['webNode'] ?? ''],
    (run) => check(run.stdout.includes('cordoned'), run.stdout),
  ),
  ok(
    'kubectl get node (cordoned)',
    'spec.unschedulable true',
    (vars) => ['get', 'node', vars['webNode'] ?? '', '-o', 'jsonpath={.spec.unschedulable}'],
    (run) => check(run.stdout.trim() === 'true', run.stdout),
  ),
  ok('kubectl uncordon (after cordon)', 'schedulable', (vars) => ['uncordon', vars['webNode'] ?? '']),
  ok(
    'kubectl delete deployment --cascade=orphan',
    'the Deployment goes; its ReplicaSets stay',
    ['delete', 'deployment', 'web', '-n', NS, '--cascade=orphan'],
    (run) => check(run.stdout.includes('deployment.apps "web" deleted'), run.stdout),
  ),
  ok('kubectl get rs (orphaned)', 'still there, without owner references', ['get', 'rs', '-n', NS, '-l', 'app=web', '-o', 'json'], (run) => {
    const list = json<List>(run);
    check(list.items.length >= 1 && list.items.every((r) => refs(r).length === 0), JSON.stringify(list.items.map((r) => refs(r))));
  }),
  ok('kubectl get pods (orphaned)', 'the pods run on', ['get', 'pods', '-n', NS, '-l', 'app=web', '--no-headers'], (run) =>
    check(run.stdout.trim().split('\n').length === 5, run.stdout),
  ),
  ok('kubectl delete rs --all', 'the ReplicaSets go and the garbage collector takes their pods', ['delete', 'rs', '--all', '-n', NS], (run) =>
    check(/replicaset\.apps "web-[a-z0-9]+" deleted/.test(run.stdout), run.stdout),
  ),
  ok('kubectl get pods (after the ReplicaSets)', 'none left', ['get', 'pods', '-n', NS, '-l', 'app=web', '-o', 'json'], (run) =>
    check(json<List>(run).items.length === 0, run.stdout.slice(0, 500)),
  ),
  ok('kubectl create deployment (second)', 'created', ['create', 'deployment', 'api', '--image=nginx:1.25', '--replicas=2', '-n', NS]),
  ok('kubectl rollout status (second)', 'rolled out', ['rollout', 'status', 'deployment/api', '-n', NS, '--timeout=90s'], (run) =>
    check(run.stdout.includes('successfully rolled out'), run.stdout),
  ),
  ok(
    'kubectl delete deployment --cascade=foreground',
    'gone with its ReplicaSet and pods',
    ['delete', 'deployment', 'api', '-n', NS, '--cascade=foreground', '--timeout=60s'],
    (run) => check(run.stdout.includes('deployment.apps "api" deleted'), run.stdout),
  ),
  ok('kubectl get rs,pods (after foreground)', 'nothing of it left', ['get', 'rs,pods', '-n', NS, '-l', 'app=api', '-o', 'json'], (run) =>
    check(json<List>(run).items.length === 0, run.stdout.slice(0, 500)),
  ),
  ok('kubectl create deployment (third)', 'created', ['create', 'deployment', 'db', '--image=postgres:16', '--replicas=1', '-n', NS]),
  ok('kubectl rollout status (third)', 'rolled out', ['rollout', 'status', 'deployment/db', '-n', NS, '--timeout=90s']),
  ok('kubectl get all', 'the Deployment, its ReplicaSet and its pod', ['get', 'all', '-n', NS], (run) => {
    check(/^deployment\.apps\/db\s+1\/1\s+1\s+1\s+/m.test(run.stdout), run.stdout);
    check(/^replicaset\.apps\/db-[a-z0-9]+\s+1\s+1\s+1\s+/m.test(run.stdout), run.stdout);
    check(/^pod\/db-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+/m.test(run.stdout), run.stdout);
  }),
  ok('kubectl delete deployment (default cascade)', 'background: the ReplicaSet and pod follow', ['delete', 'deployment', 'db', '-n', NS], (run) =>
    check(run.stdout.includes('deleted'), run.stdout),
  ),
  ok('kubectl get rs,pods (after background)', 'nothing of it left', ['get', 'rs,pods', '-n', NS, '-l', 'app=db', '-o', 'json'], (run) =>
    check(json<List>(run).items.length === 0, run.stdout.slice(0, 500)),
  ),
  ok(
    'kubectl get events (a ReplicaSet)',
    "the ReplicaSet controller's SuccessfulCreate",
    ['get', 'events', '-n', NS, '--field-selector', 'involvedObject.kind=ReplicaSet', '-o', 'json'],
    (run) =>
      check(
        json<List>(run).items.some((e) => e['reason'] === 'SuccessfulCreate' && /^Created pod: web-[a-z0-9]+-[a-z0-9]{5}$/.test(String(e['message']))),
        run.stdout.slice(0, 500),
      ),
  ),
  ok('kubectl create deployment (stuck)', 'created', ['create', 'deployment', 'stuck', '--image=nginx:1.25', '-n', NS]),
  ok('kubectl patch deployment (unschedulable template)', 'a template no node takes, a 10 s deadline', [
    'patch',
    'deployment',
    'stuck',
    '-n',
    NS,
    '-p',
    '{"spec":{"progressDeadlineSeconds":10,"template":{"spec":{"nodeSelector":{"sweep":"nowhere"}}}}}',
  ]),
  {
    api: 'Kubernetes',
    operation: 'kubectl rollout status (past the deadline)',
    expect: 'fails: the Deployment exceeded its progress deadline',
    outcome: 'refused',
    refusal: /deployment "stuck" exceeded its progress deadline/,
    args: ['rollout', 'status', 'deployment/stuck', '-n', NS, '--timeout=120s'],
  },
  ok(
    'kubectl get deployment (past the deadline)',
    'Progressing False, ProgressDeadlineExceeded',
    ['get', 'deployment', 'stuck', '-n', NS, '-o', 'json'],
    (run) => {
      const progressing = condition(json<Obj>(run), 'Progressing');
      check(progressing?.['status'] === 'False' && progressing['reason'] === 'ProgressDeadlineExceeded', JSON.stringify(progressing));
      check(/^ReplicaSet "stuck-[a-z0-9]+" has timed out progressing\.$/.test(String(progressing?.['message'])), JSON.stringify(progressing));
    },
  ),
  ok('kubectl create job', 'created', ['create', 'job', 'pi', '--image=busybox:1.37', '-n', NS, '--', 'true'], (run) =>
    check(run.stdout.includes('job.batch/pi created'), run.stdout),
  ),
  ok('kubectl wait --for=condition=complete job', 'the Job completes', ['wait', '--for=condition=complete', 'job/pi', '-n', NS, '--timeout=90s'], (run) =>
    check(run.stdout.includes('job.batch/pi condition met'), run.stdout),
  ),
  ok('kubectl get job', 'succeeded 1, its selector made from its uid, and its pod Succeeded', ['get', 'job', 'pi', '-n', NS, '-o', 'json'], (run) => {
    const job = json<Obj>(run);
    check(o(job['status'])['succeeded'] === 1 && typeof o(job['status'])['completionTime'] === 'string', JSON.stringify(job['status']));
    const selector = o(o(o(job['spec'])['selector'])['matchLabels']);
    check(selector['batch.kubernetes.io/controller-uid'] === job.metadata.uid, JSON.stringify(selector));
  }),
  ok('kubectl delete namespace', 'the sweep namespace and the budget in it', ['delete', 'namespace', NS]),
];
