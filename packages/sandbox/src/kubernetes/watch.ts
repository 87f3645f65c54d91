// Watches: each cluster's change log (every write to its store, by resourceVersion, as the API server's watch cache
// keeps it) and the streams `?watch=true` opens on it, newline-delimited JSON WatchEvents over a chunked response.
// Semantics: https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes and
// #semantics-for-watch; the too-old error and its wording: apiserver/pkg/storage/cacher/watch_cache.go.
import { kubernetesLabelSelector } from './cluster.js';
import { matchesFieldSelector, parseFieldSelector } from './field-selectors.js';
import { ApiError, clone, specOf, type Json, type KubeObject, type ObjectStore, type Resource, type StoreChange } from './store.js';
import { apiVersionOf, typed } from './typed.js';

/** Events kept per cluster; a watch from before the oldest gets 410 Expired and must list again (as after compaction). */
export const CHANGE_LOG_CAPACITY = 2000;

interface LoggedChange extends StoreChange {
  revision: number;
}

/** One cluster's recent writes, and the live subscribers that get each new one. */
export class ChangeLog {
  readonly #events: LoggedChange[] = [];
  readonly #subscribers = new Set<(change: LoggedChange) => void>();
  /** Every change after this revision is in the log. */
  #complete: number;
  /** The store's revision after the last change logged. */
  #last: number;
  readonly #store: ObjectStore;

  constructor(store: ObjectStore, capacity = CHANGE_LOG_CAPACITY) {
    this.#store = store;
    this.#complete = Number(store.revision);
    this.#last = this.#complete;
    store.onChange((change) => {
      const revision = Number(change.object.metadata.resourceVersion);
      // Each write moves the revision by one: the store stood at revision - 1 before this one.
      this.#resync(revision - 1);
      const logged: LoggedChange = { ...clone(change), revision };
      this.#last = revision;
      this.#events.push(logged);
      if (this.#events.length > capacity) this.#complete = this.#events.shift()?.revision ?? this.#complete;
      for (const s of this.#subscribers) s(logged);
    });
  }

  /**
   * A store restored from a snapshot moved its revision without changes to log: what the log holds no longer
   * describes it, so it starts again from there (a watch from before gets 410 and lists again).
   */
  #resync(now = Number(this.#store.revision)): void {
    if (now === this.#last) return;
    this.#events.length = 0;
    this.#complete = now;
    this.#last = now;
  }

  /** The changes after `revision`, or undefined when some of them are no longer kept. */
  since(revision: number): LoggedChange[] | undefined {
    this.#resync();
    if (revision < this.#complete) return undefined;
    return this.#events.filter((e) => e.revision > revision);
  }

  /** The oldest revision a watch can start from. */
  get oldest(): number {
    return this.#complete;
  }

  subscribe(listener: (change: LoggedChange) => void): () => void {
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }
}

const logs = new WeakMap<ObjectStore, ChangeLog>();

/** The store's change log, started on first use: watches can start from any revision after that. */
export function changeLog(store: ObjectStore): ChangeLog {
  let log = logs.get(store);
  if (!log) {
    log = new ChangeLog(store);
    logs.set(store, log);
  }
  return log;
}

/** `watch=true`, `watch=1`: strconv.ParseBool's true spellings, as the API server reads the parameter. */
export function isWatch(params: URLSearchParams): boolean {
  return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(params.get('watch') ?? '');
}

export interface WatchFilter {
  resource: Resource;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

const compiled = new WeakMap<WatchFilter, (o: KubeObject) => boolean>();

/**
 * Whether `o` passes the watch's selectors, with the list's own parsers (a watch selects what a list with the same
 * selectors would; the emulator lists first, so a malformed selector was refused before the stream started). Parsed
 * once per watch, not once per change.
 */
function matches(filter: WatchFilter, o: KubeObject): boolean {
  let test = compiled.get(filter);
  if (!test) {
    const labels = filter.labelSelector ? kubernetesLabelSelector(filter.labelSelector) : undefined;
    const fields = filter.fieldSelector ? parseFieldSelector(filter.resource, filter.fieldSelector) : undefined;
    test = (x) =>
      (filter.namespace === undefined || x.metadata.namespace === filter.namespace) &&
      (!labels || labels(x.metadata.labels ?? {})) &&
      (!fields || matchesFieldSelector(x, fields));
    compiled.set(filter, test);
  }
  return test(o);
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Json;
}

/**
 * What a watcher with `filter` sees of a change: an object that starts or stops matching a selector is ADDED or
 * DELETED for it, as the watch cache reports it (cacher.go, cacheWatcher.convertToWatchEvent).
 */
export function eventFor(filter: WatchFilter, change: StoreChange): (Omit<WatchEvent, 'object'> & { object: KubeObject }) | undefined {
  if (change.resource !== filter.resource) return undefined;
  const now = matches(filter, change.object);
  if (change.type !== 'MODIFIED') return now ? { type: change.type, object: change.object } : undefined;
  const before = change.previous !== undefined && matches(filter, change.previous);
  if (now && before) return { type: 'MODIFIED', object: change.object };
  if (now) return { type: 'ADDED', object: change.object };
  if (before) return { type: 'DELETED', object: change.object };
  return undefined;
}

export interface WatchStreamOptions {
  filter: WatchFilter;
  log: ChangeLog;
  /** The objects a watch without a resourceVersion (or with sendInitialEvents) starts with, as ADDED events. */
  initial: KubeObject[] | undefined;
  /** Watch from after this revision (the resourceVersion parameter); ignored with `initial`. */
  from: number;
  /** The store's revision now: the resourceVersion bookmarks carry. */
  revision: () => string;
  bookmarks: boolean;
  /** sendInitialEvents: a bookmark annotated `k8s.io/initial-events-end` follows the initial events. */
  initialEventsEnd: boolean;
  timeoutMs: number;
  bookmarkEveryMs: number;
  /** Turns an event's object into what the client asked for (a Table row), knowing whether it is the first. */
  render: (object: KubeObject, first: boolean) => Json;
  /** Brings the simulation up to the clock's now, so changes the simulated nodes make reach the watch meanwhile. */
  tick: () => void;
  tickEveryMs: number;
}

/** The stream's body: WatchEvents, one JSON object a line, until the timeout or the client goes away. */
export function watchStream(options: WatchStreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const { filter } = options;
  let cleanup = (): void => undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let first = true;
      let closed = false;
      const send = (event: WatchEvent) => {
        if (!closed) controller.enqueue(encoder.encode(`${JSON.stringify(event)}\n`));
      };
      const sendObject = (type: WatchEvent['type'], o: KubeObject) => {
        send({ type, object: options.render(typed(filter.resource, o), first) });
        first = false;
      };
      const bookmark = (annotations?: Record<string, string>) =>
        send({
          type: 'BOOKMARK',
          object: {
            kind: specOf(filter.resource).kind,
            apiVersion: apiVersionOf(filter.resource),
            metadata: { resourceVersion: options.revision(), ...(annotations ? { annotations } : {}) },
          },
        });
      const timers: Array<ReturnType<typeof setTimeout>> = [];
      let unsubscribe = (): void => undefined;
      cleanup = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        for (const t of timers) clearTimeout(t);
      };
      const close = () => {
        if (closed) return;
        cleanup();
        controller.close();
      };

      if (options.initial) {
        for (const o of options.initial) sendObject('ADDED', o);
        if (options.initialEventsEnd) bookmark({ 'k8s.io/initial-events-end': 'true' });
      } else {
        const missed = options.log.since(options.from);
        if (!missed) {
          // The watch cache no longer holds that revision: one ERROR event, then the stream ends (cacher.go newErrWatcher).
          send({ type: 'ERROR', object: new ApiError(410, 'Expired', `too old resource version: ${options.from} (${options.log.oldest})`).status() });
          close();
          return;
        }
        for (const change of missed) {
          const e = eventFor(filter, change);
          if (e) sendObject(e.type, e.object);
        }
      }
      unsubscribe = options.log.subscribe((change) => {
        const e = eventFor(filter, change);
        if (e) sendObject(e.type, e.object);
      });
      timers.push(
        setTimeout(() => {
          if (options.bookmarks) bookmark();
          close();
        }, options.timeoutMs),
      );
      if (options.bookmarks) timers.push(setInterval(() => bookmark(), options.bookmarkEveryMs));
      timers.push(setInterval(() => options.tick(), options.tickEveryMs));
    },
    cancel() {
      cleanup();
    },
  });
}
