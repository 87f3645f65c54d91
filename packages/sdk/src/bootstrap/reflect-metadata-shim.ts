// @peculiar/x509 resolves its services through tsyringe, which refuses to load without the Reflect metadata API
// (normally the `reflect-metadata` package, not a dependency here). This defines the three functions tsyringe
// calls, only where no polyfill is present; import it before `@peculiar/x509`.
type MetadataTarget = object;

interface ReflectMetadataApi {
  getMetadata?: (key: unknown, target: MetadataTarget) => unknown;
  getOwnMetadata?: (key: unknown, target: MetadataTarget) => unknown;
  defineMetadata?: (key: unknown, value: unknown, target: MetadataTarget) => void;
}

const reflect = Reflect as typeof Reflect & ReflectMetadataApi;

if (typeof reflect.getMetadata !== 'function') {
  const store = new WeakMap<MetadataTarget, Map<unknown, unknown>>();
  const own = (key: unknown, target: MetadataTarget): unknown => store.get(target)?.get(key);
  reflect.getOwnMetadata = own;
  reflect.getMetadata = (key, target) => {
    for (let t: MetadataTarget | null = target; t !== null; t = Object.getPrototypeOf(t) as MetadataTarget | null) {
      const value = own(key, t);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  reflect.defineMetadata = (key, value, target) => {
    const map = store.get(target) ?? new Map<unknown, unknown>();
    map.set(key, value);
    store.set(target, map);
  };
}

export {};
