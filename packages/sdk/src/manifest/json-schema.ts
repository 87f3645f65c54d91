// The JSON Schema of the native manifest, generated from the zod schemas, for editor completion
// (`# yaml-language-server: $schema=...` in the examples).
import { z } from 'zod';
import { nativeManifestSchema } from './schema.js';

export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(nativeManifestSchema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' });
  return { ...schema, $id: 'https://kubeplane.dev/schemas/manifest-v1.json', title: 'kubeplane manifest (kubeplane.dev/v1)' };
}
