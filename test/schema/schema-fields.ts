// Every field of the two manifest documents, found by walking their zod schemas: the native `kubeplane.dev/v1`
// document and Claudie's InputManifest. A path names a field as `kubernetes.clusters[].version`; the fields both
// documents share have one path (Claudie's `spec.` prefix dropped), and the sub-schemas used in several places one
// path each, where one piece of code gives them their effect: every credential reference (`secretRef.<field>`, one
// resolver), and taints of dynamic and static pools (`taints[].<field>`).
import type * as z from 'zod';
import { claudieManifestSchema, nativeManifestSchema } from '@kubeplane/sdk/internal';

export interface SchemaField {
  /** The canonical path (see above). */
  path: string;
  /** A container: an object whose own fields are listed after it (its effect is theirs). */
  container: boolean;
  documents: Array<'native' | 'claudie'>;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional, nullable, default and pipe wrappers. */
function unwrap(s: z.ZodType): z.ZodType {
  const def = defOf(s);
  if (def.innerType && ['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch'].includes(def.type)) return unwrap(def.innerType);
  if (def.type === 'pipe' && def.in) return unwrap(def.in);
  return s;
}

export function canonicalPath(raw: string): string {
  const path = raw.replace(/^spec\./, '');
  if (!path.endsWith('.fromProvider')) {
    const at = path.indexOf('.secretRef.');
    if (at >= 0) return `secretRef.${path.slice(at + '.secretRef.'.length)}`;
  }
  return path.replace(/^nodePools\.(dynamic|static)\[\]\.taints\[\]\./, 'taints[].');
}

function walk(schema: z.ZodType, path: string, visit: (path: string, container: boolean) => void): void {
  const s = unwrap(schema);
  const def = defOf(s);
  if (def.type === 'array' && def.element) return walk(def.element, `${path}[]`, visit);
  if (def.type !== 'object' || !def.shape) return;
  for (const [key, child] of Object.entries(def.shape)) {
    const p = path ? `${path}.${key}` : key;
    let inner = unwrap(child);
    while (defOf(inner).type === 'array' && defOf(inner).element) inner = unwrap(defOf(inner).element as z.ZodType);
    visit(p, defOf(inner).type === 'object');
    walk(child, p, visit);
  }
}

/** Every field of both documents, once per canonical path, in the documents' order. */
export function schemaFields(): SchemaField[] {
  const fields = new Map<string, SchemaField>();
  for (const [document, schema] of [
    ['native', nativeManifestSchema],
    ['claudie', claudieManifestSchema],
  ] as const) {
    walk(schema as z.ZodType, '', (raw, container) => {
      if (raw === 'spec') return; // Claudie's wrapper of the shared fields
      const path = canonicalPath(raw);
      const field = fields.get(path) ?? { path, container, documents: [] };
      if (!field.documents.includes(document)) field.documents.push(document);
      fields.set(path, field);
    });
  }
  return [...fields.values()];
}
