// The resources an emulator keeps: named collections (Maps, so tests read them as before) and id counters, with one
// state/restore for snapshots and one inventory. A collection absent from a saved state restores empty, so a cloud that
// learns a new kind of resource needs no snapshot format change.
import type { InventoryItem } from '../inventory.js';
import type { EmulatorError } from './error.js';

export interface CollectionOptions<V> {
  /** The resource as the sandbox's inventory lists it (undefined: not listed, as a cloud's own defaults). */
  inventory?: (value: V) => InventoryItem | undefined;
}

export class Collection<K, V> extends Map<K, V> {
  constructor(
    readonly kind: string,
    readonly options: CollectionOptions<V> = {},
  ) {
    super();
  }

  /** The value with this id, or the error `missing` makes (the vendor's not-found). */
  require(id: K, missing: () => EmulatorError): V {
    const value = this.get(id);
    if (value === undefined) throw missing();
    return value;
  }

  find(predicate: (value: V) => boolean): V | undefined {
    for (const v of this.values()) if (predicate(v)) return v;
    return undefined;
  }

  filter(predicate: (value: V) => boolean): V[] {
    return [...this.values()].filter(predicate);
  }

  /** Replaces the contents with `entries`. */
  refill(entries: Iterable<[K, V]>): void {
    this.clear();
    for (const [k, v] of entries) this.set(k, v);
  }
}

/** A monotonic counter (ids, sequence numbers), part of the store's state. */
export class Counter {
  constructor(public value: number) {}

  next(): number {
    this.value += 1;
    return this.value;
  }
}

/** Everything a store keeps, as plain data: collections as entry lists, counters as numbers. */
export interface StoreState {
  collections: Record<string, Array<[unknown, unknown]>>;
  counters: Record<string, number>;
}

export class ResourceStore {
  readonly #collections = new Map<string, Collection<unknown, unknown>>();
  readonly #counters = new Map<string, { counter: Counter; initial: number }>();

  /** A new collection under `name` (its key in the state). */
  collection<K, V>(name: string, options: CollectionOptions<V> & { kind?: string } = {}): Collection<K, V> {
    if (this.#collections.has(name)) throw new Error(`collection ${name} is defined twice`);
    const collection = new Collection<K, V>(options.kind ?? name, options);
    this.#collections.set(name, collection as Collection<unknown, unknown>);
    return collection;
  }

  counter(name: string, initial = 0): Counter {
    if (this.#counters.has(name)) throw new Error(`counter ${name} is defined twice`);
    const counter = new Counter(initial);
    this.#counters.set(name, { counter, initial });
    return counter;
  }

  /** A deep copy of every collection and counter. */
  state(): StoreState {
    return structuredClone({
      collections: Object.fromEntries([...this.#collections].map(([name, c]) => [name, [...c.entries()]])),
      counters: Object.fromEntries([...this.#counters].map(([name, { counter }]) => [name, counter.value])),
    });
  }

  /** Replaces everything with a copy of `state`; what it does not name starts empty (collections) or afresh (counters). */
  restore(state: StoreState): void {
    const s = structuredClone(state);
    for (const [name, c] of this.#collections) c.refill(s.collections[name] ?? []);
    for (const [name, { counter, initial }] of this.#counters) counter.value = s.counters[name] ?? initial;
  }

  /** The inventory items of every collection that lists its resources, in the order the collections were made. */
  inventory(): InventoryItem[] {
    const items: InventoryItem[] = [];
    for (const c of this.#collections.values()) {
      const toItem = c.options.inventory;
      if (!toItem) continue;
      for (const v of c.values()) {
        const item = toItem(v);
        if (item) items.push(item);
      }
    }
    return items;
  }
}
