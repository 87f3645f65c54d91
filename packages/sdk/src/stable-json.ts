// A leaf: JSON whose text does not depend on the order keys were written in, for comparing and hashing values.

/** JSON with sorted keys, so two equal objects written in a different order compare equal. */
export function stableJson(value: unknown): string {
  return (
    JSON.stringify(value, (_k, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
        : v,
    ) ?? 'undefined'
  );
}
