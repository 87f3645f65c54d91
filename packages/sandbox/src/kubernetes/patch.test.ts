// The three PATCH bodies the API server accepts, checked against the examples of their specifications.
import { describe, expect, it } from 'vitest';
import { jsonPatch } from './patch-json.js';
import { mergePatch, strategicMergePatch } from './patch-strategic.js';
import { ApiError } from './store.js';

function refused(f: () => unknown): ApiError {
  try {
    f();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the patch to be refused');
}

describe('JSON patch (RFC 6902)', () => {
  it('adds into objects and arrays, `-` appending (RFC 6902 A.1, A.2, A.16)', () => {
    expect(
      jsonPatch({ foo: ['bar', 'baz'] }, [
        { op: 'add', path: '/foo/1', value: 'qux' },
        { op: 'add', path: '/foo/-', value: 'end' },
        { op: 'add', path: '/baz', value: 'x' },
      ]),
    ).toEqual({ foo: ['bar', 'qux', 'baz', 'end'], baz: 'x' });
  });

  it('removes, replaces, moves and copies', () => {
    const doc = { a: { b: 1, c: [1, 2, 3] }, d: 'x' };
    expect(
      jsonPatch(doc, [
        { op: 'remove', path: '/a/c/0' },
        { op: 'replace', path: '/d', value: 'y' },
        { op: 'move', from: '/a/b', path: '/e' },
        { op: 'copy', from: '/e', path: '/a/f' },
      ]),
    ).toEqual({ a: { c: [2, 3], f: 1 }, d: 'y', e: 1 });
    expect(doc).toEqual({ a: { b: 1, c: [1, 2, 3] }, d: 'x' });
  });

  it('unescapes ~1 and ~0 in pointers (RFC 6901 §4): annotation keys with slashes', () => {
    expect(
      jsonPatch({ metadata: { annotations: { 'a/b': '1', 'c~d': '2' } } }, [
        { op: 'remove', path: '/metadata/annotations/a~1b' },
        { op: 'replace', path: '/metadata/annotations/c~0d', value: '3' },
      ]),
    ).toEqual({ metadata: { annotations: { 'c~d': '3' } } });
  });

  it('compares by value in test, objects regardless of member order (RFC 6902 §4.6)', () => {
    expect(jsonPatch({ a: { x: 1, y: [1, { z: 2 }] } }, [{ op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } }])).toEqual({
      a: { x: 1, y: [1, { z: 2 }] },
    });
    expect(refused(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: '1' }])).code).toBe(422);
  });

  it('fails the whole patch as 422 when a path is missing, a remove target is absent or an index is out of range', () => {
    for (const op of [
      { op: 'replace', path: '/nope', value: 1 },
      { op: 'remove', path: '/nope' },
      { op: 'add', path: '/a/5', value: 1 },
      { op: 'add', path: '/x/y', value: 1 },
      { op: 'move', from: '/a', path: '/a/0' },
    ]) {
      const error = refused(() => jsonPatch({ a: [1] }, [op]));
      expect(error.code, JSON.stringify(op)).toBe(422);
      expect(error.reason).toBe('Invalid');
    }
  });

  it('refuses a body that is not a list of operations as a bad request', () => {
    expect(refused(() => jsonPatch({}, { op: 'add' })).code).toBe(400);
  });
});

describe('merge patch (RFC 7386)', () => {
  it('merges objects, deletes on null and replaces arrays (RFC 7386 appendix A)', () => {
    expect(mergePatch({ a: 'b', c: { d: 'e', f: 'g' }, l: [1, 2] }, { a: 'z', c: { f: null }, l: [3] })).toEqual({ a: 'z', c: { d: 'e' }, l: [3] });
  });
});

describe('strategic merge patch', () => {
  const pod = {
    spec: {
      containers: [
        { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80, name: 'http' }] },
        { name: 'side', image: 'side:1' },
      ],
      tolerations: [{ key: 'a', operator: 'Exists' }],
    },
  };

  it('merges containers by name, env by name and container ports by containerPort', () => {
    const out = strategicMergePatch(pod, {
      spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
    });
    expect(out).toMatchObject({
      spec: {
        containers: [
          {
            name: 'app',
            image: 'app:1',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }],
          },
          { name: 'side', image: 'side:1' },
        ],
      },
    });
  });

  it('replaces lists without a merge strategy (tolerations) whole', () => {
    expect(strategicMergePatch(pod, { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } })).toMatchObject({
      spec: { tolerations: [{ key: 'b', operator: 'Exists' }] },
    });
  });

  it('deletes a list item with $patch: delete and drops a list left empty', () => {
    const out = strategicMergePatch(pod, {
      spec: {
        containers: [
          { name: 'side', $patch: 'delete' },
          { name: 'app', env: [{ name: 'A', $patch: 'delete' }] },
        ],
      },
    }) as typeof pod;
    expect(out.spec.containers.map((c) => c.name)).toEqual(['app']);
    expect(out.spec.containers[0]).not.toHaveProperty('env');
  });

  it('replaces a map with $patch: replace and keeps only $retainKeys', () => {
    expect(
      strategicMergePatch(
        { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
        { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      ),
    ).toEqual({ spec: { strategy: { type: 'Recreate' } } });
    expect(strategicMergePatch({ metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { $patch: 'replace', c: '3' } } })).toEqual({
      metadata: { labels: { c: '3' } },
    });
  });

  it('merges conditions by type and finalizers as a set, deleting from it with $deleteFromPrimitiveList', () => {
    const out = strategicMergePatch(
      {
        metadata: { finalizers: ['a', 'b'] },
        status: {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'PodScheduled', status: 'True' },
          ],
        },
      },
      { metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['a'] }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    );
    expect(out).toEqual({
      metadata: { finalizers: ['b', 'c'] },
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'PodScheduled', status: 'True' },
        ],
      },
    });
  });

  it('refuses an item of a merged list without its merge key', () => {
    expect(refused(() => strategicMergePatch(pod, { spec: { containers: [{ image: 'x' }] } })).code).toBe(400);
  });
});
