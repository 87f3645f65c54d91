// The one way commands read their command line: node:util's parseArgs, and then the rule it lacks: an option that
// takes one value, given twice, is a mistake to show rather than a last value to take silently.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io.js';

/** parseArgs, refusing a single-value option given more than once (`--state-dir a --state-dir b`) with a UsageError. */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  // Parsed once more for its tokens, so the result keeps the type parseArgs gives the caller's own config.
  const { tokens = [] } = parseArgs({ ...config, tokens: true } as ParseArgsConfig);
  const given = new Map<string, string[]>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    const option = config.options?.[token.name];
    if (option?.type !== 'string' || option.multiple) continue;
    given.set(token.name, [...(given.get(token.name) ?? []), token.value]);
  }
  for (const [name, values] of given) {
    if (values.length < 2) continue;
    const times = values.length === 2 ? 'twice' : `${values.length} times`;
    throw new UsageError(`--${name} was given ${times} (${values.join(', ')}); give it once`);
  }
  return parseArgs(config);
}
