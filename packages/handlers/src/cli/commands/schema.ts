// `kubeplane schema [--format native|claudie] [--out FILE]`: the JSON Schema of either document kind, generated
// from the zod schemas, for editors (docs/manifest.md says how to point an editor at it).
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseCommandArgs } from '../command-args.js';
import { fileSystemError, makeDirectory } from '@kubeplane/sdk/internal';
import { MANIFEST_FORMATS, manifestJsonSchema, type ManifestFormat } from '@kubeplane/sdk';
import { println, UsageError, type CliIo } from '../io.js';

export async function schema(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    options: { format: { type: 'string', default: 'native' }, out: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const format = values.format;
  if (!isFormat(format)) {
    throw new UsageError(`unknown --format "${format}"; use native (kubeplane.dev/v1 Manifest) or claudie (claudie.io/v1beta1 InputManifest)`);
  }
  const text = `${JSON.stringify(manifestJsonSchema(format), null, 2)}\n`;
  if (values.out === undefined) {
    io.stdout.write(text);
    return 0;
  }
  if (values.out === '') throw new UsageError('--out needs a file name');
  const path = resolve(io.cwd, values.out);
  await makeDirectory(dirname(path), { what: 'the folder of --out', instead: 'pass another --out' });
  await writeFile(path, text).catch((e: unknown) => {
    throw fileSystemError(e, path, 'write');
  });
  println(io.stderr, `wrote the ${format} manifest schema to ${values.out}`);
  return 0;
}

function isFormat(value: string): value is ManifestFormat {
  return (MANIFEST_FORMATS as readonly string[]).includes(value);
}
