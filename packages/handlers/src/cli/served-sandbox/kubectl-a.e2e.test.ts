// kubectl 1.32 against a served cluster, TLS verification on, with no flags a real API server would not need:
// `apply -f` (validated against the served OpenAPI v3 documents and strict field validation), server-side Table
// output for `get`, watches for `get -w` and `wait`, protobuf bodies for `create configmap|deployment`, and `explain`.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireTool } from './test-support/tools.js';
import { useKubectlWorld } from './test-support/kubectl-world.js';

const served = useKubectlWorld('examples/hybrid-aws-hetzner.yaml', 'hybrid');
const kubectl = (...args: string[]) => served.kubectl(...args);

async function manifest(name: string, text: string): Promise<string> {
  const file = join(served.world.dir, name);
  await writeFile(file, text);
  return file;
}

/**
 * Runs a long-lived kubectl (a watch) until its output satisfies `done` or `timeoutMs` passes, calling `meanwhile`
 * once it has printed something or after 2 s (a watch on nothing prints nothing; what happens before kubectl lists is
 * in the list, what happens after in the watch); then kills it and returns its stdout.
 */
async function watching(args: string[], meanwhile: () => Promise<void>, done: (out: string) => boolean, timeoutMs = 30_000): Promise<string> {
  const bin = await requireTool('kubectl', 'kubernetes-client');
  const child = spawn(bin, ['--kubeconfig', served.kubeconfig, ...args], { env: served.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => resolve(), timeoutMs);
      let started = false;
      const start = () => {
        if (started) return;
        started = true;
        meanwhile().catch(reject);
      };
      const fallback = setTimeout(start, 2000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        clearTimeout(fallback);
        reject(new Error(`kubectl ${args.join(' ')} exited (${String(code)}) while watching:\n${out}${err}`));
      });
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString('utf8');
        start();
      });
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        start();
        if (done(out)) {
          clearTimeout(timer);
          clearTimeout(fallback);
          resolve();
        }
      });
    });
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
  return out;
}

const APP = (mode: string, replicas: number) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: default
data:
  mode: ${mode}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports:
        - containerPort: 80
`;

describe('kubectl apply against the served API', () => {
  it('creates a ConfigMap and a Deployment with `kubectl apply -f` and no flags, then updates both', async () => {
    const first = await kubectl('apply', '-f', await manifest('app-1.yaml', APP('one', 2)));
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('configmap/app-config created');
    expect(first.stdout).toContain('deployment.apps/app created');

    const second = await kubectl('apply', '-f', await manifest('app-2.yaml', APP('two', 3)));
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('configmap/app-config configured');
    expect(second.stdout).toContain('deployment.apps/app configured');
    expect((await kubectl('get', 'configmap', 'app-config', '-o', 'jsonpath={.data.mode}')).stdout).toBe('two');
    expect((await kubectl('get', 'deployment', 'app', '-o', 'jsonpath={.spec.replicas}')).stdout).toBe('3');

    const same = await kubectl('apply', '-f', await manifest('app-3.yaml', APP('two', 3)));
    expect(same.stdout).toContain('configmap/app-config unchanged');
  });

  it('refuses a manifest with unknown fields, naming each, as strict field validation does', async () => {
    const bad = APP('one', 1)
      .replace('name: app\n  namespace', 'name: bad\n  namespace')
      .replace('replicas: 1', 'replicas: 1\n  replicaz: 2')
      .replace('image: nginx:1.27', 'image: nginx:1.27\n        imagePullPolicee: Always');
    const run = await kubectl('apply', '-f', await manifest('bad.yaml', bad));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('unknown field "spec.replicaz"');
    expect(run.stderr).toContain('unknown field "spec.template.spec.containers[0].imagePullPolicee"');
    expect((await kubectl('get', 'deployment', 'bad')).code).not.toBe(0);
  });
});

describe('kubectl get with server-side Table output', () => {
  it('shows every node Ready and the control planes with the control-plane role', async () => {
    const run = await kubectl('get', 'nodes');
    expect(run.stderr).toBe('');
    const [header = '', ...rows] = run.stdout.trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(rows).toHaveLength(8);
    const cells = rows.map((r) => r.split(/\s+/));
    expect(cells.every((c) => c[1] === 'Ready')).toBe(true);
    expect(cells.filter((c) => c[2] === 'control-plane').map((c) => c[0])).toEqual([
      expect.stringMatching(/aws-control-01$/),
      expect.stringMatching(/aws-control-02$/),
      expect.stringMatching(/aws-control-03$/),
    ]);
    expect(cells.filter((c) => c[2] === '<none>')).toHaveLength(5);
    expect(cells.every((c) => /^v1\.\d+\.\d+$/.test(c[4] ?? ''))).toBe(true);
  });

  it("adds the wide columns with -o wide: each node's internal IP and its container runtime", async () => {
    const run = await kubectl('get', 'nodes', '-o', 'wide');
    const [header = '', ...rows] = run.stdout.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual([
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    const ips = JSON.parse((await kubectl('get', 'nodes', '-o', 'json')).stdout) as {
      items: Array<{ metadata: { name: string }; status: { addresses: Array<{ type: string; address: string }> } }>;
    };
    for (const node of ips.items) {
      const row = rows.find((r) => r.startsWith(`${node.metadata.name} `)) ?? '';
      expect(row.split(/\s+/)[5]).toBe(node.status.addresses.find((a) => a.type === 'InternalIP')?.address);
      expect(row).toMatch(/containerd:\/\/\S+$/);
    }
  });

  it('lists the pods and deployments of a namespace with `kubectl get all`, each with its own columns', async () => {
    const run = await kubectl('get', 'all', '-n', 'kube-system');
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
    expect(run.stdout).toMatch(/^pod\/cilium-\S+\s+\d+\/1\s+Running\s+0\s+\S+$/m);
    expect(run.stdout).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    expect(run.stdout).toMatch(/^deployment\.apps\/coredns\s+\d+\/\d+\s+\d+\s+\d+\s+\S+$/m);
  });

  it('lists ConfigMaps with their DATA count', async () => {
    const run = await kubectl('get', 'configmaps', '-n', 'kube-public');
    expect(run.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^NAME\s+DATA\s+AGE$/), expect.stringMatching(/^cluster-info\s+1\s+\S+$/)]);
  });
});

describe('kubectl watches', () => {
  it("waits for a node's Ready condition with `kubectl wait`", async () => {
    const node = (await kubectl('get', 'nodes', '-o', 'name')).stdout.trim().split('\n')[3] ?? '';
    const run = await kubectl('wait', '--for=condition=Ready', node, '--timeout=30s');
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(`${node} condition met`);
  });

  it('prints a ConfigMap created while `kubectl get configmaps -w` runs', async () => {
    const file = await manifest('watched.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched, namespace: kube-public}\ndata: {a: "1", b: "2"}\n');
    const out = await watching(
      ['get', 'configmaps', '-n', 'kube-public', '-w'],
      async () => {
        const created = await kubectl('apply', '-f', file);
        if (created.code !== 0) throw new Error(created.stderr);
      },
      (o) => /^watched\s+2\s/m.test(o),
    );
    expect(out).toMatch(/^NAME\s+DATA\s+AGE$/m);
    expect(out).toMatch(/^cluster-info\s+1\s/m);
    expect(out).toMatch(/^watched\s+2\s/m);
  });

  it('streams WatchEvents to `kubectl get --raw` from a resourceVersion, and refuses one the server has not reached', async () => {
    const listed = JSON.parse((await kubectl('get', '--raw', '/api/v1/namespaces/kube-public/configmaps')).stdout) as { metadata: { resourceVersion: string } };
    await kubectl('create', 'configmap', 'after-list', '-n', 'kube-public', '--from-literal=k=v');
    const run = await kubectl(
      'get',
      '--raw',
      `/api/v1/namespaces/kube-public/configmaps?watch=1&resourceVersion=${listed.metadata.resourceVersion}&timeoutSeconds=1`,
    );
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; object: { kind: string; metadata: { name: string } } });
    expect(events.map((e) => `${e.type} ${e.object.kind}/${e.object.metadata.name}`)).toEqual(['ADDED ConfigMap/after-list']);
    const ahead = await kubectl('get', '--raw', `/api/v1/configmaps?watch=1&resourceVersion=${Number(listed.metadata.resourceVersion) + 1_000_000}`);
    expect(ahead.code).not.toBe(0);
    expect(ahead.stderr).toContain('Too large resource version');
  });

  it('sees a pod the simulated kubelet starts on the virtual clock go from Pending to Running', async () => {
    const file = await manifest(
      'web.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n',
    );
    const out = await watching(
      ['get', 'pods', '-n', 'default', '-l', 'app=web', '-w', '--output-watch-events'],
      async () => {
        const created = await kubectl('apply', '-f', file);
        if (created.code !== 0) throw new Error(created.stderr);
      },
      (o) => /^MODIFIED\s+web-\S+\s+\S+\s+Running\s/m.test(o),
    );
    expect(out).toMatch(/^ADDED\s+web-\S+\s+\S+\s+Pending\s/m);
    expect(out).toMatch(/^MODIFIED\s+web-\S+\s+\S+\s+Running\s/m);
  });
});

describe('kubectl create and explain', () => {
  it('creates a ConfigMap with `kubectl create configmap` (a protobuf body)', async () => {
    const run = await kubectl('create', 'configmap', 'x', '--from-literal=a=b');
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('configmap/x created');
    expect((await kubectl('get', 'configmap', 'x', '-o', 'jsonpath={.data.a}')).stdout).toBe('b');
  });

  it('creates a Deployment with `kubectl create deployment`, zero replicas kept as zero', async () => {
    const run = await kubectl('create', 'deployment', 'idle', '--image=nginx:1.27', '--replicas=0', '--port=8080', '--', 'sleep', '3600');
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('deployment.apps/idle created');
    const spec = JSON.parse((await kubectl('get', 'deployment', 'idle', '-o', 'jsonpath={.spec}')).stdout) as {
      replicas: number;
      template: { spec: { containers: Array<Record<string, unknown>> } };
    };
    expect(spec.replicas).toBe(0);
    expect(spec.template.spec.containers[0]).toMatchObject({
      name: 'nginx',
      image: 'nginx:1.27',
      command: ['sleep', '3600'],
      ports: [{ containerPort: 8080 }],
    });
  });

  it('explains configmap.data from the served OpenAPI v3 document', async () => {
    const run = await kubectl('explain', 'configmap.data');
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/KIND:\s+ConfigMap/);
    expect(run.stdout).toMatch(/VERSION:\s+v1/);
    expect(run.stdout).toMatch(/FIELD:\s+data <map\[string\]string>/);
    expect(run.stdout).toContain('Data contains the configuration data.');
  });
});
