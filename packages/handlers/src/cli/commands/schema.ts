// `kubeplane schema`: the JSON Schema of the native manifest, generated from the zod schemas.
import { manifestJsonSchema } from '@kubeplane/sdk';
import { println, type CliIo } from '../io.js';

export async function schema(_argv: string[], io: CliIo): Promise<number> {
  println(io.stdout, JSON.stringify(manifestJsonSchema(), null, 2));
  return 0;
}
