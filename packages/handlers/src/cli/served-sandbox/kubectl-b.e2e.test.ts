// kubectl 1.32 against the served Kubernetes API of the hybrid example (8 nodes), TLS verification on: patches of
// all three kinds, server-side apply with its field managers, events, leases, the `kubernetes` Service behind
// cluster-info, access reviews, field selectors, and nodes that report what their machines have.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool, runTool, type ToolRun } from './test-support/tools.js';
import { ServedWorld } from './test-support/served-world.js';

let world: ServedWorld;
let kubeconfig = '';
let kubectlBin = '';

beforeAll(async () => {
  kubectlBin = await requireTool('kubectl', 'kubernetes-client');
  world = await ServedWorld.start({ manifests: ['examples/hybrid-aws-hetzner.yaml'] });
  kubeconfig = await world.kubeconfigFile('hybrid');
}, 240_000);

afterAll(async () => {
  await world?.dispose();
}, 60_000);

async function kubectl(args: string[]): Promise<ToolRun> {
  return runTool(kubectlBin, ['--kubeconfig', kubeconfig, ...args], { PATH: process.env.PATH ?? '', HOME: world.dir });
}

async function ok(args: string[]): Promise<string> {
  const run = await kubectl(args);
  if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
}

let manifests = 0;

/** A ConfigMap manifest in a file, for `kubectl apply -f`. */
async function configMap(name: string, owner: string, data: Record<string, string>): Promise<string> {
  manifests += 1;
  const file = join(world.dir, `configmap-${manifests}.json`);
  await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { owner } }, data }));
  return file;
}

async function nodeNamed(part: string): Promise<string> {
  const names = (await ok(['get', 'nodes', '-o', 'name']))
    .trim()
    .split('\n')
    .map((n) => n.replace(/^node\//, ''));
  const found = names.find((n) => n.includes(part));
  if (!found) throw new Error(`no node named like ${part}: ${names.join(', ')}`);
  return found;
}

// `--validate=false` on applies: schema validation needs the OpenAPI documents, another part of this work.
describe('kubectl patch', () => {
  it('applies a JSON patch (RFC 6902) with add, test, copy and move', async () => {
    await ok(['apply', '--server-side', '--validate=false', '-f', await configMap('json-patched', 'setup', { a: '1', b: '2' })]);
    await ok([
      'patch',
      'configmap',
      'json-patched',
      '--type=json',
      '-p',
      '[{"op":"test","path":"/data/a","value":"1"},{"op":"add","path":"/data/c","value":"3"},{"op":"copy","from":"/data/a","path":"/data/d"},{"op":"move","from":"/data/b","path":"/data/e"}]',
    ]);
    expect(JSON.parse(await ok(['get', 'configmap', 'json-patched', '-o', 'jsonpath={.data}']))).toEqual({ a: '1', c: '3', d: '1', e: '2' });
  });

  it('refuses a JSON patch whose test fails, as invalid, and leaves the object as it was', async () => {
    await ok(['apply', '--server-side', '--validate=false', '-f', await configMap('json-tested', 'setup', { a: '1' })]);
    const run = await kubectl([
      'patch',
      'configmap',
      'json-tested',
      '--type=json',
      '-p',
      '[{"op":"add","path":"/data/b","value":"2"},{"op":"test","path":"/data/a","value":"9"}]',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The request is invalid');
    expect(JSON.parse(await ok(['get', 'configmap', 'json-tested', '-o', 'jsonpath={.data}']))).toEqual({ a: '1' });
  });

  it('applies a merge patch (RFC 7386): null removes a key', async () => {
    await ok(['apply', '--server-side', '--validate=false', '-f', await configMap('merge-patched', 'setup', { a: '1', b: '2' })]);
    await ok(['patch', 'configmap', 'merge-patched', '--type=merge', '-p', '{"data":{"a":null,"c":"3"}}']);
    expect(JSON.parse(await ok(['get', 'configmap', 'merge-patched', '-o', 'jsonpath={.data}']))).toEqual({ b: '2', c: '3' });
  });

  it('applies a strategic merge patch: containers and env merge by name, and $patch: delete removes one', async () => {
    const path = '{.spec.template.spec.containers[0]}';
    await ok([
      '-n',
      'kube-system',
      'patch',
      'deployment',
      'coredns',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"coredns","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]}]}}}}',
    ]);
    await ok([
      '-n',
      'kube-system',
      'patch',
      'deployment',
      'coredns',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"coredns","env":[{"name":"A","$patch":"delete"}]}]}}}}',
    ]);
    const container = JSON.parse(await ok(['-n', 'kube-system', 'get', 'deployment', 'coredns', '-o', `jsonpath=${path}`])) as {
      name: string;
      image: string;
      env: unknown[];
    };
    // The image stays (the container was merged, not replaced) and only B is left.
    expect(container).toMatchObject({ name: 'coredns', image: expect.stringContaining('coredns') as unknown, env: [{ name: 'B', value: '2' }] });
  });
});

describe('--dry-run=server', () => {
  it('answers what a patch or an apply would store and stores nothing', async () => {
    await ok(['apply', '--server-side', '--validate=false', '-f', await configMap('dry', 'setup', { a: '1' })]);
    const answered = await ok(['patch', 'configmap', 'dry', '--type=merge', '-p', '{"data":{"a":"2"}}', '--dry-run=server', '-o', 'jsonpath={.data}']);
    expect(JSON.parse(answered)).toEqual({ a: '2' });
    expect(JSON.parse(await ok(['get', 'configmap', 'dry', '-o', 'jsonpath={.data}']))).toEqual({ a: '1' });
    expect(await ok(['apply', '--server-side', '--validate=false', '--dry-run=server', '-f', await configMap('dry-new', 'setup', { a: '1' })])).toContain(
      'configmap/dry-new serverside-applied (server dry run)',
    );
    const missing = await kubectl(['get', 'configmap', 'dry-new']);
    expect(missing.stderr).toContain('configmaps "dry-new" not found');
  });
});

describe('kubectl apply --server-side', () => {
  it("records the manager, refuses another manager's change to its field, and gives the field away with --force-conflicts", async () => {
    const first = await ok(['apply', '--server-side', '--validate=false', '-f', await configMap('applied', 'kubectl', { shared: 'x', mine: '1' })]);
    expect(first).toContain('configmap/applied serverside-applied');
    const conflicting = await configMap('applied', 'other', { shared: 'y', theirs: '2' });
    const refused = await kubectl(['apply', '--server-side', '--validate=false', '--field-manager=other', '-f', conflicting]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Apply failed with 2 conflicts: conflicts with "kubectl":');
    expect(refused.stderr).toContain('- .data.shared');
    expect(refused.stderr).toContain('- .metadata.labels.owner');
    expect(JSON.parse(await ok(['get', 'configmap', 'applied', '-o', 'jsonpath={.data}']))).toEqual({ shared: 'x', mine: '1' });

    await ok(['apply', '--server-side', '--validate=false', '--field-manager=other', '--force-conflicts', '-f', conflicting]);
    expect(JSON.parse(await ok(['get', 'configmap', 'applied', '-o', 'jsonpath={.data}']))).toEqual({ shared: 'y', mine: '1', theirs: '2' });
    const managed = JSON.parse(await ok(['get', 'configmap', 'applied', '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields}'])) as Array<{
      manager: string;
      operation: string;
      fieldsV1: { 'f:data'?: Record<string, unknown> };
    }>;
    const byManager = Object.fromEntries(managed.map((m) => [m.manager, { operation: m.operation, data: Object.keys(m.fieldsV1['f:data'] ?? {}).sort() }]));
    expect(byManager).toEqual({ kubectl: { operation: 'Apply', data: ['f:mine'] }, other: { operation: 'Apply', data: ['f:shared', 'f:theirs'] } });
  });

  it('applies a Deployment, and a second apply changes the container by name and drops the env it no longer sets', async () => {
    const deployment = (image: string, env: Array<{ name: string; value: string }>) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image, env }] } },
      },
    });
    const file = join(world.dir, 'web.json');
    await writeFile(
      file,
      JSON.stringify(
        deployment('nginx:1.27', [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ]),
      ),
    );
    expect(await ok(['apply', '--server-side', '--validate=false', '-f', file])).toContain('deployment.apps/web serverside-applied');
    await writeFile(file, JSON.stringify(deployment('nginx:1.28', [{ name: 'B', value: '2' }])));
    await ok(['apply', '--server-side', '--validate=false', '-f', file]);
    const container = JSON.parse(await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0]}'])) as {
      image: string;
      env: unknown[];
    };
    // The API server's defaults fill what the manifest leaves out (core/v1 defaults.go), as on a real cluster.
    expect(container).toEqual({
      name: 'web',
      image: 'nginx:1.28',
      env: [{ name: 'B', value: '2' }],
      imagePullPolicy: 'IfNotPresent',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    const pods = (await ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}'])).trim().split(' ');
    expect(pods).toEqual(['nginx:1.28', 'nginx:1.28']);
  });

  it('removes a field its manager stops applying, and lets the same value be co-owned without a conflict', async () => {
    await ok(['apply', '--server-side', '--validate=false', '-f', await configMap('pruned', 'kubectl', { keep: '1', drop: '2' })]);
    await ok(['apply', '--server-side', '--validate=false', '--field-manager=other', '-f', await configMap('pruned', 'kubectl', { keep: '1' })]);
    await ok(['apply', '--server-side', '--validate=false', '-f', await configMap('pruned', 'kubectl', {})]);
    // `keep` is still applied by `other`; `drop` had no other owner.
    expect(JSON.parse(await ok(['get', 'configmap', 'pruned', '-o', 'jsonpath={.data}']))).toEqual({ keep: '1' });
  });
});

describe('what kubectl reads about the cluster', () => {
  it('prints the control plane and CoreDNS in cluster-info, from the kubernetes and kube-dns Services', async () => {
    const out = await ok(['cluster-info']);
    const server = world.servedCluster('hybrid').url;
    expect(out).toContain(`Kubernetes control plane is running at ${server}`);
    expect(out).toContain(`CoreDNS is running at ${server}/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy`);
    expect((await ok(['get', 'service', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}'])).trim()).toBe('10.96.0.1');
    const endpoints = (await ok(['get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.subsets[0].addresses[*].ip}'])).trim().split(' ');
    const controlIps = (
      await ok(['get', 'nodes', '-l', 'node-role.kubernetes.io/control-plane', '-o', 'jsonpath={.items[*].status.addresses[?(@.type=="InternalIP")].address}'])
    )
      .trim()
      .split(' ');
    expect(endpoints.sort()).toEqual(controlIps.sort());
    expect(endpoints).toHaveLength(3);
  });

  it('answers yes to auth can-i for the admin certificate', async () => {
    expect((await ok(['auth', 'can-i', 'create', 'pods'])).trim()).toBe('yes');
    expect((await ok(['auth', 'can-i', 'delete', 'nodes'])).trim()).toBe('yes');
  });

  it('lists the events of the simulation: every node registered and became Ready', async () => {
    const ready = await ok([
      'get',
      'events',
      '-A',
      '--field-selector',
      'involvedObject.kind=Node,reason=NodeReady',
      '-o',
      'jsonpath={range .items[*]}{.involvedObject.name}{"\\n"}{end}',
    ]);
    expect(ready.trim().split('\n')).toHaveLength(8);
    const node = await nodeNamed('htz-worker-01');
    const reasons = await ok(['get', 'events', '--field-selector', `involvedObject.name=${node}`, '-o', 'jsonpath={.items[*].reason}']);
    expect(reasons.trim().split(' ')).toEqual(expect.arrayContaining(['Starting', 'RegisteredNode', 'NodeReady']));
    const scheduled = await ok(['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=Scheduled', '-o', 'jsonpath={.items[*].message}']);
    expect(scheduled).toMatch(/Successfully assigned kube-system\/coredns-\S+ to hybrid-/);
  });

  it('selects pods by spec.nodeName and refuses a field the API server does not index', async () => {
    const node = await nodeNamed('htz-worker-01');
    const pods = JSON.parse(await ok(['get', 'pods', '-A', '--field-selector', `spec.nodeName=${node}`, '-o', 'json'])) as {
      items: Array<{ spec: { nodeName: string } }>;
    };
    expect(pods.items.length).toBeGreaterThan(0);
    expect(pods.items.every((p) => p.spec.nodeName === node)).toBe(true);
    const all = JSON.parse(await ok(['get', 'pods', '-A', '-o', 'json'])) as { items: Array<{ spec: { nodeName?: string } }> };
    const others = JSON.parse(await ok(['get', 'pods', '-A', '--field-selector', `spec.nodeName!=${node},status.phase=Running`, '-o', 'json'])) as {
      items: unknown[];
    };
    expect(others.items.length).toBeLessThan(all.items.length);
    const refused = await kubectl(['get', 'pods', '-A', '--field-selector', 'spec.containers=x']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('field label not supported: spec.containers');
  });

  it("describes a node with the capacity of its machine type and allocatable less the kubelet's eviction reserve", async () => {
    // htz-worker is a Hetzner cpx42: 8 vCPUs, 16 GB, 320 GB disk.
    const node = await nodeNamed('htz-worker-01');
    const out = await ok(['describe', 'node', node]);
    expect(out).not.toContain('-9223372036854775808');
    expect(out).toMatch(/Capacity:\n\s+cpu:\s+8\n(?:.*\n)*?\s+memory:\s+16Gi\n\s+pods:\s+110/);
    expect(out).toMatch(/Allocatable:\n\s+cpu:\s+8\n(?:.*\n)*?\s+memory:\s+16284Mi\n/);
    expect(out).toContain(`HolderIdentity:  ${node}`);
    // t3.large: 2 vCPUs, 8 GiB.
    const aws = await nodeNamed('aws-worker-01');
    expect((await ok(['get', 'node', aws, '-o', 'jsonpath={.status.capacity.cpu} {.status.capacity.memory}'])).trim()).toBe('2 8388608Ki');
  });

  it('shows node leases renewed every 10 s while the kubelets run', async () => {
    const read = async () =>
      JSON.parse(await ok(['get', 'lease', '-n', 'kube-node-lease', '-o', 'json'])) as {
        items: Array<{ metadata: { name: string }; spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string } }>;
      };
    const before = await read();
    expect(before.items).toHaveLength(8);
    expect(before.items.every((l) => l.spec.holderIdentity === l.metadata.name && l.spec.leaseDurationSeconds === 40)).toBe(true);
    // The server runs 10 virtual seconds per second: 3 s later every lease was renewed at least twice.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = await read();
    for (const lease of after.items) {
      const was = before.items.find((l) => l.metadata.name === lease.metadata.name);
      expect(Date.parse(lease.spec.renewTime) - Date.parse(was?.spec.renewTime ?? '')).toBeGreaterThanOrEqual(20_000);
    }
    const node = await nodeNamed('aws-worker-01');
    const heartbeat = await ok(['get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].lastHeartbeatTime}']);
    const renewed = after.items.find((l) => l.metadata.name === node)?.spec.renewTime ?? '';
    // The node status is posted every 5 minutes when nothing changed; the lease is the fresher signal.
    expect(Date.parse(renewed) - Date.parse(heartbeat)).toBeLessThan(300_000);
    expect(Date.parse(renewed) - Date.parse(heartbeat)).toBeGreaterThanOrEqual(0);
  });

  it('gives objects RFC 4122 version 4 uids', async () => {
    const uids = (await ok(['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.uid}'])).trim().split(' ');
    expect(uids).toHaveLength(8);
    for (const uid of uids) expect(uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(uids).size).toBe(8);
  });
});

describe('kubectl scale and running pods', () => {
  it('scales a Deployment through its scale subresource, and the new pod runs with its container ready', async () => {
    expect(await ok(['scale', 'deployment', '-n', 'kube-system', 'coredns', '--replicas=3'])).toContain('deployment.apps/coredns scaled');
    const scale = JSON.parse(await ok(['get', '--raw', '/apis/apps/v1/namespaces/kube-system/deployments/coredns/scale'])) as {
      kind: string;
      spec: { replicas: number };
      status: { selector: string };
    };
    expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 3 }, status: { selector: 'k8s-app=kube-dns' } });
    // The pod the scale-up made starts on the virtual clock (10x); kubectl counts READY from its container statuses.
    await ok(['wait', '-n', 'kube-system', '--for=condition=Ready', 'pod', '-l', 'k8s-app=kube-dns', '--timeout=60s']);
    const pods = JSON.parse(await ok(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '-o', 'json'])) as {
      items: Array<{ status: { hostIP?: string; containerStatuses?: Array<{ ready: boolean }> } }>;
    };
    expect(pods.items).toHaveLength(3);
    for (const p of pods.items) {
      expect(p.status.containerStatuses?.length).toBe(1);
      expect(p.status.containerStatuses?.every((c) => c.ready)).toBe(true);
      expect(p.status.hostIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    }
  }, 180_000);
});
