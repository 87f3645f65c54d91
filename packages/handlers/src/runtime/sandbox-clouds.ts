// The sandbox's clouds for a local runtime: the emulators in virtual time, their world kept in the state directory
// between commands and durable as a cloud is (written before every state write, so a kill at any point never leaves
// the ledger ahead of the clouds), optionally with every machine a network namespace (netns). Loaded by a dynamic
// import only when a command asks for the sandbox.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeplaneError, type ProviderFactory, type PutOptions, type StateStore, type Versioned } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { writeFileAtomic } from '@kubeplane/sdk/internal';
import { NetnsSandbox, Sandbox, sandboxAddonCredentials, sandboxKubernetes, sandboxProviders, type UserDataTransform } from '@kubeplane/sandbox';
import type { CloudSide, CloudSideOptions } from './cloud-side.js';
import { kubernetesSecretOf, resolveAddonCredentials, resolveCredentials, type CredentialSources } from './credentials.js';

export async function sandboxClouds(options: CloudSideOptions & { write: boolean }): Promise<CloudSide> {
  const { stateDir, env, cwd } = options;
  const sources: CredentialSources = { env, cwd, kubernetes: options.secrets };
  const made: WorldOptions = {
    seed: options.seed ?? 1,
    ...(options.awsOptInRegions ? { awsOptInRegions: options.awsOptInRegions } : {}),
    ...(options.sandboxStart !== undefined ? { clock: new VirtualClock(options.sandboxStart) } : {}),
    ...(options.userDataTransform ? { userDataTransform: options.userDataTransform } : {}),
  };
  const sandbox = stateDir === undefined ? new Sandbox(made) : await loadSandbox(stateDir, made);
  sandbox.listen();
  let netns: NetnsSandbox | undefined;
  try {
    if (options.netns) netns = await NetnsSandbox.attach(sandbox);
  } catch (e) {
    await sandbox.close();
    throw e;
  }
  let savedAtCalls = -1;
  const save = async () => {
    if (stateDir === undefined) return;
    savedAtCalls = sandbox.totalCalls();
    await writeFileAtomic(join(stateDir, 'sandbox', 'world.json'), JSON.stringify(sandbox.snapshot()), 0o600);
  };
  // A cloud request served since the last save (reads too: they move rate budgets) changed the world.
  const saveIfChanged = async () => {
    if (sandbox.totalCalls() !== savedAtCalls) await save();
  };
  return {
    kind: 'sandbox',
    clock: sandbox.clock,
    providers: options.secrets ? rehearsingSecrets(sandboxProviders(sandbox), sources) : sandboxProviders(sandbox),
    kubernetes: sandboxKubernetes(sandbox),
    machines: sandbox.staticMachines.access(),
    // The sandbox clouds accept their own credentials only; a token for kubeplane itself (the autoscaler adapter's)
    // is read as locally.
    addonCredentials: sandboxAddonCredentials((ref, keys, what) => resolveAddonCredentials(ref, keys, what, sources)),
    // The netns machines' package mirror signs with its own key: renders pin that key instead of pkgs.k8s.io's.
    engine: netns ? { clockParticipant: netns, versions: { kubernetesReleaseKeyFingerprint: netns.mirrorKeyFingerprint } } : {},
    sandbox,
    netns,
    durable: (state) => (stateDir !== undefined && options.write ? new WorldFirstStateStore(state, saveIfChanged) : state),
    save,
    close: async () => {
      try {
        await netns?.close();
      } finally {
        await sandbox.close();
      }
    },
  };
}

/**
 * With a secrets cluster named, a provider whose secretRef is a Kubernetes Secret has it read from that cluster and
 * checked (it exists, is readable, holds the keys in their formats) as on real clouds, before the sandbox cloud is
 * given its own credentials: a rehearsal of the real read, since the sandbox clouds accept their own keys only.
 */
function rehearsingSecrets(inner: ProviderFactory, sources: CredentialSources): ProviderFactory {
  return async (def, region, context) => {
    if (kubernetesSecretOf(def.secretRef)) await resolveCredentials(def, sources);
    return inner(def, region, context);
  };
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

/** What a new world is made with: its seed, and the account and clock options of the command. */
type WorldOptions = { seed: number; awsOptInRegions?: string[]; clock?: VirtualClock; userDataTransform?: UserDataTransform };

async function loadSandbox(dir: string, made: WorldOptions): Promise<Sandbox> {
  const path = join(dir, 'sandbox', 'world.json');
  // The static pools' machines are kept beside the world: a later command meets the same machines (host keys, disks).
  const staticMachinesDir = join(dir, 'sandbox', 'static-machines');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Sandbox({ ...made, staticMachinesDir });
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
    // The transform is the command's, not the world's: a kept world boots its machines with this command's.
    return Sandbox.fromSnapshot(value as Parameters<typeof Sandbox.fromSnapshot>[0], {
      staticMachinesDir,
      ...(made.userDataTransform ? { userDataTransform: made.userDataTransform } : {}),
    });
  } catch (e) {
    if (e instanceof KubeplaneError) throw new KubeplaneError(e.kind, `${path}: ${e.message}`, { ...e.details, resource: path });
    throw e;
  }
}
