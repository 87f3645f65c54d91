// Finds the line of a manifest path in the YAML (or JSON) text it came from, so every error can say
// `file:line`. A path that does not exist (a missing field) resolves to its nearest existing parent.
// It reads the same js-yaml event stream the values were built from (parse.ts): no second parse, and the
// tree of offsets is built only when an issue needs a line.
import { EVENT_ID, getScalarValue, SCALAR_STYLE, type Event, type ScalarEvent } from 'js-yaml';
import type { Path } from './issues.js';

/** A 1-based line and column in a manifest file. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** Finds where a manifest path sits in the file it was read from. */
export interface SourceLocator {
  /** The line and column of a path, or undefined when the file does not hold it. */
  locate(path: Path): SourcePosition | undefined;
}

/** Where a node starts in the text, and where its children start. */
type Located =
  | { kind: 'map'; start: number; pairs: Map<string, { keyStart: number | undefined; value: Located }> }
  | { kind: 'seq'; start: number; items: Located[] }
  | { kind: 'leaf'; start: number; key: string | undefined };

/**
 * The source maps of every document of a YAML stream. Documents are matched by their position in the
 * stream, as js-yaml's constructFromEvents counts them (one value per DOCUMENT event).
 */
export class StreamSourceMaps {
  #roots: Array<Located | undefined> | undefined;
  #lineStarts: number[] | undefined;

  constructor(
    private readonly text: string,
    private readonly events: readonly Event[],
  ) {}

  forDocument(index: number): SourceLocator {
    return { locate: (path) => this.#locate(index, path) };
  }

  #locate(index: number, path: Path): SourcePosition | undefined {
    this.#roots ??= buildTrees(this.text, this.events);
    const root = this.#roots[index];
    if (!root) return undefined;
    let node: Located = root;
    let best = node.start;
    for (const seg of path) {
      if (node.kind === 'map') {
        // Keys are compared as the manifest reader sees them: `1:` and `"1":` are the same key.
        const pair = node.pairs.get(String(seg));
        if (!pair) break;
        best = pair.keyStart ?? pair.value.start;
        node = pair.value;
      } else if (node.kind === 'seq' && typeof seg === 'number') {
        const item: Located | undefined = node.items[seg];
        if (!item) break;
        best = item.start;
        node = item;
      } else {
        break;
      }
    }
    return this.#position(best);
  }

  #position(offset: number): SourcePosition {
    const starts = (this.#lineStarts ??= lineStarts(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (starts[lo] ?? 0) + 1 };
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** One tree per document, built in one pass over the events with a stack of open collections. */
function buildTrees(text: string, events: readonly Event[]): Array<Located | undefined> {
  const roots: Array<Located | undefined> = [];
  // An open mapping waits for a key, then for its value; `key` holds the key node between the two.
  const stack: Array<{ node: Located; key?: Located }> = [];
  const add = (child: Located) => {
    const top = stack[stack.length - 1];
    if (!top) {
      roots[roots.length - 1] = child;
      return;
    }
    if (top.node.kind === 'seq') top.node.items.push(child);
    else if (top.node.kind === 'map') {
      if (!top.key) {
        top.key = child;
        return;
      }
      const key = top.key;
      top.key = undefined;
      // A complex key (a mapping used as a key) has no name a path can hold.
      if (key.kind === 'leaf' && key.key !== undefined && !top.node.pairs.has(key.key)) {
        top.node.pairs.set(key.key, { keyStart: key.start, value: child });
      }
    }
  };
  for (const event of events) {
    switch (event.type) {
      case EVENT_ID.DOCUMENT:
        roots.push(undefined);
        stack.length = 0;
        break;
      case EVENT_ID.MAPPING:
        stack.push({ node: { kind: 'map', start: event.start, pairs: new Map() } });
        break;
      case EVENT_ID.SEQUENCE:
        stack.push({ node: { kind: 'seq', start: event.start, items: [] } });
        break;
      case EVENT_ID.SCALAR:
        add({ kind: 'leaf', start: scalarStart(event), key: getScalarValue(text, event) });
        break;
      case EVENT_ID.ALIAS:
        add({ kind: 'leaf', start: Math.max(0, event.anchorStart - 1), key: undefined });
        break;
      case EVENT_ID.POP: {
        const done = stack.pop();
        if (done) add(done.node);
        break;
      }
    }
  }
  return roots;
}

/** A quoted scalar's value starts after its opening quote; point at the quote, where the reader sees it start. */
function scalarStart(event: ScalarEvent): number {
  const quoted = event.style === SCALAR_STYLE.SINGLE_QUOTED || event.style === SCALAR_STYLE.DOUBLE_QUOTED;
  return quoted ? Math.max(0, event.valueStart - 1) : event.valueStart;
}
