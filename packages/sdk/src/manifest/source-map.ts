// Finds the line of a manifest path in the YAML (or JSON) text it came from, so every error can say
// `file:line`. A path that does not exist (a missing field) resolves to its nearest existing parent.
import { isMap, isScalar, isSeq, LineCounter, type Document, type Node } from 'yaml';
import type { Path } from './issues.js';

export interface SourcePosition {
  line: number;
  column: number;
}

export class YamlSourceMap {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  locate(path: Path): SourcePosition | undefined {
    let node: unknown = this.doc.contents;
    let best: readonly [number, number, number] | undefined | null = (node as Node | null)?.range;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg);
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
}
