// The OpenAPI documents and field validation generated from the served kinds, read the way kubectl reads them.
import { describe, expect, it } from 'vitest';
import { openApi, openApiV3Document, openApiV3Index } from './openapi.js';
import { unknownFields, validateFields } from './openapi-validation.js';
import { ApiError, RESOURCES, type Json } from './store.js';

const VERSION = 'v1.32.1';

describe('OpenAPI documents', () => {
  it('indexes a v3 document for every served group-version at a hash-versioned URL that serves it', () => {
    const index = openApiV3Index(VERSION)['paths'] as Record<string, { serverRelativeURL: string }>;
    const expected = new Set(Object.values(RESOURCES).map((r) => (r.group ? `apis/${r.group}/${'version' in r ? r.version : 'v1'}` : 'api/v1')));
    expect(new Set(Object.keys(index))).toEqual(expected);
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
      const schema = Object.values(doc.components.schemas).find(
        (s) => JSON.stringify(s['x-kubernetes-group-version-kind']) === JSON.stringify([{ group: spec.group, version, kind: spec.kind }]),
      );
      expect(schema, resource).toBeDefined();
      expect((schema?.['properties'] as Json)['metadata']).toBeDefined();
      const item = Object.entries(doc.paths).find(([p]) => p.endsWith(`/${resource}/{name}`))?.[1] as Json;
      const patch = item['patch'] as { parameters: Array<{ name: string }>; requestBody: { content: Json }; 'x-kubernetes-group-version-kind': Json };
      expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: spec.group, version, kind: spec.kind });
      expect(patch.parameters.map((p) => p.name)).toContain('fieldValidation');
      // Strategic merge patch is for built-in kinds only; a custom resource (cilium.io) takes merge patches.
      expect(Object.keys(patch.requestBody.content).includes('application/strategic-merge-patch+json')).toBe(spec.group !== 'cilium.io');
    }
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
    expect(unknownFields('deployments', deployment)).toEqual(['spec.foo', 'spec.template.spec.containers[0].bar']);
    expect(unknownFields('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { k: 'v' }, extra: 1 })).toEqual(['extra']);
    // Kinds and sub-objects without a field-by-field schema keep unknown fields (a real server knows them).
    expect(unknownFields('ciliumclusterwidenetworkpolicies', { metadata: { name: 'p' }, spec: { anything: 1 } })).toEqual([]);
  });

  it('refuses them with Strict, as the API server words it, warns with Warn and ignores them with Ignore', () => {
    expect(() => validateFields('deployments', deployment, 'Strict')).toThrow(ApiError);
    try {
      validateFields('deployments', deployment, 'Strict');
    } catch (e) {
      expect((e as ApiError).status()).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message:
          'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo", unknown field "spec.template.spec.containers[0].bar"',
      });
    }
    expect(validateFields('deployments', deployment, 'Warn')).toEqual(['unknown field "spec.foo"', 'unknown field "spec.template.spec.containers[0].bar"']);
    expect(validateFields('deployments', deployment, 'Ignore')).toEqual([]);
  });

  it("skips a strategic merge patch's directives", () => {
    expect(
      unknownFields('deployments', { spec: { template: { spec: { $setElementOrder: [], containers: [{ name: 'c', $patch: 'delete' }] } } } }, true),
    ).toEqual([]);
  });
});
