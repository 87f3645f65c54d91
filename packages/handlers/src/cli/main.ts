// The kubeplane CLI: parses the command line and runs a command in-process. Every command gets a CliIo
// and returns its exit code, so tests call main() directly.
import { readFileSync } from 'node:fs';
import { isKubeplaneError, KubeplaneError } from '@kubeplane/sdk/errors';
import { EXIT, println, UsageError, type CliIo, type Command } from './io.js';
import { formatCommandList, formatHelp, formatUsage, type CommandHelp } from './help.js';
import {
  applyHelp,
  autoscalerAdapterHelp,
  completionHelp,
  destroyHelp,
  kubeconfigHelp,
  lifecycleHelp,
  metadataHelp,
  planHelp,
  renderHelp,
  schemaHelp,
  serveHelp,
  sshKeyHelp,
  statusHelp,
  validateHelp,
} from './commands/command-help.js';
import { jsonResult, wantsJson } from './json-output.js';

export type { CliIo } from './io.js';
export { EXIT } from './io.js';

/** Whether the command finishes its step in hand on Ctrl-C (CliIo.signal) rather than stopping at once. */
export function handlesInterrupts(argv: readonly string[]): boolean {
  const [name, sub] = argv;
  return name === 'apply' || name === 'destroy' || name === 'autoscaler-adapter' || (name === 'sandbox' && sub === 'serve');
}

interface CommandEntry {
  run: Command;
  help: CommandHelp;
}

/** `kubeconfig --served` or `--server URL`: the kubeconfig of a sandbox cluster as `sandbox serve` serves it. */
function wantsServedKubeconfig(argv: string[]): boolean {
  return argv.some((a) => a === '--served' || a === '--server' || a.startsWith('--server='));
}

/**
 * Every command, by the words that name it; `sandbox` is a group of two. Each is loaded when it runs, so `--help` and
 * `validate` start without the engine, the providers or the AWS SDK (startup-imports.test.ts), and a command on real
 * clouds never loads the sandbox clouds or msw (real-cloud-imports.test.ts).
 */
/** A sandbox command's module; a clear error, not a stack, when @kubeplane/sandbox (an optional peer) is not installed. */
async function sandboxCommand<T>(what: string, load: () => Promise<T>): Promise<T> {
  const { withOptionalPackage } = await import('../runtime/optional-package.js');
  return withOptionalPackage(what, load);
}

const COMMANDS: Record<string, CommandEntry> = {
  validate: { run: async (argv, io) => (await import('./commands/validate.js')).validate(argv, io), help: validateHelp },
  plan: { run: async (argv, io) => (await import('./commands/plan.js')).planCommand(argv, io), help: planHelp },
  apply: { run: async (argv, io) => (await import('./commands/engine.js')).apply(argv, io), help: applyHelp },
  status: { run: async (argv, io) => (await import('./commands/engine.js')).status(argv, io), help: statusHelp },
  destroy: { run: async (argv, io) => (await import('./commands/engine.js')).destroy(argv, io), help: destroyHelp },
  kubeconfig: {
    run: async (argv, io) =>
      wantsServedKubeconfig(argv)
        ? (await sandboxCommand('kubeconfig --served', () => import('./commands/serve-kubeconfig.js'))).kubeconfigServed(argv, io)
        : (await import('./commands/engine.js')).kubeconfig(argv, io),
    help: kubeconfigHelp,
  },
  'ssh-key': { run: async (argv, io) => (await import('./commands/outputs.js')).sshKey(argv, io), help: sshKeyHelp },
  metadata: { run: async (argv, io) => (await import('./commands/outputs.js')).metadata(argv, io), help: metadataHelp },
  'sandbox lifecycle': {
    run: async (argv, io) => (await sandboxCommand('kubeplane sandbox lifecycle', () => import('./commands/lifecycle.js'))).lifecycle(argv, io),
    help: lifecycleHelp,
  },
  'sandbox serve': {
    run: async (argv, io) => (await sandboxCommand('kubeplane sandbox serve', () => import('./commands/serve.js'))).serve(argv, io),
    help: serveHelp,
  },
  render: { run: async (argv, io) => (await import('./commands/render.js')).render(argv, io), help: renderHelp },
  schema: { run: async (argv, io) => (await import('./commands/schema.js')).schema(argv, io), help: schemaHelp },
  'autoscaler-adapter': {
    run: async (argv, io) => (await import('./commands/autoscaler-adapter.js')).autoscalerAdapter(argv, io),
    help: autoscalerAdapterHelp,
  },
  completion: {
    run: async (argv, io) =>
      (await import('./completion.js')).completion(
        argv,
        io,
        Object.values(COMMANDS).map((c) => c.help),
      ),
    help: completionHelp,
  },
};

const sandboxHelp: CommandHelp = {
  name: 'sandbox',
  usage: ['kubeplane sandbox lifecycle <manifest> [options]', 'kubeplane sandbox serve [options]'],
  summary: "the sandbox clouds: a manifest's whole lifecycle, or the sandbox world served to real clients",
  description: '`kubeplane sandbox <command> --help` shows the options of each.',
  options: [],
};

function help(): string {
  return formatCommandList(
    'kubeplane: Kubernetes clusters across clouds from one manifest',
    Object.values(COMMANDS).map((c) => c.help),
    '`kubeplane help <command>` (or `kubeplane <command> --help`) shows the options of a command; `kubeplane --version` (-V) the ' +
      'version; docs/cli.md the exit codes and the --json schema.',
  );
}

/** This package's version (`kubeplane --version`): its package.json is two folders up from src/cli/ and dist/cli/ alike. */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** `--help` or `-h` anywhere before a `--`. */
function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The command named by the first words of argv (`apply`, `sandbox serve`) and the arguments after them. */
function lookup(argv: readonly string[]): { entry?: CommandEntry; name: string; rest: string[] } {
  const [first = '', second = '', ...after] = argv;
  if (first === 'sandbox') {
    const entry = COMMANDS[`sandbox ${second}`];
    return entry ? { entry, name: `sandbox ${second}`, rest: after } : { name: 'sandbox', rest: argv.slice(1) };
  }
  return { ...(COMMANDS[first] ? { entry: COMMANDS[first] } : {}), name: first, rest: argv.slice(1) };
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const words = argv[0] === 'help' ? argv.slice(1) : argv;
  const [name] = words;
  if (!name || name === '--help' || name === '-h') {
    io.stdout.write(help());
    return name || argv[0] === 'help' ? EXIT.ok : EXIT.usage;
  }
  if (argv[0] === '--version' || argv[0] === '-V') {
    println(io.stdout, version());
    return EXIT.ok;
  }
  const found = lookup(words);
  const json = wantsJson(found.rest);
  if (found.name === 'sandbox' && (wantsHelp(words) || argv[0] === 'help')) {
    io.stdout.write(formatHelp(sandboxHelp));
    return EXIT.ok;
  }
  const command = found.entry;
  if (!command) {
    const message = found.name === 'sandbox' ? `unknown sandbox command "${words[1] ?? ''}"` : `unknown command "${found.name}"`;
    if (json) return jsonResult(io, found.name, EXIT.usage, { error: { kind: 'usage', message } });
    println(io.stderr, `kubeplane: ${message}\n`);
    io.stderr.write(found.name === 'sandbox' ? formatHelp(sandboxHelp) : help());
    return EXIT.usage;
  }
  if (wantsHelp(found.rest) || argv[0] === 'help') {
    io.stdout.write(formatHelp(command.help));
    return EXIT.ok;
  }
  const label = `kubeplane ${found.name}`;
  try {
    return await command.run(found.rest, io);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      const message = (e as Error).message;
      if (json) return jsonResult(io, found.name, EXIT.usage, { error: { kind: 'usage', message, usage: command.help.usage } });
      println(io.stderr, `${label}: ${message}\n${command.help.usage.map((u, i) => formatUsage(u, i === 0 ? 'usage: ' : '       ')).join('\n')}`);
      return EXIT.usage;
    }
    // One line a person can act on; the stack only when asked for (-v), for a bug report.
    const verbose = found.rest.includes('-v') || found.rest.includes('--verbose');
    const known = isKubeplaneError(e) ? e : await nodeFileError(e);
    if (known) {
      const resource = known.details.resource;
      if (json) return jsonResult(io, found.name, EXIT.failed, { error: { kind: known.kind, message: known.message, ...(resource ? { resource } : {}) } });
      println(io.stderr, `${label}: ${known.kind}: ${known.message}${resource && !known.message.includes(resource) ? ` (${resource})` : ''}`);
    } else {
      // Anything else is a bug.
      const message = e instanceof Error ? e.message : String(e);
      if (json) return jsonResult(io, found.name, EXIT.failed, { error: { kind: 'internal', message } });
      println(io.stderr, `${label}: ${message}${verbose ? '' : ' (run with -v for details)'}`);
    }
    if (verbose && e instanceof Error && e.stack) println(io.stderr, e.stack);
    return EXIT.failed;
  }
}

/** What Node's file system calls are doing, as the message says it: `cannot <action> <path>`. */
const SYSCALL_ACTIONS: Readonly<Record<string, string>> = {
  mkdir: 'create the folder',
  scandir: 'list',
  unlink: 'remove',
  rmdir: 'remove',
  stat: 'look at',
  lstat: 'look at',
};

/**
 * A Node file system error that names its file (a code and a path), with a kind like ours: the adapters turn their
 * own into KubeplaneErrors, but a file error from anywhere else still gets the same `<kind>: ` and the same fixes.
 */
async function nodeFileError(e: unknown): Promise<KubeplaneError | undefined> {
  const { code, path, syscall } = (e ?? {}) as { code?: unknown; path?: unknown; syscall?: unknown };
  if (!(e instanceof Error) || typeof code !== 'string' || typeof path !== 'string') return undefined;
  // Loaded here, on the way out of a failed command: the rest of the sdk costs a command that succeeds nothing.
  const { fileSystemError } = await import('@kubeplane/sdk/internal');
  const action = typeof syscall === 'string' ? (SYSCALL_ACTIONS[syscall] ?? syscall) : 'use';
  const mapped = fileSystemError(e, path, action);
  return mapped instanceof KubeplaneError ? mapped : new KubeplaneError('invalid', e.message, { resource: path, code }, { cause: e });
}
