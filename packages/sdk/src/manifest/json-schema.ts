// The JSON Schemas of both document kinds, generated from the zod schemas, for editors: completion,
// descriptions and checks as you type (`# yaml-language-server: $schema=...`; docs/manifest.md).
//
// Draft-07, because that is the draft the YAML language server (redhat-developer/yaml-language-server, used by
// VS Code's YAML extension, monaco-yaml and most LSP editors) validates; its 2019-09/2020-12 support is still open
// (issues #856, #1112). The schemas are looser than `validate` for rules that need the whole manifest (references,
// uniqueness, networks, versions in the catalog), never stricter: json-schema.test.ts checks that.
import * as z from 'zod';
import {
  CLAUDIE_API_VERSION,
  CLAUDIE_KIND,
  claudieManifestSchema,
  DEFAULT_STORAGE_DISK_GB,
  dynamicPoolSchema,
  NATIVE_API_VERSION,
  NATIVE_KIND,
  nativeManifestSchema,
  poolNameSchema,
  STORAGE_DISK_DESCRIPTION,
} from './schema.js';
import { NAME_LIMITS } from './rules.js';

/** The two manifest formats: kubeplane's native one and Claudie's InputManifest. */
export type ManifestFormat = 'native' | 'claudie';
/** Both manifest formats, native first. */
export const MANIFEST_FORMATS: readonly ManifestFormat[] = ['native', 'claudie'];

/** Where each schema is published, and the file beside the docs that holds it. */
export const MANIFEST_SCHEMA_IDS: Record<ManifestFormat, { $id: string; title: string; file: string }> = {
  native: {
    $id: 'https://kubeplane.dev/schemas/kubeplane.schema.json',
    title: `kubeplane manifest (${NATIVE_API_VERSION} ${NATIVE_KIND})`,
    file: 'docs/schema/kubeplane.schema.json',
  },
  claudie: {
    $id: 'https://kubeplane.dev/schemas/claudie.schema.json',
    title: `Claudie InputManifest (${CLAUDIE_API_VERSION} ${CLAUDIE_KIND}), as kubeplane reads it`,
    file: 'docs/schema/claudie.schema.json',
  },
};

/**
 * Claudie documents may use pool names up to 20 characters (its older e2e sets do; rules/node-pools.ts warns), native
 * documents 14 (Claudie's limit today, DynamicNodePool.Name `validate:"max=14"`).
 */
const POOL_NAME_MAX: Record<ManifestFormat, number> = { native: NAME_LIMITS.pool, claudie: 20 };

/** The JSON Schema of a manifest format, for editors and other tools. */
export function manifestJsonSchema(format: ManifestFormat = 'native'): Record<string, unknown> {
  const source = format === 'native' ? nativeManifestSchema : claudieManifestSchema;
  const generated = z.toJSONSchema(source, {
    target: 'draft-7',
    unrepresentable: 'any',
    io: 'input',
    override: (ctx) => {
      // The storage disk's default differs per document kind (DEFAULT_STORAGE_DISK_GB): Claudie's 50, native 0.
      if (ctx.zodSchema === dynamicPoolSchema.shape.storageDiskSize) {
        const kind = format === 'claudie' ? 'claudie' : 'kubeplane';
        ctx.jsonSchema.description = STORAGE_DISK_DESCRIPTION[kind];
        ctx.jsonSchema.default = DEFAULT_STORAGE_DISK_GB[kind];
      }
      if (ctx.zodSchema === poolNameSchema) {
        ctx.jsonSchema.maxLength = POOL_NAME_MAX[format];
        if (format === 'claudie') {
          ctx.jsonSchema.description =
            `${String(ctx.jsonSchema.description ?? '')} ` + "Claudie documents: up to 20, with a warning past 14 (Claudie's limit today).";
        }
      }
    },
  }) as Record<string, unknown>;
  const { $schema, ...rest } = tidy(generated) as Record<string, unknown>;
  const ids = MANIFEST_SCHEMA_IDS[format];
  return { $schema, $id: ids.$id, title: ids.title, ...rest };
}

/** The JSON Schema of the native manifest format. */
export function nativeManifestJsonSchema(): Record<string, unknown> {
  return manifestJsonSchema('native');
}

/** The JSON Schema of Claudie's InputManifest. */
export function claudieManifestJsonSchema(): Record<string, unknown> {
  return manifestJsonSchema('claudie');
}

/**
 * zod writes the safe-integer bounds on every int and `propertyNames: {type: string}` on every record: noise. A
 * nullable list comes as `anyOf: [list, null]`, whose every error also says "must be null"; `type: [array, null]`
 * says the same and lets the editor report the list's own errors.
 */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if ((key === 'maximum' && v === Number.MAX_SAFE_INTEGER) || (key === 'minimum' && v === Number.MIN_SAFE_INTEGER)) continue;
    if (key === 'propertyNames' && isPlainStringType(v)) continue;
    const nullable = key === 'anyOf' ? orNull(v) : undefined;
    if (nullable) Object.assign(out, tidy(nullable));
    else out[key] = tidy(v);
  }
  return out;
}

/** `[{type: T, ...}, {type: 'null'}]` as `{type: [T, 'null'], ...}`; undefined for any other anyOf. */
function orNull(alternatives: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(alternatives) || alternatives.length !== 2) return undefined;
  const [first, second] = alternatives as Array<Record<string, unknown>>;
  if (!first || !second || Object.keys(second).length !== 1 || second.type !== 'null' || typeof first.type !== 'string') return undefined;
  return { ...first, type: [first.type, 'null'] };
}

function isPlainStringType(v: unknown): boolean {
  return typeof v === 'object' && v !== null && Object.keys(v).length === 1 && (v as { type?: unknown }).type === 'string';
}
