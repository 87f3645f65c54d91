// Kubernetes resource quantities (apimachinery pkg/api/resource/quantity.go): a decimal number with an optional
// binary suffix (Ki, Mi, Gi, Ti, Pi, Ei), decimal suffix (n, u, m, k, M, G, T, P, E) or decimal exponent (e3, E-2).
// Values here are in base units (cores for cpu, bytes for memory, a count otherwise); the scheduler compares cpu in
// millicores, rounded up as Quantity.MilliValue does.

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const FORM = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

export class QuantityError extends Error {}

/** A quantity's value in base units; throws QuantityError (with the API server's wording) for a malformed one. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = FORM.exec(q.trim());
  if (!m) throw new QuantityError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  const n = Number(m[1]);
  const suffix = m[2] ?? '';
  if (BINARY[suffix] !== undefined) return n * BINARY[suffix];
  if (DECIMAL[suffix] !== undefined) return n * DECIMAL[suffix];
  return n * 10 ** Number(suffix.slice(1));
}

/** Millicores (or milli-units), rounded up. */
export function milliValue(q: string | number): number {
  return Math.ceil(parseQuantity(q) * 1000 - 1e-9);
}
