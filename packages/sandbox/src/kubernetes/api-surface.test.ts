// The API server's own surface as clients read it over HTTP: /version, the /status subresources, pods/log for
// containers that never ran, and field validation (with server-side dry run) against Kubernetes' own schema.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { RenderContext, RenderedCluster } from '@kubeplane/sdk/internal';
import { KubernetesEmulator } from './emulator.js';
import { FakeVms, publicAddresses, RENDER_NOW, renderGolden, sandboxContext } from './fixture.js';
import { validateEnums } from './openapi-validation.js';
import type { ApiError } from './store.js';
import { versionInfo } from './version-info.js';

const S = 1000;
const API = 'https://api.hybrid.example.com:6443';

let ctx: RenderContext;
let rendered: RenderedCluster;
const server = setupServer();

beforeAll(async () => {
  ({ ctx, rendered } = await renderGolden());
  server.listen({ onUnhandledRequest: 'error' });
});

afterAll(() => server.close());

function world(): { clock: VirtualClock; emulator: KubernetesEmulator } {
  const clock = new VirtualClock(RENDER_NOW.getTime());
  const vms = new FakeVms(clock, publicAddresses(ctx.cluster));
  const emulator = new KubernetesEmulator(sandboxContext(clock), { vms });
  server.resetHandlers(...emulator.handlers());
  for (const n of rendered.nodes) vms.run(n);
  clock.advance(300 * S);
  return { clock, emulator };
}

type Body = Record<string, unknown>;

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: Body; text: string; headers: Headers }> {
  const res = await fetch(`${API}${path}`, {
    method,
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': contentType } } : {}),
  });
  const text = await res.text();
  let parsed: Body = {};
  try {
    parsed = JSON.parse(text) as Body;
  } catch {
    // a log answer is plain text
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

const deployment = (name: string, extra: Body = {}): Body => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ...extra }] } },
  },
});

describe('/version', () => {
  it('answers every field of version.Info, as the Python client requires them', async () => {
    world();
    const { status, body } = await call('GET', '/version');
    expect(status).toBe(200);
    for (const field of ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'])
      expect(body[field], field).toEqual(expect.any(String));
    expect(body['gitCommit']).toMatch(/^[0-9a-f]{40}$/);
    expect(body['buildDate']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(body).toMatchObject({ compiler: 'gc', platform: 'linux/amd64', gitTreeState: 'clean' });
  });

  it('names the Go release of the build and, from 1.33 on, the emulation and minimum compatibility versions', () => {
    expect(versionInfo('v1.34.2')).toMatchObject({
      major: '1',
      minor: '34',
      gitVersion: 'v1.34.2',
      goVersion: 'go1.24.9',
      emulationMajor: '1',
      emulationMinor: '34',
      minCompatibilityMajor: '1',
      minCompatibilityMinor: '33',
    });
    expect(versionInfo('v1.32.1')).not.toHaveProperty('emulationMinor');
    expect(versionInfo('1.33.4-cmk.15')).toMatchObject({ gitVersion: 'v1.33.4', minor: '33' });
  });
});

describe('impersonation', () => {
  it('is refused in the sandbox words: RBAC is not enforced, so the answer to another user would be the admin one', async () => {
    world();
    const res = await fetch(`${API}/api/v1/namespaces/default/pods`, { headers: { 'Impersonate-User': 'system:serviceaccount:default:robot' } });
    expect(res.status).toBe(403);
    const status = (await res.json()) as Body;
    expect(status).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(String(status['message'])).toContain('impersonation ("system:serviceaccount:default:robot") is not modelled by the sandbox');
    expect((await call('GET', '/api/v1/namespaces/default/pods')).status).toBe(200);
  });
});

describe('/status subresources', () => {
  it('read the object, and a write there changes its status and nothing else', async () => {
    world();
    await call('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('web'));
    const read = await call('GET', '/apis/apps/v1/namespaces/default/deployments/web/status');
    expect(read.status).toBe(200);
    expect(read.body['kind']).toBe('Deployment');
    const patched = await call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web/status',
      { spec: { replicas: 5 }, status: { observedGeneration: 7 } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
    expect((patched.body['spec'] as Body)['replicas']).toBe(1);
    expect((patched.body['status'] as Body)['observedGeneration']).toBe(7);
  });

  it('PUT takes the whole object and keeps its spec; a stale resourceVersion is a conflict', async () => {
    world();
    await call('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    const pod = (await call('GET', '/api/v1/namespaces/default/pods/p')).body as { metadata: Body; spec: Body };
    const put = await call('PUT', '/api/v1/namespaces/default/pods/p/status', {
      ...pod,
      spec: { containers: [{ name: 'other', image: 'x' }] },
      status: { phase: 'Pending', message: 'set by a client' },
    });
    expect(put.status).toBe(200);
    expect((put.body['status'] as Body)['message']).toBe('set by a client');
    expect(((put.body['spec'] as Body)['containers'] as Body[])[0]?.['name']).toBe('c');
    const stale = await call('PUT', '/api/v1/namespaces/default/pods/p/status', { ...pod, status: {} });
    expect(stale.status).toBe(409);
  });

  it('are served for a custom resource whose CRD declares one, and not for one whose CRD does not', async () => {
    world();
    const crd = (name: string, plural: string, status: boolean): Body => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.example.com` },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural, singular: name, kind: name[0]?.toUpperCase() + name.slice(1), listKind: `${name[0]?.toUpperCase()}${name.slice(1)}List` },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            ...(status ? { subresources: { status: {} } } : {}),
          },
        ],
      },
    });
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('widget', 'widgets', true))).status).toBe(201);
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('gadget', 'gadgets', false))).status).toBe(201);
    await call('POST', '/apis/example.com/v1/namespaces/default/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 1 },
    });
    const patched = await call(
      'PATCH',
      '/apis/example.com/v1/namespaces/default/widgets/w/status',
      { spec: { size: 2 }, status: { ready: true } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ spec: { size: 1 }, status: { ready: true } });
    await call('POST', '/apis/example.com/v1/namespaces/default/gadgets', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } });
    expect((await call('GET', '/apis/example.com/v1/namespaces/default/gadgets/g/status')).status).toBe(404);
  });

  it('take server-side apply with field ownership: a status field another applier owns is a conflict, one no longer applied goes', async () => {
    world();
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            subresources: { status: {} },
          },
        ],
      },
    };
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    await call('POST', '/apis/example.com/v1/namespaces/default/gizmos?fieldManager=maker', {
      apiVersion: 'example.com/v1',
      kind: 'Gizmo',
      metadata: { name: 'g' },
      spec: { size: 1 },
    });
    const path = '/apis/example.com/v1/namespaces/default/gizmos/g/status';
    const apply = (manager: string, status: Body, force = false) =>
      call(
        'PATCH',
        `${path}?fieldManager=${manager}${force ? '&force=true' : ''}`,
        { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g' }, status },
        'application/apply-patch+yaml',
      );
    const first = await apply('operator', { phase: 'Ready', observed: 1 });
    expect(first.status).toBe(200);
    expect(first.body['status']).toEqual({ phase: 'Ready', observed: 1 });
    const entries = (first.body['metadata'] as { managedFields: Body[] }).managedFields;
    expect(entries.find((e) => e['manager'] === 'operator')).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:phase': {}, 'f:observed': {} } },
    });
    expect(entries.find((e) => e['manager'] === 'maker')).toMatchObject({ operation: 'Update' });
    // The operator stops applying `observed`: it goes (a merge patch would have kept it).
    expect((await apply('operator', { phase: 'Ready' })).body['status']).toEqual({ phase: 'Ready' });
    // Another applier changing the operator's field is refused, unless it forces.
    const conflict = await apply('other', { phase: 'Broken' });
    expect(conflict.status).toBe(409);
    expect(conflict.body['message']).toBe('Apply failed with 1 conflict: conflict with "operator": .status.phase');
    expect((await apply('other', { phase: 'Broken' }, true)).body['status']).toEqual({ phase: 'Broken' });
    expect((await call('GET', '/apis/example.com/v1/namespaces/default/gizmos/g')).body['spec']).toEqual({ size: 1 });
    // A write to the main resource keeps the status's entries.
    await call('PATCH', '/apis/example.com/v1/namespaces/default/gizmos/g?fieldManager=maker', { spec: { size: 2 } }, 'application/merge-patch+json');
    const after = (await call('GET', path)).body['metadata'] as { managedFields: Body[] };
    expect(after.managedFields.filter((e) => e['subresource'] === 'status').map((e) => e['manager'])).toEqual(['other']);
  });

  it('are served for kinds that have one only: a ConfigMap has no status', async () => {
    world();
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' } });
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/c/status')).status).toBe(404);
  });
});

describe('pods/log', () => {
  it('refuses a bound container that has not started, with the kubelet words, and streams nothing for an unbound pod', async () => {
    const { emulator } = world();
    const api = emulator.cluster('api.hybrid.example.com:6443');
    const node = api?.store.sortedList('nodes')[0]?.metadata.name ?? '';
    await call('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'bound' },
      spec: { nodeName: node, containers: [{ name: 'app', image: 'busybox' }] },
    });
    const waiting = await call('GET', '/api/v1/namespaces/default/pods/bound/log');
    expect(waiting.status).toBe(400);
    expect(waiting.body).toMatchObject({ reason: 'BadRequest', message: 'container "app" in pod "bound" is waiting to start: ContainerCreating' });
    await call('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'two' },
      spec: {
        nodeSelector: { nowhere: 'x' },
        containers: [
          { name: 'a', image: 'i' },
          { name: 'b', image: 'i' },
        ],
      },
    });
    const which = await call('GET', '/api/v1/namespaces/default/pods/two/log');
    expect(which.body['message']).toBe('a container name must be specified for pod two, choose one of: [a b]');
    expect((await call('GET', '/api/v1/namespaces/default/pods/two/log?container=zz')).body['message']).toBe('container zz is not valid for pod two');
    const unbound = await call('GET', '/api/v1/namespaces/default/pods/two/log?container=a');
    expect(unbound.status).toBe(200);
    expect(unbound.text).toBe('');
    expect((await call('GET', '/api/v1/namespaces/default/pods/none/log')).status).toBe(404);
  });
});

describe('field validation and server-side dry run', () => {
  it('refuses an unknown field with Strict, even in a dry run, and stores nothing', async () => {
    world();
    const typo = deployment('typo', { imagePullPolicyy: 'Always' });
    const refused = await call('POST', '/apis/apps/v1/namespaces/default/deployments?dryRun=All&fieldValidation=Strict', typo);
    expect(refused.status).toBe(400);
    expect(refused.body['message']).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolicyy"',
    );
    expect((await call('GET', '/apis/apps/v1/namespaces/default/deployments/typo')).status).toBe(404);
  });

  it('warns of it with Warn (the default) and refuses a value of the wrong type in a dry run too', async () => {
    world();
    const warned = await call('POST', '/apis/apps/v1/namespaces/default/deployments?dryRun=All', deployment('w', { imagePullPolicyy: 'Always' }));
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.template.spec.containers[0].imagePullPolicyy\\""');
    expect((await call('GET', '/apis/apps/v1/namespaces/default/deployments/w')).status).toBe(404);
    const wrongType = await call('POST', '/apis/apps/v1/namespaces/default/deployments?dryRun=All', deployment('t', { ports: [{ containerPort: '80' }] }));
    expect(wrongType.status).toBe(400);
    expect(wrongType.body['message']).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    );
  });

  it('refuses a server-side apply of an undeclared field as the field manager does: a 500 naming the path by list keys', async () => {
    world();
    const applied = await call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/ssa?fieldManager=kubectl&fieldValidation=Strict',
      deployment('ssa', { imagee: 'nginx' }),
      'application/apply-patch+yaml',
    );
    expect(applied.status).toBe(500);
    expect(applied.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'failed to create typed patch object (default/ssa; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="web"].imagee: field not declared in schema',
      code: 500,
    });
    expect((await call('GET', '/apis/apps/v1/namespaces/default/deployments/ssa')).status).toBe(404);
  });

  it('refuses a value outside its enum as the registry validation does (422, the group-qualified kind)', () => {
    const body = deployment('enum', { imagePullPolicy: 'Sometimes' });
    let error: unknown;
    try {
      validateEnums('deployments', body, 'enum', 'v1.34.2');
    } catch (e) {
      error = e;
    }
    expect((error as ApiError).status()).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'Deployment.apps "enum" is invalid: spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      details: {
        name: 'enum',
        group: 'apps',
        kind: 'Deployment',
        causes: [{ reason: 'FieldValueNotSupported', field: 'spec.template.spec.containers[0].imagePullPolicy' }],
      },
    });
    // An empty optional enum is unset, as the API server defaults it.
    expect(() => validateEnums('deployments', deployment('empty', { imagePullPolicy: '' }), 'empty', 'v1.34.2')).not.toThrow();
  });
});
