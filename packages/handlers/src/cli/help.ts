// What `kubeplane <command> --help` prints: the usage, a sentence on what the command does and one line per
// option, every line within 100 columns (long usage lines wrap between option groups, under the command's name).

/** Every line the CLI prints as help or usage fits this many columns (a terminal of 100 shows it unbroken). */
export const HELP_WIDTH = 100;

export interface CommandHelp {
  /** The words after `kubeplane`: `apply`, `sandbox lifecycle`. */
  name: string;
  /** One synopsis per form of the command, each starting `kubeplane <name>`. */
  usage: string[];
  /** What the command does, a short sentence for the command list. */
  summary: string;
  /** More on what it does, printed under the usage (optional). */
  description?: string;
  /** [flag with its argument, what it does]. */
  options: Array<readonly [string, string]>;
}

/** Options several commands share, described once. */
export const OPTIONS = {
  sandbox: ['--sandbox', 'act on the sandbox clouds kept in the state directory, in virtual time (nothing real is touched)'],
  stateDir: ['--state-dir DIR', 'the state directory (default .kubeplane in the current folder)'],
  secretsContext: [
    '--secrets-context NAME',
    'the kubeconfig context of the cluster holding the Kubernetes Secrets that secretRefs name ' +
      "(Claudie's {name, namespace}); default $KUBEPLANE_SECRETS_CONTEXT, never the current context",
  ],
  secretsKubeconfig: [
    '--secrets-kubeconfig FILE',
    "the kubeconfig file of --secrets-context (default $KUBEPLANE_SECRETS_KUBECONFIG, $KUBECONFIG's files, ~/.kube/config)",
  ],
  json: ['--json', 'print JSON lines instead of text: events with a "type", then one {"type":"result"} (docs/cli.md)'],
  verbose: ['-v, --verbose', 'also print every resource created or deleted, every wait, and the stack of an unexpected error'],
  help: ['-h, --help', 'print this help'],
} as const satisfies Record<string, readonly [string, string]>;

/** Splits at the spaces that are not inside [...] or (...), so an option group stays on one line when it can. */
function groups(usage: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of usage) {
    if (c === '[' || c === '(') depth += 1;
    if (c === ']' || c === ')') depth = Math.max(0, depth - 1);
    if (c === ' ' && depth === 0) {
      if (current) out.push(current);
      current = '';
    } else current += c;
  }
  if (current) out.push(current);
  return out;
}

/**
 * Wraps words to `width` columns: the first line starts with `first`, the others with `indent` spaces. A word that
 * fits no line is split at its own spaces (a long option group) or, with none, left whole.
 */
function wrap(words: string[], first: string, indent: number, width: number): string[] {
  const lines: string[] = [];
  const queue = [...words];
  let line = first;
  let empty = true;
  for (let word = queue.shift(); word !== undefined; word = queue.shift()) {
    const candidate = empty ? `${line}${word}` : `${line} ${word}`;
    if (candidate.length <= width || (empty && !word.includes(' '))) {
      line = candidate;
      empty = false;
    } else if (empty) {
      queue.unshift(...word.split(' '));
    } else {
      lines.push(line);
      line = ' '.repeat(indent);
      empty = true;
      queue.unshift(word);
    }
  }
  lines.push(line);
  return lines;
}

/** A usage line, wrapped under the command's name: `usage: kubeplane apply <manifest> …`. */
export function formatUsage(usage: string, prefix = 'usage: ', width = HELP_WIDTH): string {
  const words = groups(usage);
  // Continuation lines start under the first argument (after `kubeplane <command> `), or 8 columns in.
  const head = words.findIndex((w) => /^[<[(-]/.test(w));
  const lead = head > 0 ? `${prefix}${words.slice(0, head).join(' ')} `.length : prefix.length + 4;
  return wrap(words, prefix, lead > width / 2 ? prefix.length + 4 : lead, width).join('\n');
}

/** A paragraph, wrapped. */
function paragraph(text: string, indent: number, first: string, width = HELP_WIDTH): string {
  return wrap(text.split(' '), first, indent, width).join('\n');
}

export function formatHelp(help: CommandHelp): string {
  const usage = help.usage.map((u, i) => formatUsage(u, i === 0 ? 'usage: ' : '       ')).join('\n');
  const options = [...help.options, OPTIONS.help];
  const flagWidth = Math.min(24, Math.max(...options.map(([flag]) => flag.length)));
  const lines = [usage, '', paragraph(`${capitalize(help.summary)}.${help.description ? ` ${help.description}` : ''}`, 0, ''), '', 'options:'];
  for (const [flag, text] of options) {
    const indent = 2 + flagWidth + 2;
    if (flag.length > flagWidth) lines.push(`  ${flag}`, paragraph(text, indent, ' '.repeat(indent)));
    else lines.push(paragraph(text, indent, `  ${flag.padEnd(flagWidth)}  `));
  }
  return `${lines.join('\n')}\n`;
}

/** The command list of `kubeplane --help`. */
export function formatCommandList(title: string, helps: CommandHelp[], footer: string): string {
  const width = Math.max(...helps.map((h) => h.name.length));
  const lines = [title, '', formatUsage('kubeplane <command> [options]'), '', 'commands:'];
  for (const h of helps) lines.push(paragraph(h.summary, 2 + width + 2, `  ${h.name.padEnd(width)}  `));
  lines.push('', paragraph(footer, 0, ''));
  return `${lines.join('\n')}\n`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
