// `kubeplane sandbox serve`: the persisted sandbox world as local servers that real clients talk to (each sandbox
// cloud's own clients, the AWS CLI or hcloud, and kubectl), until SIGINT or SIGTERM. It holds the state directory's
// writer lock the whole time, so other writers stop with a message that names it, and writes the world back as it
// changes and when it stops.
import { parseCommandArgs } from '../command-args.js';
import { resolve } from 'node:path';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { clientEnvironment, credentialsFilePath, removeServedFile, SandboxServer, writeCredentialsFile, writeServedFile } from '@kubeplane/sandbox';
import { DEFAULT_PORT_BASE } from './command-help.js';
import { println, UsageError, type CliIo } from '../io.js';

/** Resolves when the process is asked to stop. */
function stopSignal(): { promise: Promise<string>; dispose: () => void } {
  let dispose = () => {};
  const promise = new Promise<string>((resolveStop) => {
    const on = (signal: string) => () => resolveStop(signal);
    const int = on('SIGINT');
    const term = on('SIGTERM');
    process.once('SIGINT', int);
    process.once('SIGTERM', term);
    dispose = () => {
      process.off('SIGINT', int);
      process.off('SIGTERM', term);
    };
  });
  return { promise, dispose };
}

/** `stop` replaces the process signals (tests); the command returns once it resolves and the world is saved. */
export async function serve(argv: string[], io: CliIo, stop?: Promise<unknown>): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    allowPositionals: true,
    options: { 'state-dir': { type: 'string' }, speed: { type: 'string' }, 'port-base': { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments (got ${positionals.join(' ')})`);
  const speed = Number(values.speed ?? '1');
  if (!Number.isFinite(speed) || speed < 0)
    throw new UsageError('--speed must be a number >= 0 (1 = real time, 60 = a virtual minute per second, 0 = stopped)');
  const portBase = Number(values['port-base'] ?? DEFAULT_PORT_BASE);
  if (!Number.isInteger(portBase) || portBase < 0 || portBase > 65535 - 64) throw new UsageError('--port-base must be a port number (0: any free ports)');
  const stateDir = resolve(io.cwd, values['state-dir'] ?? DEFAULT_STATE_DIR);

  const rt = await LocalRuntime.open({ stateDir, sandbox: true, env: io.env, cwd: io.cwd, write: true, command: 'kubeplane sandbox serve' });
  const sandbox = rt.sandbox;
  let server: SandboxServer | undefined;
  const signals = stop ? undefined : stopSignal();
  try {
    if (!sandbox) throw new Error('sandbox serve needs the sandbox runtime');
    server = await SandboxServer.start(sandbox, {
      portBase,
      speed,
      save: () => rt.save(),
      onProblem: (message) => println(io.stderr, `[sandbox] ${message}`),
    });
    const e = server.endpoints;
    await writeServedFile(stateDir, e);
    await writeCredentialsFile(stateDir, sandbox, e);
    println(
      io.stdout,
      `[sandbox] serving the sandbox world of ${stateDir} on 127.0.0.1, virtual time x${speed} (now ${new Date(sandbox.clock.now()).toISOString()})`,
    );
    for (const api of e.apis) println(io.stdout, `  ${api.title}: ${api.url}`);
    for (const c of e.clusters)
      println(io.stdout, `  Kubernetes ${c.name} (${c.endpoint}): ${c.url}  — kubeplane kubeconfig ${c.name} --sandbox --served --state-dir ${stateDir}`);
    for (const p of e.notServed) println(io.stdout, `  Kubernetes ${p.name} (${p.endpoint}): not served, ${p.message}`);
    println(io.stdout, `environment (secrets in the file; source it: . ${credentialsFilePath(stateDir)}):`);
    for (const [k, v] of clientEnvironment(sandbox, e, false)) println(io.stdout, `  ${k}=${v}`);
    println(io.stdout, '[sandbox] ready; Ctrl-C to stop (the world is saved on the way out)');
    const why = await (stop ?? signals?.promise);
    println(io.stdout, `[sandbox] stopping${typeof why === 'string' ? ` (${why})` : ''}`);
  } finally {
    signals?.dispose();
    try {
      await server?.close();
      await removeServedFile(stateDir);
    } finally {
      // Saves once more and releases the writer lock.
      await rt.close();
    }
  }
  println(io.stdout, `[sandbox] stopped; the world is saved in ${stateDir}`);
  return 0;
}
