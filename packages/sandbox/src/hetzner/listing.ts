// List responses of the Hetzner Cloud API: `sort` (field, `:asc`/`:desc`, repeatable), then pagination with the
// `meta.pagination` object (https://docs.hetzner.cloud/reference/cloud#sorting, #pagination).
import { type Json, numberedPage, pageSize } from '../emulator/index.js';
import { invalidInput } from './dialect.js';

/**
 * The items in the order `sort` asks for. `sortable` lists the fields the endpoint documents (its `sort` enum in
 * hetzner-cloud-openapi.json); an endpoint that documents none ignores the parameter. The API's own order, by id, breaks
 * ties and applies without `sort`.
 */
export function sorted(items: Json[], query: URLSearchParams, sortable: readonly string[] | undefined): Json[] {
  const keys =
    sortable === undefined
      ? []
      : query
          .getAll('sort')
          .flatMap((s) => s.split(','))
          .filter(Boolean);
  const order = keys.map((k) => {
    const [field, direction = 'asc', ...rest] = k.split(':');
    if (!field || !sortable!.includes(field) || rest.length > 0 || (direction !== 'asc' && direction !== 'desc'))
      throw invalidInput('sort', `'${k}' is not a valid sort: one of ${sortable!.map((f) => `${f}, ${f}:asc, ${f}:desc`).join(', ')}`);
    return { field, sign: direction === 'desc' ? -1 : 1 };
  });
  order.push({ field: 'id', sign: 1 });
  const compare = (a: unknown, b: unknown): number => {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    return String(a ?? '').localeCompare(String(b ?? ''), 'en');
  };
  return [...items].sort((a, b) => {
    for (const { field, sign } of order) {
      const c = compare(a[field], b[field]);
      if (c !== 0) return c * sign;
    }
    return 0;
  });
}

/** One page of `items` under `key`, at most 50 per page (the API's cap), with the `meta.pagination` object. */
export function page(key: string, items: unknown[], query: URLSearchParams): Json {
  const p = numberedPage(items, Number(query.get('page') ?? 1) || 1, pageSize(query.get('per_page'), { default: 25, max: 50 }));
  return {
    [key]: p.items,
    meta: {
      pagination: {
        page: p.page,
        per_page: p.perPage,
        previous_page: p.page > 1 ? p.page - 1 : null,
        next_page: p.page < p.lastPage ? p.page + 1 : null,
        last_page: p.lastPage,
        total_entries: p.total,
      },
    },
  };
}
