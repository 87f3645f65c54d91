// The OpenAPI documents (Kubernetes' own for the cluster's minor) and field validation, read the way kubectl reads them.
import { describe, expect, it } from 'vitest';
import { openApi, openApiV2Document, openApiV3Document, openApiV3Index } from './openapi.js';
import { unknownFields, validateFields } from './openapi-validation.js';
import { ApiError, RESOURCES, type Json } from './store.js';

const VERSION = 'v1.32.1';

describe('OpenAPI documents', () => {
  it('indexes a v3 document for every served group-version at a hash-versioned URL that serves it', () => {
    const index = openApiV3Index(VERSION)['paths'] as Record<string, { serverRelativeURL: string }>;
    const expected = new Set(Object.values(RESOURCES).map((r) => (r.group ? `apis/${r.group}/${'version' in r ? r.version : 'v1'}` : 'api/v1')));
    for (const gv of expected) expect(Object.keys(index)).toContain(gv);
    // As a real server's index: the discovery documents' own entries too.
    expect(Object.keys(index)).toEqual(expect.arrayContaining(['api', 'apis', 'apis/apps', 'version']));
    for (const [path, entry] of Object.entries(index)) {
      expect(entry.serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/${path.replaceAll('.', '\\.')}\\?hash=[0-9A-F]{128}$`));
      const answer = openApi(entry.serverRelativeURL.split('?')[0] ?? '', 'application/json', VERSION);
      expect(answer?.status).toBe(200);
    }
  });

  it('describes every served kind with its group-version-kind, and its PATCH with fieldValidation and the patch types', () => {
    for (const [resource, spec] of Object.entries(RESOURCES)) {
      const version = 'version' in spec ? spec.version : 'v1';
      const doc = openApiV3Document(spec.group ? `apis/${spec.group}/${version}` : 'api/v1', VERSION) as {
        paths: Record<string, Json>;
        components: { schemas: Record<string, Json> };
      };
      const schema = Object.values(doc.components.schemas).find((s) =>
        ((s['x-kubernetes-group-version-kind'] as Json[] | undefined) ?? []).some(
          (g) => g['group'] === spec.group && g['version'] === version && g['kind'] === spec.kind,
        ),
      );
      expect(schema, resource).toBeDefined();
      expect((schema?.['properties'] as Json)['metadata']).toBeDefined();
      const item = Object.entries(doc.paths).find(([p]) => p.endsWith(`/${resource}/{name}`))?.[1] as Json | undefined;
      // A review is only ever created (no object path to patch).
      if (resource === 'selfsubjectaccessreviews' || resource === 'selfsubjectreviews') continue;
      if (!item) throw new Error(`no object path for ${resource}`);
      const patch = item['patch'] as { parameters: Array<{ name: string }>; requestBody: { content: Json }; 'x-kubernetes-group-version-kind': Json };
      expect(patch['x-kubernetes-group-version-kind']).toMatchObject({ group: spec.group, version, kind: spec.kind });
      expect(patch.parameters.map((p) => p.name)).toContain('fieldValidation');
      // Strategic merge patch is for built-in kinds only; a custom resource (cilium.io) takes merge patches.
      expect(Object.keys(patch.requestBody.content).includes('application/strategic-merge-patch+json')).toBe(spec.group !== 'cilium.io');
    }
  });

  it("is Kubernetes' own document for the minor: the pod template's containers are described to their leaves", () => {
    const doc = openApiV3Document('apis/apps/v1', 'v1.34.2') as { components: { schemas: Record<string, Json> } };
    const schemas = doc.components.schemas;
    const podSpec = schemas['io.k8s.api.core.v1.PodSpec']?.['properties'] as Record<string, Json>;
    expect(podSpec['containers']?.['items']).toEqual({ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' });
    const probe = (schemas['io.k8s.api.core.v1.Container']?.['properties'] as Record<string, Json>)['livenessProbe'];
    expect(probe).toMatchObject({ allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Probe' }] });
    expect((schemas['io.k8s.api.core.v1.HTTPGetAction']?.['properties'] as Json)['port']).toBeDefined();
    // A field added in a later minor is in that minor's document only (PodSpec.resources: 1.32).
    const older = openApiV2Document('v1.31.4') as { definitions: Record<string, Json> };
    const newer = openApiV2Document('v1.34.2') as { definitions: Record<string, Json> };
    expect((older.definitions['io.k8s.api.core.v1.PodSpec']?.['properties'] as Json)['resources']).toBeUndefined();
    expect((newer.definitions['io.k8s.api.core.v1.PodSpec']?.['properties'] as Json)['resources']).toBeDefined();
  });

  it('answers 406 to a client that accepts only the protobuf form of the document', () => {
    expect(openApi('/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', VERSION)?.status).toBe(406);
    expect(openApi('/openapi/v2', 'application/json', VERSION)?.status).toBe(200);
    expect(openApi('/openapi/v3/apis/nope/v1', null, VERSION)?.status).toBe(404);
    expect(openApi('/api/v1', null, VERSION)).toBeUndefined();
  });
});

describe('field validation', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { a: 'b' } },
    spec: {
      replicas: 1,
      foo: 1,
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', bar: true, resources: { limits: { cpu: '1' } } }] } },
    },
  };

  it('finds unknown fields along the schema, with list indexes, and keeps what it does not describe', () => {
    expect(unknownFields('deployments', deployment, false, VERSION)).toEqual(['spec.foo', 'spec.template.spec.containers[0].bar']);
    expect(unknownFields('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { k: 'v' }, extra: 1 }, false, VERSION)).toEqual([
      'extra',
    ]);
    // Kinds and sub-objects without a field-by-field schema keep unknown fields (a real server knows them).
    expect(unknownFields('ciliumclusterwidenetworkpolicies', { metadata: { name: 'p' }, spec: { anything: 1 } }, false, VERSION)).toEqual([]);
  });

  it('refuses them with Strict, as the API server words it, warns with Warn and ignores them with Ignore', () => {
    expect(() => validateFields('deployments', deployment, 'Strict', false, VERSION)).toThrow(ApiError);
    try {
      validateFields('deployments', deployment, 'Strict', false, VERSION);
    } catch (e) {
      expect((e as ApiError).status()).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message:
          'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo", unknown field "spec.template.spec.containers[0].bar"',
      });
    }
    expect(validateFields('deployments', deployment, 'Warn', false, VERSION)).toEqual([
      'unknown field "spec.foo"',
      'unknown field "spec.template.spec.containers[0].bar"',
    ]);
    expect(validateFields('deployments', deployment, 'Ignore', false, VERSION)).toEqual([]);
  });

  it("walks Kubernetes' own schema of the cluster's minor, to the leaves", () => {
    const probe = { ...deployment, spec: { ...deployment.spec, foo: undefined } };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i', livenessProbe: { httpGet: { port: 8080, pth: '/' } } }] },
    };
    expect(unknownFields('pods', pod, false, 'v1.34.2')).toEqual(['spec.containers[0].livenessProbe.httpGet.pth']);
    expect(unknownFields('deployments', JSON.parse(JSON.stringify(probe)), false, 'v1.34.2')).toEqual(['spec.template.spec.containers[0].bar']);
    // PodSpec.resources came in 1.32: a 1.31 server does not know it.
    const withResources = { ...pod, spec: { ...pod.spec, containers: [{ name: 'c', image: 'i' }], resources: { limits: { cpu: '1' } } } };
    expect(unknownFields('pods', withResources, false, 'v1.31.4')).toEqual(['spec.resources']);
    expect(unknownFields('pods', withResources, false, 'v1.34.2')).toEqual([]);
  });

  it('refuses a value of the wrong JSON type whatever the directive, as the JSON decoder words it', () => {
    const bad = { ...deployment, spec: { ...deployment.spec, foo: undefined, replicas: 'three' } };
    for (const directive of ['Strict', 'Warn', 'Ignore'] as const) {
      try {
        validateFields('deployments', JSON.parse(JSON.stringify(bad)), directive, false, 'v1.34.2');
        throw new Error('accepted');
      } catch (e) {
        expect((e as ApiError).status()).toMatchObject({
          code: 400,
          message:
            'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
        });
      }
    }
    // An int-or-string and a quantity take both.
    const ok = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            ports: [{ containerPort: 80 }],
            resources: { limits: { cpu: 1, memory: '1Gi' } },
            livenessProbe: { httpGet: { port: 'http' } },
          },
        ],
      },
    };
    expect(validateFields('pods', ok, 'Strict', false, 'v1.34.2')).toEqual([]);
  });

  it("skips a strategic merge patch's directives", () => {
    expect(
      unknownFields('deployments', { spec: { template: { spec: { $setElementOrder: [], containers: [{ name: 'c', $patch: 'delete' }] } } } }, true, VERSION),
    ).toEqual([]);
  });
});
