// The local runtime: the engine on file-backed ports under a state directory (or in memory), driven in-process
// against the clouds of its cloud side (cloud-side.ts): the real clouds, or the sandbox's in virtual time, whose world
// is kept in the same directory between commands (sandbox-clouds.ts, loaded only when asked).
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  FileLease,
  FileQueue,
  FileSecretStore,
  FileStateStore,
  KubeplaneError,
  Kubeplane,
  MemoryLease,
  MemoryQueue,
  MemorySecretStore,
  MemoryStateStore,
  type Clock,
  type StateStore,
  type StepEvent,
} from '@kubeplane/sdk';
import { makeDirectory, writeFileAtomic } from '@kubeplane/sdk/internal';
import { withOptionalPackage } from './optional-package.js';
import type { NetnsSandbox, Sandbox, UserDataTransform } from '@kubeplane/sandbox';
import { type CloudSide, realClouds } from './cloud-side.js';
import { secretsClusterResolver, type SecretsClusterOptions } from './credentials.js';
import { acquireProcessLock, type ProcessLock } from './process-lock.js';
import type { Runtime } from './runtime.js';

/** The state directory of the local runtime when none is given. */
export const DEFAULT_STATE_DIR = '.kubeplane';

/** How the local runtime is built: state directory, sandbox or real clouds, environment and working directory. */
export interface LocalRuntimeOptions extends SecretsClusterOptions {
  /** Where state, secrets, queue, leases (and the sandbox world) live; ignored with `memory`. */
  stateDir: string;
  sandbox: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Keep everything in memory (one-shot runs such as `kubeplane sandbox lifecycle`). */
  memory?: boolean;
  /** Take the state directory's writer lock (commands that change the world). */
  write?: boolean;
  /** The command, for the lock's holder message. */
  command?: string;
  seed?: number;
  /**
   * Opt-in AWS Regions the sandbox's account has enabled when its world is made (default none, as a new account);
   * a world already in the state directory keeps its own account.
   */
  awsOptInRegions?: string[];
  /**
   * The day the sandbox's virtual clock starts when its world is made, ms since the epoch (default 2026-01-01): what the
   * clouds' catalogs sell depends on it (a type past its deprecation date is no longer sold). A kept world keeps its clock.
   */
  sandboxStart?: number;
  /** Applied to every sandbox machine's user-data before it boots (the seam for defects; SandboxOptions.userDataTransform). */
  userDataTransform?: UserDataTransform;
  /**
   * The sandbox's netns mode: every sandbox machine becomes a network namespace on this host that boots from its
   * user-data with real WireGuard, nginx, etcd and TLS (needs root). The machines live as long as this runtime.
   */
  netns?: boolean;
}

type Mode = 'sandbox' | 'cloud';

/** What a writer found left by a predecessor that crashed or was killed, and set going again. */
export interface Recovery {
  /** Messages that were in flight (received, never acknowledged): deliverable again at once. */
  messages: number;
  /** Leases a dead process held: released. */
  leases: number;
  /** Clusters IN_PROGRESS whose step had no message: queued again (the watchdog). */
  requeued: Array<{ project: string; cluster: string; step: string }>;
}

/** The local runtime: the engine on file-backed (or in-memory) ports, driven in-process against real or sandbox clouds. */
export class LocalRuntime implements Runtime {
  /** Set by a writer on opening a directory: what it reclaimed from a crashed predecessor. */
  recovery: Recovery = { messages: 0, leases: 0, requeued: [] };

  private constructor(
    readonly kubeplane: Kubeplane,
    private readonly clouds: CloudSide,
    private readonly options: LocalRuntimeOptions,
    private readonly lock: ProcessLock | undefined,
    private readonly ports: { queue?: FileQueue<StepEvent>; lease?: FileLease },
  ) {}

  get kind(): 'local' | 'sandbox' {
    return this.clouds.kind;
  }

  get clock(): Clock {
    return this.clouds.clock;
  }

  /** The sandbox world, when this runtime drives the sandbox's clouds. */
  get sandbox(): Sandbox | undefined {
    return this.clouds.sandbox;
  }

  /** The sandbox's real machines (netns mode). */
  get netns(): NetnsSandbox | undefined {
    return this.clouds.netns;
  }

  /** The state directory (for messages). */
  get stateDir(): string {
    return this.options.stateDir;
  }

  /** Opens the local runtime on its state directory (or in memory), taking the directory's writer lock. */
  static async open(options: LocalRuntimeOptions): Promise<LocalRuntime> {
    const dir = options.stateDir;
    let lock: ProcessLock | undefined;
    if (options.netns && !options.sandbox)
      throw new KubeplaneError('invalid', "--netns runs the sandbox clouds' machines in network namespaces; add --sandbox");
    if (!options.memory) {
      await checkFolder(dir);
      if (options.write) {
        await makeDirectory(dir, { mode: 0o700, what: 'the state directory', instead: 'pass another --state-dir' });
        await checkMode(dir, options.sandbox ? 'sandbox' : 'cloud', true);
        lock = await acquireProcessLock(join(dir, 'writer.lock'), options.command ?? 'kubeplane');
      } else {
        // A reader leaves the folder as it found it: no mode file, so the first writer still chooses.
        await checkMode(dir, options.sandbox ? 'sandbox' : 'cloud', false);
      }
    }
    let clouds: CloudSide | undefined;
    try {
      const sideOptions = {
        stateDir: options.memory ? undefined : dir,
        env: options.env,
        cwd: options.cwd,
        seed: options.seed,
        awsOptInRegions: options.awsOptInRegions,
        sandboxStart: options.sandboxStart,
        userDataTransform: options.userDataTransform,
        netns: options.netns,
        secrets: secretsClusterResolver(options, options.env, options.cwd),
      };
      clouds = options.sandbox
        ? await (await withOptionalPackage('the sandbox clouds (--sandbox, createSandboxKubeplane)', () => import('./sandbox-clouds.js'))).sandboxClouds({
            ...sideOptions,
            write: options.write ?? false,
          })
        : realClouds(sideOptions);
      const { clock } = clouds;
      const fileQueue = options.memory ? undefined : new FileQueue<StepEvent>(dir, 'steps', { clock, visibilityTimeoutSeconds: 300 });
      const fileLease = options.memory ? undefined : new FileLease(dir, clock);
      const state: StateStore = options.memory ? new MemoryStateStore() : clouds.durable(new FileStateStore(dir));
      const kubeplane = new Kubeplane({
        state,
        secrets: options.memory ? new MemorySecretStore() : new FileSecretStore(dir),
        queue: fileQueue ?? new MemoryQueue<StepEvent>({ clock, visibilityTimeoutSeconds: 300 }),
        lease: fileLease ?? new MemoryLease(clock),
        clock,
        providers: clouds.providers,
        kubernetes: clouds.kubernetes,
        machines: clouds.machines,
        addonCredentials: clouds.addonCredentials,
        ...clouds.engine,
      });
      const rt = new LocalRuntime(kubeplane, clouds, options, lock, {
        ...(fileQueue ? { queue: fileQueue } : {}),
        ...(fileLease ? { lease: fileLease } : {}),
      });
      if (lock) await rt.#recover();
      return rt;
    } catch (e) {
      // Nothing opened stays open: a sandbox left listening would answer (or refuse) every request of this process.
      await clouds?.close();
      await lock?.release();
      throw e;
    }
  }

  /**
   * Holding the writer lock, no other process works on this directory: what a crashed predecessor left in flight
   * (messages hidden for the visibility timeout, leases until they expire) is released now rather than waited out,
   * and the watchdog queues again every cluster whose step has no message at all.
   */
  async #recover(): Promise<void> {
    const { queue, lease } = this.ports;
    if (!queue || !lease) return;
    const messages = await queue.reclaimInFlight();
    const leases = await lease.releaseAll();
    const { requeued } = await this.kubeplane.watchdog({
      overdueAfterSeconds: 0,
      isQueued: async (event) => (await queue.bodies()).some((b) => b.key === event.key),
    });
    this.recovery = { messages, leases, requeued };
  }

  /** Writes the sandbox world back (0600: machines' user-data holds cluster keys); the real clouds keep their own. */
  async save(): Promise<void> {
    await this.clouds.save();
  }

  async close(): Promise<void> {
    try {
      // Only a writer (it holds the directory's lock) writes the world back; readers leave it as it was.
      if (this.options.write) await this.clouds.save();
    } finally {
      try {
        await this.clouds.close();
      } finally {
        await this.lock?.release();
      }
    }
  }
}

/** A --state-dir that exists must be a folder. */
async function checkFolder(dir: string): Promise<void> {
  const info = await stat(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    if (e.code === 'ENOTDIR')
      throw new KubeplaneError('invalid', `the state directory ${dir} is inside a file, not a folder; pass another --state-dir`, { resource: dir });
    throw e;
  });
  if (info && !info.isDirectory())
    throw new KubeplaneError('invalid', `the state directory ${dir} is a file, not a folder; pass another --state-dir`, { resource: dir });
}

/** The state key that records, with the state itself, which clouds a state directory is for. */
export const KIND_KEY = 'meta/kind';

/**
 * A state directory is for the sandbox or for real clouds, never both: mixing them would mix worlds, and a sandbox
 * cluster's deterministic id taken to a real cloud could name a real cluster. The kind is kept twice: in the `mode`
 * file (for people and older versions) and with the state itself (KIND_KEY); a sandbox world in the folder is a third
 * witness. Any disagreement, a missing or unreadable `mode` beside existing state, is an error naming the file and
 * the repair, never a guess.
 */
async function checkMode(dir: string, mode: Mode, write: boolean): Promise<void> {
  const path = join(dir, 'mode');
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const state = new FileStateStore(dir);
  const recorded = await state.get<{ kind?: unknown }>(KIND_KEY);
  const recordedKind = recorded?.value.kind === 'sandbox' || recorded?.value.kind === 'cloud' ? recorded.value.kind : undefined;
  const world = await stat(join(dir, 'sandbox', 'world.json')).then(
    () => true,
    () => false,
  );
  const hasState = await stat(join(dir, 'state')).then(
    () => true,
    () => false,
  );
  // What the state says it is, whatever the mode file says.
  const witnessed: Mode | undefined = world ? 'sandbox' : recordedKind;
  const why = world
    ? `a sandbox world is kept in ${join(dir, 'sandbox', 'world.json')}`
    : recordedKind
      ? `its state was recorded by a ${recordedKind === 'sandbox' ? 'sandbox' : 'real-cloud'} run (${state.where(KIND_KEY)})`
      : '';
  const repair = (kind: Mode) => `write it back with \`echo ${kind} > ${path}\``;
  if (text === undefined) {
    if (!hasState && !world) {
      if (write) await record(state, path, mode, recorded?.revision ?? 0);
      return;
    }
    throw new KubeplaneError(
      'invalid',
      `${path} is missing: it says whether ${dir} holds sandbox or real-cloud state, and ${dir} holds state. ` +
        (witnessed
          ? `${why[0]?.toUpperCase()}${why.slice(1)}: ${repair(witnessed)}`
          : 'Nothing else here says which: write `sandbox` or `cloud` into it, whichever made this state (a sandbox run prints [sandbox] on every line)'),
      { resource: path, code: 'StateDirKind' },
    );
  }
  const existing = text.trim();
  if (existing !== 'sandbox' && existing !== 'cloud') {
    throw new KubeplaneError(
      'invalid',
      `${path} ${existing === '' ? 'is empty' : `holds ${JSON.stringify(existing.slice(0, 40))}`}, ` +
        `not \`sandbox\` or \`cloud\`: it says whether ${dir} holds sandbox or real-cloud state. ` +
        (witnessed
          ? `${why[0]?.toUpperCase()}${why.slice(1)}: ${repair(witnessed)}`
          : hasState
            ? 'Write `sandbox` or `cloud` into it, whichever made this state'
            : `Nothing is recorded here yet: write \`${mode}\` into it, or remove it`),
      { resource: path, code: 'StateDirKind' },
    );
  }
  if (witnessed && witnessed !== existing) {
    throw new KubeplaneError('invalid', `${path} says ${existing}, but ${why}: the mode file was changed by hand. ${repair(witnessed)}`, {
      resource: path,
      code: 'StateDirKind',
    });
  }
  if (existing !== mode) {
    throw new KubeplaneError(
      'invalid',
      existing === 'sandbox'
        ? `${dir} holds a sandbox world; add --sandbox (or use another --state-dir for real clouds)`
        : `${dir} holds real-cloud state; drop --sandbox (or use another --state-dir for the sandbox)`,
      { resource: dir, code: 'StateDirKind' },
    );
  }
  // A directory from before the kind was kept with the state: recorded now, by the first writer.
  if (write && !recordedKind) await record(state, path, mode, recorded?.revision ?? 0);
}

/** Records the kind with the state, then in the mode file. */
async function record(state: FileStateStore, path: string, mode: Mode, revision: number): Promise<void> {
  await state.put(KIND_KEY, { kind: mode }, revision);
  await writeFileAtomic(path, `${mode}\n`, 0o600);
}
