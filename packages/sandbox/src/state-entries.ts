// Emulator state as plain data: maps travel in snapshots as arrays of entries, and come back with `refill`.

/** Replaces the contents of `map` with `entries` (already copies: the caller cloned the state). */
export function refill<K, V>(map: Map<K, V>, entries: Array<[K, V]>): void {
  map.clear();
  for (const [k, v] of entries) map.set(k, v);
}
