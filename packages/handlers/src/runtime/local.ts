// The local runtime: the engine on file-backed ports under a state directory (or in memory), driven
// in-process — against real clouds with credentials from each provider's secretRef, or against the sandbox
// clouds in virtual time, whose world is kept in the same directory between commands, durable as a cloud is:
// it is written before every state write, so a kill at any point never leaves the ledger ahead of the clouds.
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
  systemClock,
  writeFileAtomic,
  type AddonCredentialResolver,
  type Clock,
  type EngineOptions,
  type MachineAccess,
  type ProviderFactory,
  type PutOptions,
  type StateStore,
  type StepEvent,
  type Versioned,
} from '@kubeplane/sdk';
import { SshMachineAccess, kubernetesConnector } from '@kubeplane/providers';
// The sandbox clouds (msw and the emulators) are loaded only by a runtime that uses them, so importing this module
// for the real clouds carries none of them.
import type { NetnsSandbox, Sandbox } from '@kubeplane/sandbox';
import { resolveAddonCredentials, resolveCredentials, resolveStaticKey } from './credentials.js';
import { cloudProviderFactory } from './cloud-providers.js';
import { fileRateBudgets } from '@kubeplane/sdk';
import { makeDirectory } from '@kubeplane/sdk';
import { acquireProcessLock, type ProcessLock } from './process-lock.js';

export const DEFAULT_STATE_DIR = '.kubeplane';

export interface LocalRuntimeOptions {
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

export class LocalRuntime {
  /** Set by a writer on opening a directory: what it reclaimed from a crashed predecessor. */
  recovery: Recovery = { messages: 0, leases: 0, requeued: [] };
  #savedAtCalls = -1;

  private constructor(
    readonly kubeplane: Kubeplane,
    readonly clock: Clock,
    readonly sandbox: Sandbox | undefined,
    /** The sandbox's real machines (netns mode). */
    readonly netns: NetnsSandbox | undefined,
    private readonly options: LocalRuntimeOptions,
    private readonly lock: ProcessLock | undefined,
    private readonly ports: { queue?: FileQueue<StepEvent>; lease?: FileLease },
  ) {}

  /** The state directory (for messages). */
  get stateDir(): string {
    return this.options.stateDir;
  }

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
    let sandbox: Sandbox | undefined;
    let netns: NetnsSandbox | undefined;
    try {
      let clock: Clock = systemClock;
      let providers: ProviderFactory;
      let kubernetes: EngineOptions['kubernetes'];
      let machines: MachineAccess;
      let addonCredentials: AddonCredentialResolver = (ref, keys, what) => resolveAddonCredentials(ref, keys, what, options.env, options.cwd);
      if (options.sandbox) {
        const { NetnsSandbox, Sandbox, sandboxAddonCredentials, sandboxKubernetes, sandboxProviders } = await import('@kubeplane/sandbox');
        sandbox = options.memory ? new Sandbox({ seed: options.seed ?? 1 }) : await loadSandbox(dir, options.seed ?? 1);
        sandbox.listen();
        clock = sandbox.clock;
        if (options.netns) netns = await NetnsSandbox.attach(sandbox);
        providers = sandboxProviders(sandbox);
        kubernetes = sandboxKubernetes(sandbox);
        machines = sandbox.staticMachines.access();
        // The sandbox clouds accept their own credentials only; a token for kubeplane itself (the autoscaler
        // adapter's) is read as locally.
        addonCredentials = sandboxAddonCredentials(addonCredentials);
      } else {
        providers = cloudProviders(options.env, options.cwd, options.memory ? undefined : dir);
        kubernetes = kubernetesConnector();
        machines = new SshMachineAccess({ privateKey: (target) => resolveStaticKey(target.node, target.secretRef, options.env, options.cwd) });
      }
      const fileQueue = options.memory ? undefined : new FileQueue<StepEvent>(dir, 'steps', { clock, visibilityTimeoutSeconds: 300 });
      const fileLease = options.memory ? undefined : new FileLease(dir, clock);
      // The world is saved before each state write (see WorldFirstStateStore); `rt` exists by the first write.
      let rt: LocalRuntime | undefined;
      const fileState = options.memory ? undefined : new FileStateStore(dir);
      const state: StateStore = fileState
        ? sandbox && options.write
          ? new WorldFirstStateStore(fileState, () => rt?.saveIfChanged() ?? Promise.resolve())
          : fileState
        : new MemoryStateStore();
      const kubeplane = new Kubeplane({
        state,
        secrets: options.memory ? new MemorySecretStore() : new FileSecretStore(dir),
        queue: fileQueue ?? new MemoryQueue<StepEvent>({ clock, visibilityTimeoutSeconds: 300 }),
        lease: fileLease ?? new MemoryLease(clock),
        clock,
        providers,
        kubernetes,
        machines,
        addonCredentials,
        // The netns machines' package mirror signs with its own key: renders pin that key instead of pkgs.k8s.io's.
        ...(netns ? { clockParticipant: netns, versions: { kubernetesReleaseKeyFingerprint: netns.mirrorKeyFingerprint } } : {}),
      });
      rt = new LocalRuntime(kubeplane, clock, sandbox, netns, options, lock, {
        ...(fileQueue ? { queue: fileQueue } : {}),
        ...(fileLease ? { lease: fileLease } : {}),
      });
      if (lock) await rt.#recover();
      return rt;
    } catch (e) {
      // Nothing opened stays open: a sandbox left listening would answer (or refuse) every request of this process.
      await netns?.close();
      await sandbox?.close();
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

  /** Writes the sandbox world back (0600: machines' user-data holds cluster keys). */
  async save(): Promise<void> {
    if (!this.sandbox || this.options.memory) return;
    this.#savedAtCalls = this.sandbox.totalCalls();
    await writeFileAtomic(join(this.options.stateDir, 'sandbox', 'world.json'), JSON.stringify(this.sandbox.snapshot()), 0o600);
  }

  /** Saves the world if a cloud request was served since the last save (reads too: they move rate budgets). */
  async saveIfChanged(): Promise<void> {
    if (this.sandbox && this.sandbox.totalCalls() !== this.#savedAtCalls) await this.save();
  }

  async close(): Promise<void> {
    try {
      // Only a writer (it holds the directory's lock) writes the world back; readers leave it as it was.
      if (this.options.write) await this.save();
    } finally {
      await this.netns?.close();
      await this.sandbox?.close();
      await this.lock?.release();
    }
  }
}

/**
 * A StateStore that first makes the sandbox world durable: the engine writes state after its cloud calls, so the
 * ledger never records a machine the world file has not. (A kill between the save and the state write leaves the
 * world ahead of the ledger, as a crash after a real cloud call does; find-before-create and tags cover that.)
 */
class WorldFirstStateStore implements StateStore {
  constructor(
    private readonly inner: StateStore,
    private readonly saveWorld: () => Promise<void>,
  ) {}

  get<T>(key: string): Promise<Versioned<T> | null> {
    return this.inner.get<T>(key);
  }

  async put<T>(key: string, value: T, expectedRevision: number, options?: PutOptions): Promise<number> {
    await this.saveWorld();
    return this.inner.put(key, value, expectedRevision, options);
  }

  async delete(key: string, expectedRevision: number, options?: PutOptions): Promise<void> {
    await this.saveWorld();
    return this.inner.delete(key, expectedRevision, options);
  }

  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }

  where(key: string): string {
    return this.inner.where?.(key) ?? key;
  }
}

async function loadSandbox(dir: string, seed: number): Promise<Sandbox> {
  const { Sandbox } = await import('@kubeplane/sandbox');
  const path = join(dir, 'sandbox', 'world.json');
  // The static pools' machines are kept beside the world: a later command meets the same machines (host keys, disks).
  const staticMachinesDir = join(dir, 'sandbox', 'static-machines');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Sandbox({ seed, staticMachinesDir });
    throw e;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new KubeplaneError(
      'invalid',
      `${path} is not valid JSON (${(e as Error).message}); it may have been cut short. Remove the state directory to start from an empty sandbox`,
      { resource: path, code: 'CorruptFile' },
    );
  }
  try {
    return Sandbox.fromSnapshot(value as Parameters<typeof Sandbox.fromSnapshot>[0], { staticMachinesDir });
  } catch (e) {
    if (e instanceof KubeplaneError) throw new KubeplaneError(e.kind, `${path}: ${e.message}`, { ...e.details, resource: path });
    throw e;
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

/** Real providers, with credentials resolved from each provider's secretRef (env or file) when first needed. */
function cloudProviders(env: NodeJS.ProcessEnv, cwd: string, stateDir: string | undefined): ProviderFactory {
  // Rate budgets in the state directory: every kubeplane process on it shares one budget per account.
  return cloudProviderFactory((def) => resolveCredentials(def, env, cwd), undefined, stateDir ? fileRateBudgets(stateDir) : undefined);
}
