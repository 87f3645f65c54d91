// The kubeplane CLI: parses the command line and runs a command in-process. Every command gets a CliIo
// and returns its exit code, so tests call main() directly.
import { isKubeplaneError } from '@kubeplane/sdk';
import { EXIT, println, UsageError, type CliIo, type Command } from './io.js';
import { apply, applyUsage, destroy, destroyUsage, kubeconfig, kubeconfigUsage, status, statusUsage } from './commands/engine.js';
import { lifecycle, lifecycleUsage } from './commands/lifecycle.js';
import { serve, serveUsage } from './commands/serve.js';
import { kubeconfigServed, wantsServedKubeconfig } from './commands/serve-kubeconfig.js';
import { planCommand, planUsage } from './commands/plan.js';
import { render, renderUsage } from './commands/render.js';
import { schema, schemaUsage } from './commands/schema.js';
import { validate, validateUsage } from './commands/validate.js';

export type { CliIo } from './io.js';
export { EXIT } from './io.js';

/** Whether the command finishes its step in hand on Ctrl-C (CliIo.signal) rather than stopping at once. */
export function handlesInterrupts(argv: readonly string[]): boolean {
  const [name, sub] = argv;
  return name === 'apply' || name === 'destroy' || (name === 'sandbox' && sub === 'serve');
}

interface CommandEntry {
  run: Command;
  usage: string;
  summary: string;
}

const COMMANDS: Record<string, CommandEntry> = {
  validate: { run: validate, usage: validateUsage, summary: 'check manifests; one line per problem, file:line path: message' },
  plan: { run: (argv, io) => planCommand(argv, io), usage: planUsage, summary: 'show what apply would change, and why' },
  apply: { run: apply, usage: applyUsage, summary: 'create or update the clusters of a manifest, showing progress' },
  status: { run: status, usage: statusUsage, summary: 'the state of each project and cluster, as Claudie reports it' },
  destroy: { run: destroy, usage: destroyUsage, summary: 'delete every cluster of a manifest or project, from any state' },
  kubeconfig: { run: (argv, io) => (wantsServedKubeconfig(argv) ? kubeconfigServed(argv, io) : kubeconfig(argv, io)), usage: `${kubeconfigUsage} [--served | --server URL]`, summary: "print a cluster's admin kubeconfig (--served: for kubeplane sandbox serve)" },
  sandbox: { run: sandboxCommand, usage: `${lifecycleUsage} | ${serveUsage.replace('kubeplane sandbox ', '')}`, summary: 'the whole lifecycle on the sandbox clouds; serve: the sandbox world to real clients' },
  render: { run: render, usage: renderUsage, summary: 'write what every node would run, with its secrets (0600)' },
  schema: { run: schema, usage: schemaUsage, summary: 'print the JSON Schema of native manifests or Claudie InputManifests, for editors' },
};

async function sandboxCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'lifecycle') return lifecycle(rest, io);
  if (sub === 'serve') return serve(rest, io);
  throw new UsageError(`unknown sandbox command "${sub ?? ''}"; try: kubeplane sandbox lifecycle <manifest>, or kubeplane sandbox serve`);
}

function help(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length));
  return [
    'kubeplane: Kubernetes clusters across clouds from one manifest',
    '',
    'usage:',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(help());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    println(io.stderr, `kubeplane: unknown command "${name}"\n`);
    io.stderr.write(help());
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      println(io.stderr, `kubeplane ${name}: ${(e as Error).message}\nusage: ${command.usage}`);
      return EXIT.usage;
    }
    // One line a person can act on; the stack only when asked for (-v), for a bug report.
    const verbose = rest.includes('-v') || rest.includes('--verbose');
    if (isKubeplaneError(e)) {
      const resource = e.details.resource;
      println(io.stderr, `kubeplane ${name}: ${e.kind}: ${e.message}${resource && !e.message.includes(resource) ? ` (${resource})` : ''}`);
    } else {
      // Node's own errors name the file (ENOENT: no such file or directory, open '…'); anything else is a bug.
      println(io.stderr, `kubeplane ${name}: ${e instanceof Error ? e.message : String(e)}${verbose ? '' : ' (run with -v for details)'}`);
    }
    if (verbose && e instanceof Error && e.stack) println(io.stderr, e.stack);
    return EXIT.failed;
  }
}
