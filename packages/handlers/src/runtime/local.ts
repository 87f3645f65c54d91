// The local runtime: the engine on file-backed ports under a state directory (or in memory), driven
// in-process — against real clouds with credentials from each provider's secretRef, or against the sandbox
// clouds in virtual time, whose world is kept in the same directory between commands.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
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
  type Clock,
  type EngineOptions,
  type ProviderFactory,
  type StepEvent,
} from '@kubeplane/sdk';
import { NetnsSandbox, Sandbox, kubernetesConnector, sandboxKubernetes, sandboxProviders } from '@kubeplane/providers';
import { resolveCredentials } from './credentials.js';
import { cloudProviderFactory } from './cloud-providers.js';
import { fileRateBudgets } from '@kubeplane/sdk';
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

export class LocalRuntime {
  private constructor(
    readonly kubeplane: Kubeplane,
    readonly clock: Clock,
    readonly sandbox: Sandbox | undefined,
    /** The sandbox's real machines (netns mode). */
    readonly netns: NetnsSandbox | undefined,
    private readonly options: LocalRuntimeOptions,
    private readonly lock: ProcessLock | undefined,
  ) {}

  static async open(options: LocalRuntimeOptions): Promise<LocalRuntime> {
    const dir = options.stateDir;
    let lock: ProcessLock | undefined;
    if (options.netns && !options.sandbox) throw new KubeplaneError('invalid', '--netns runs the sandbox clouds\' machines in network namespaces; add --sandbox');
    if (!options.memory) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await checkMode(dir, options.sandbox ? 'sandbox' : 'cloud');
      if (options.write) lock = await acquireProcessLock(join(dir, 'writer.lock'), options.command ?? 'kubeplane');
    }
    try {
      let sandbox: Sandbox | undefined;
      let netns: NetnsSandbox | undefined;
      let clock: Clock = systemClock;
      let providers: ProviderFactory;
      let kubernetes: EngineOptions['kubernetes'];
      if (options.sandbox) {
        sandbox = options.memory ? new Sandbox({ seed: options.seed ?? 1 }) : await loadSandbox(dir, options.seed ?? 1);
        sandbox.listen();
        clock = sandbox.clock;
        if (options.netns) netns = await NetnsSandbox.attach(sandbox);
        providers = sandboxProviders(sandbox);
        kubernetes = sandboxKubernetes(sandbox);
      } else {
        providers = cloudProviders(options.env, options.cwd, options.memory ? undefined : dir);
        kubernetes = kubernetesConnector();
      }
      const kubeplane = new Kubeplane({
        state: options.memory ? new MemoryStateStore() : new FileStateStore(dir),
        secrets: options.memory ? new MemorySecretStore() : new FileSecretStore(dir),
        queue: options.memory ? new MemoryQueue<StepEvent>({ clock, visibilityTimeoutSeconds: 300 }) : new FileQueue<StepEvent>(dir, 'steps', { clock, visibilityTimeoutSeconds: 300 }),
        lease: options.memory ? new MemoryLease(clock) : new FileLease(dir, clock),
        clock,
        providers,
        kubernetes,
        // The netns machines' package mirror signs with its own key: renders pin that key instead of pkgs.k8s.io's.
        ...(netns ? { clockParticipant: netns, versions: { kubernetesReleaseKeyFingerprint: netns.mirrorKeyFingerprint } } : {}),
      });
      return new LocalRuntime(kubeplane, clock, sandbox, netns, options, lock);
    } catch (e) {
      await lock?.release();
      throw e;
    }
  }

  /** Writes the sandbox world back (0600: machines' user-data holds cluster keys). */
  async save(): Promise<void> {
    if (!this.sandbox || this.options.memory) return;
    await writeFileAtomic(join(this.options.stateDir, 'sandbox', 'world.json'), JSON.stringify(this.sandbox.snapshot()), 0o600);
  }

  async close(): Promise<void> {
    try {
      // Only a writer (it holds the directory's lock) writes the world back; readers leave it as it was.
      if (this.options.write) await this.save();
    } finally {
      await this.netns?.close();
      this.sandbox?.close();
      await this.lock?.release();
    }
  }
}

async function loadSandbox(dir: string, seed: number): Promise<Sandbox> {
  let text: string;
  try {
    text = await readFile(join(dir, 'sandbox', 'world.json'), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Sandbox({ seed });
    throw e;
  }
  return Sandbox.fromSnapshot(JSON.parse(text) as Parameters<typeof Sandbox.fromSnapshot>[0]);
}

/** A state directory is for the sandbox or for real clouds, never both: mixing them would mix worlds. */
async function checkMode(dir: string, mode: Mode): Promise<void> {
  const path = join(dir, 'mode');
  let existing: string | undefined;
  try {
    existing = (await readFile(path, 'utf8')).trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (existing === undefined) {
    const empty = await stat(join(dir, 'state')).then(() => false, () => true);
    if (!empty && mode === 'sandbox') {
      throw new KubeplaneError('invalid', `${dir} holds real-cloud state; use another --state-dir for the sandbox`);
    }
    await writeFile(path, `${mode}\n`, { mode: 0o600 });
    return;
  }
  if (existing !== mode) {
    throw new KubeplaneError(
      'invalid',
      existing === 'sandbox'
        ? `${dir} holds a sandbox world; add --sandbox (or use another --state-dir for real clouds)`
        : `${dir} holds real-cloud state; drop --sandbox (or use another --state-dir for the sandbox)`,
    );
  }
}

/** Real providers, with credentials resolved from each provider's secretRef (env or file) when first needed. */
function cloudProviders(env: NodeJS.ProcessEnv, cwd: string, stateDir: string | undefined): ProviderFactory {
  // Rate budgets in the state directory: every kubeplane process on it shares one budget per account.
  return cloudProviderFactory((def) => resolveCredentials(def, env, cwd), undefined, stateDir ? fileRateBudgets(stateDir) : undefined);
}
