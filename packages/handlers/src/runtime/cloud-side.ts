// The clouds a local runtime drives, as one unit: the real ones (credentials from each provider's secretRef, SSH to
// static machines, each cluster's own API) or the sandbox's (sandbox-clouds.ts, loaded only when asked, so a real-cloud
// command carries neither the emulators nor msw).
import type { AddonCredentialResolver, Clock, EngineOptions, MachineAccess, ProviderFactory, StateStore } from '@kubeplane/sdk';
import { fileRateBudgets } from '@kubeplane/sdk/internal';
import { systemClock } from '@kubeplane/sdk';
import { kubernetesConnector, SshMachineAccess } from '@kubeplane/providers';
import type { NetnsSandbox, Sandbox, UserDataTransform } from '@kubeplane/sandbox';
import { cloudProviderFactory } from './cloud-providers.js';
import { resolveAddonCredentials, resolveCredentials, resolveStaticKey, type CredentialSources } from './credentials.js';

export interface CloudSideOptions {
  /** Where the runtime keeps its state; undefined in memory. */
  stateDir: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  seed?: number | undefined;
  /** Opt-in AWS Regions the sandbox's account has enabled when its world is made. */
  awsOptInRegions?: string[] | undefined;
  /** The sandbox clock's start when its world is made, ms since the epoch. */
  sandboxStart?: number | undefined;
  /** Applied to every sandbox machine's user-data before it boots. */
  userDataTransform?: UserDataTransform | undefined;
  netns?: boolean | undefined;
  /** The cluster Kubernetes-Secret secretRefs are read from, when one is named. */
  secrets?: CredentialSources['kubernetes'];
}

export interface CloudSide {
  readonly kind: 'local' | 'sandbox';
  readonly clock: Clock;
  readonly providers: ProviderFactory;
  readonly kubernetes: EngineOptions['kubernetes'];
  readonly machines: MachineAccess;
  readonly addonCredentials: AddonCredentialResolver;
  /** What the side adds to the engine's options (the netns machines' clock and package-signing key). */
  readonly engine: Partial<EngineOptions>;
  /** The sandbox world, when the clouds are the sandbox's. */
  readonly sandbox?: Sandbox | undefined;
  /** The sandbox's machines as network namespaces (netns mode). */
  readonly netns?: NetnsSandbox | undefined;
  /** The state store the engine writes through: the sandbox's world is made durable before every state write. */
  durable(state: StateStore): StateStore;
  /** Writes the clouds' world back (the sandbox's; a real cloud is its own record). */
  save(): Promise<void>;
  close(): Promise<void>;
}

/** The real clouds, with credentials resolved from each provider's secretRef (env, file, a Kubernetes Secret) when first needed. */
export function realClouds(options: CloudSideOptions): CloudSide {
  const { env, cwd, stateDir } = options;
  const sources: CredentialSources = { env, cwd, kubernetes: options.secrets };
  return {
    kind: 'local',
    clock: systemClock,
    // Rate budgets in the state directory: every kubeplane process on it shares one budget per account.
    providers: cloudProviderFactory((def) => resolveCredentials(def, sources), undefined, stateDir ? fileRateBudgets(stateDir) : undefined),
    kubernetes: kubernetesConnector(),
    machines: new SshMachineAccess({ privateKey: (target) => resolveStaticKey(target.node, target.secretRef, sources) }),
    addonCredentials: (ref, keys, what) => resolveAddonCredentials(ref, keys, what, sources),
    engine: {},
    durable: (state) => state,
    save: async () => {},
    close: async () => {},
  };
}
