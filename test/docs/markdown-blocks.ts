// The TypeScript blocks of a markdown file, as a reader pastes them: shared by the docs test (every block, run from
// the repository) and the packaging test (the README's block, run in a fresh project on the packed packages).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Block {
  /** `docs/sdk.md:31`: the fence's line. */
  where: string;
  mode: 'run' | 'compile' | 'serve';
  code: string;
  file: string;
}

/** The ```ts blocks of `path` (relative to `root`), each with the mode its `<!-- doc-test: … -->` marker gives. */
export function blocksOf(root: string, path: string): Block[] {
  const lines = readFileSync(join(root, path), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i] ?? '')) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`${path}:${i + 1}: a code block that never ends`);
    const marker = /^<!-- doc-test: (run|compile|serve)\b/.exec(lines[i - 1] ?? '')?.[1] as Block['mode'] | undefined;
    const where = `${path}:${i + 1}`;
    blocks.push({ where, mode: marker ?? 'run', code: `${lines.slice(i + 1, end).join('\n')}\n`, file: `${path.replace(/[/.]/g, '-')}-${i + 1}.ts` });
    i = end;
  }
  return blocks;
}

/** What a block promises to print: the WORD of each `console.log(...) // WORD` line. */
export function promises(code: string): string[] {
  return code.split('\n').flatMap((l) => (/console\.log\(.*\/\/\s*(\S+)\s*$/.exec(l)?.[1] ? [/console\.log\(.*\/\/\s*(\S+)\s*$/.exec(l)?.[1] as string] : []));
}
