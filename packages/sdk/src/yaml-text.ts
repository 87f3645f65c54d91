// The sdk's one YAML library (js-yaml, chosen for the manifest reader: see manifest/parse.ts) and the options every
// document kubeplane reads or writes uses, so cloud-init, kubeadm and Helm read exactly what was rendered.
import { CORE_SCHEMA, dump, loadAll, visit } from 'js-yaml';

export interface ToYamlOptions {
  /** Mapping keys in code-point order at every level (stable output for values compared as text). */
  sortKeys?: boolean;
  /** Fold long strings at this width; unlimited (never fold) when omitted. */
  lineWidth?: number;
}

/**
 * One YAML document. No anchors (a value shared in the object is written out each time), double quotes where a
 * string needs quoting, and strings that YAML 1.1 readers (cloud-init's PyYAML) would take for booleans (`yes`,
 * `on`, `n`) quoted.
 */
export function toYaml(value: unknown, options: ToYamlOptions = {}): string {
  return dump(value, {
    noRefs: true,
    quoteStyle: 'double',
    lineWidth: options.lineWidth ?? -1,
    ...(options.sortKeys
      ? {
          transform: (documents) =>
            visit(documents, (node) => {
              if (node.kind === 'mapping') node.items.sort((a, b) => compareKeys(a.key, b.key));
            }),
        }
      : {}),
  });
}

function compareKeys(a: { kind: string; value?: unknown }, b: { kind: string; value?: unknown }): number {
  const x = a.kind === 'scalar' ? String(a.value) : '';
  const y = b.kind === 'scalar' ? String(b.value) : '';
  return x < y ? -1 : x > y ? 1 : 0;
}

/** One YAML 1.2 (core schema) document read into plain values; null for an empty text. Throws on a stream of several. */
export function fromYaml(text: string): unknown {
  const docs = fromYamlStream(text);
  if (docs.length > 1) throw new Error(`expected one YAML document, found ${docs.length}`);
  return docs[0] ?? null;
}

/** Every document of a YAML 1.2 (core schema) stream. */
export function fromYamlStream(text: string): unknown[] {
  return loadAll(text, { schema: CORE_SCHEMA });
}
