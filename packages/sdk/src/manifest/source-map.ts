// Finds the line of a manifest path in the YAML (or JSON) text it came from, so every error can say
// `file:line`. A path that does not exist (a missing field) resolves to its nearest existing parent.
// Values are read by a fast parser (parse.ts); this map is built only when an issue needs a line.
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
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

export class YamlSourceMap implements SourceLocator {
  /** Key -> pair, per mapping, built on first lookup so that locating many issues stays linear. */
  readonly #index = new WeakMap<YAMLMap, Map<unknown, Pair>>();

  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  locate(path: Path): SourcePosition | undefined {
    let node: unknown = this.doc.contents;
    let best: readonly [number, number, number] | undefined | null = (node as Node | null)?.range;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = this.#pairs(node).get(seg);
        if (!pair) break;
        if (isScalar(pair.key) && pair.key.range) best = pair.key.range;
        node = pair.value;
        if (!isScalar(pair.key) && (pair.value as Node | null)?.range) best = (pair.value as Node).range;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg] as Node | undefined;
        if (!item) break;
        if (item.range) best = item.range;
        node = item;
      } else {
        break;
      }
    }
    if (!best) return undefined;
    const pos = this.lines.linePos(best[0]);
    return { line: pos.line, column: pos.col };
  }

  #pairs(map: YAMLMap): Map<unknown, Pair> {
    let index = this.#index.get(map);
    if (!index) {
      index = new Map();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        // Keys are compared as the manifest reader sees them: `1:` and `"1":` are the same key.
        const k = typeof key === 'number' || typeof key === 'boolean' ? String(key) : key;
        if (!index.has(k)) index.set(k, pair);
      }
      this.#index.set(map, index);
    }
    return index;
  }
}

/**
 * The source maps of every document of a YAML stream, parsed on first use. Documents are matched by their
 * position in the stream (the value reader counts them the same way).
 */
export class LazyStreamSourceMaps {
  #maps: YamlSourceMap[] | undefined;
  constructor(private readonly text: string) {}

  forDocument(index: number): SourceLocator {
    return { locate: (path) => this.#all()[index]?.locate(path) };
  }

  #all(): YamlSourceMap[] {
    if (!this.#maps) {
      const lines = new LineCounter();
      // uniqueKeys off: duplicate keys were already refused by the value reader, and the library's own check
      // compares every key with every other one (quadratic in the size of a mapping).
      const docs = parseAllDocuments(this.text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false });
      this.#maps = Array.isArray(docs) ? docs.map((d) => new YamlSourceMap(d, lines)) : [];
    }
    return this.#maps;
  }
}
