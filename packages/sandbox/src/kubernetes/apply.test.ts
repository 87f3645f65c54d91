// Field ownership: server-side apply between managers, and the Update entries other writes leave.
import { describe, expect, it } from 'vitest';
import { recordUpdate, serverSideApply } from './apply.js';
import { ApiError, type KubeObject } from './store.js';

const at = Date.parse('2026-01-01T00:00:00Z');

function cm(data: Record<string, string>, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', labels }, data };
}

function apply(current: KubeObject | null, applied: KubeObject, manager: string, force = false): KubeObject {
  return serverSideApply(current, applied, { manager, force, apiVersion: 'v1', nowMs: at });
}

function owners(o: KubeObject): Record<string, string[]> {
  const entries = o.metadata['managedFields'] as Array<{ manager: string; operation: string; fieldsV1: { 'f:data'?: Record<string, unknown> } }>;
  return Object.fromEntries(entries.map((e) => [`${e.manager}/${e.operation}`, Object.keys(e.fieldsV1['f:data'] ?? {}).sort()]));
}

describe('server-side apply', () => {
  it('records the applier as the owner of the fields it applied, in fieldsV1', () => {
    const created = apply(null, cm({ a: '1' }, { app: 'x' }), 'tool');
    expect(created.metadata['managedFields']).toEqual([
      {
        manager: 'tool',
        operation: 'Apply',
        apiVersion: 'v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      },
    ]);
  });

  it('is a 409 naming the other manager and the field when the value differs; co-owns when it is equal', () => {
    const one = apply(null, cm({ a: '1', b: '2' }), 'one');
    let error: unknown;
    try {
      apply(one, cm({ a: 'changed' }), 'two');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe(409);
    expect((error as ApiError).message).toBe('Apply failed with 1 conflict: conflict with "one": .data.a');
    expect(owners(apply(one, cm({ b: '2' }), 'two'))).toEqual({ 'one/Apply': ['f:a', 'f:b'], 'two/Apply': ['f:b'] });
  });

  it('moves a forced field to the new manager and keeps the rest with the old one', () => {
    const forced = apply(apply(null, cm({ a: '1', b: '2' }), 'one'), cm({ a: 'changed' }), 'two', true);
    expect(forced['data']).toEqual({ a: 'changed', b: '2' });
    expect(owners(forced)).toEqual({ 'one/Apply': ['f:b'], 'two/Apply': ['f:a'] });
  });

  it('removes a field its manager no longer applies unless another manager owns it', () => {
    const both = apply(apply(null, cm({ a: '1', b: '2' }), 'one'), cm({ b: '2' }), 'two');
    expect(apply(both, cm({}), 'one')['data']).toEqual({ b: '2' });
  });

  it('names an Update manager with its version and time in a conflict', () => {
    const updated = cm({ a: '2' });
    recordUpdate(cm({ a: '1' }), updated, 'kubectl-edit', 'v1', at);
    expect(() => apply(updated, cm({ a: '3' }), 'tool')).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1 at 2026-01-01T00:00:00Z: .data.a',
    );
  });
});

describe('updates', () => {
  it('give the writer the fields it changed and take them from their previous owners', () => {
    const applied = apply(null, cm({ a: '1', b: '2' }), 'one');
    const next = { ...applied, data: { a: '1', b: 'patched' } };
    recordUpdate(applied, next, 'kubectl-patch', 'v1', at);
    expect(owners(next)).toEqual({ 'one/Apply': ['f:a'], 'kubectl-patch/Update': ['f:b'] });
  });

  it('clear the ownership when a client sends managedFields: [{}]', () => {
    const applied = apply(null, cm({ a: '1' }), 'one');
    const next = { ...applied, metadata: { ...applied.metadata, managedFields: [{}] } };
    recordUpdate(applied, next, 'x', 'v1', at);
    expect(next.metadata['managedFields']).toEqual([]);
  });
});
