import { describe, expect, it } from 'vitest';
import { page, sorted } from './listing.js';

const items = [
  { id: 3, name: 'b', created: '2026-01-01T00:00:03Z' },
  { id: 1, name: 'c', created: '2026-01-01T00:00:01Z' },
  { id: 2, name: 'b', created: '2026-01-01T00:00:02Z' },
];
const q = (...sort: string[]) => new URLSearchParams(sort.map((s): [string, string] => ['sort', s]));
const ids = (list: Array<Record<string, unknown>>) => list.map((i) => i['id']);

describe('Hetzner list sorting and pagination', () => {
  it('orders by id without sort, and by the fields asked for, each ascending or descending', () => {
    expect(ids(sorted(items, q(), ['id', 'name', 'created']))).toEqual([1, 2, 3]);
    expect(ids(sorted(items, q('name'), ['id', 'name', 'created']))).toEqual([2, 3, 1]);
    expect(ids(sorted(items, q('name:desc', 'created:desc'), ['id', 'name', 'created']))).toEqual([1, 3, 2]);
    expect(ids(sorted(items, q('id:desc'), ['id', 'name', 'created']))).toEqual([3, 2, 1]);
  });

  it('refuses a field the endpoint does not document, and ignores sort where none is documented', () => {
    expect(() => sorted(items, q('status'), ['id', 'name'])).toThrow(expect.objectContaining({ status: 400, code: 'invalid_input' }));
    expect(() => sorted(items, q('name:up'), ['id', 'name'])).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    expect(ids(sorted(items, q('name:desc'), undefined))).toEqual([1, 2, 3]);
  });

  it('pages at most 50 per page with the pagination meta', () => {
    const all = Array.from({ length: 60 }, (_, i) => i);
    expect(page('x', all, new URLSearchParams({ per_page: '100', page: '2' }))).toEqual({
      x: all.slice(50),
      meta: { pagination: { page: 2, per_page: 50, previous_page: 1, next_page: null, last_page: 2, total_entries: 60 } },
    });
  });
});
