// The two ways vendors page a list: numbered pages (Hetzner's page/per_page, Cloudflare's) and opaque continuation
// tokens (EC2's NextToken, Route 53's markers, Google's pageToken, Azure's nextLink, OCI's opc-next-page).
import type { EmulatorError } from './error.js';

export interface NumberedPage<T> {
  items: T[];
  page: number;
  perPage: number;
  lastPage: number;
  total: number;
}

/** Page `page` (from 1) of `items`, `perPage` each; a page past the last is empty. */
export function numberedPage<T>(items: readonly T[], page: number, perPage: number): NumberedPage<T> {
  const size = Math.max(1, Math.floor(perPage));
  const current = Math.max(1, Math.floor(page));
  return {
    items: items.slice((current - 1) * size, current * size),
    page: current,
    perPage: size,
    lastPage: Math.max(1, Math.ceil(items.length / size)),
    total: items.length,
  };
}

/** A page size read from the query: the default when absent or not a number, then clamped to the vendor's bounds. */
export function pageSize(value: string | null, bounds: { default: number; min?: number; max: number }): number {
  const n = Number(value ?? bounds.default) || bounds.default;
  return Math.min(bounds.max, Math.max(bounds.min ?? 1, n));
}

export interface TokenPage<T> {
  items: T[];
  /** The token of the next page; undefined on the last. */
  next?: string;
}

/**
 * Up to `max` of `items` from where `token` left off. Tokens are opaque to the client and only this emulator reads
 * them; one not made by it is the vendor's invalid-token error (`invalid`).
 */
export function tokenPage<T>(items: readonly T[], token: string | null | undefined, max: number, invalid: () => EmulatorError): TokenPage<T> {
  let start = 0;
  if (token) {
    const decoded = /^o(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
    if (!decoded) throw invalid();
    start = Number(decoded[1]);
  }
  const end = start + Math.max(1, max);
  return { items: items.slice(start, end), ...(end < items.length ? { next: Buffer.from(`o${end}`).toString('base64url') } : {}) };
}
