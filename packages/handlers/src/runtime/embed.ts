// The SDK's front door for a service or a script: a Kubeplane wired the way the CLI wires it, in one call. For real
// clouds, the built-in providers with each manifest provider's credentials resolved from its secretRef (env, file, or
// a Kubernetes Secret in a named context's cluster) and file-backed ports under a state directory; for the sandbox,
// the emulated clouds with the virtual clock handed to every part that needs it. Both hold the state directory's
// writer lock until closed: one writer per directory.
import { resolve } from 'node:path';
import { LocalRuntime, DEFAULT_STATE_DIR } from './local.js';

/** How createKubeplane wires a Kubeplane against the real clouds: state directory, environment and Secrets cluster. */
export interface CreateKubeplaneOptions {
  /** Where state, secrets, the queue and leases live (default `.kubeplane`, resolved against `cwd`). */
  stateDir?: string;
  /** Where secretRef variables are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** What relative secretRef files and the state directory are resolved against (default `process.cwd()`). */
  cwd?: string;
  /** Keep everything in memory instead of a state directory: gone when the process ends. */
  memory?: boolean;
  /**
   * The kubeconfig context of the cluster that holds the Kubernetes Secrets secretRefs name (Claudie's
   * `{name, namespace}` form), as Claudie reads them from its management cluster. Default `KUBEPLANE_SECRETS_CONTEXT`
   * of `env`; never the kubeconfig's current context.
   */
  secretsContext?: string;
  /** The kubeconfig file of `secretsContext`; default `KUBEPLANE_SECRETS_KUBECONFIG`, then `$KUBECONFIG`, then ~/.kube/config. */
  secretsKubeconfig?: string;
}

/** How createSandboxKubeplane wires a Kubeplane against the sandbox clouds: state directory and seed. */
export interface CreateSandboxKubeplaneOptions {
  /**
   * Keep the sandbox world and the state in this directory between runs, as `kubeplane --sandbox` does. Without it
   * both live in memory for this process only.
   */
  stateDir?: string;
  /** The seed of the sandbox's randomness (addresses, ids, latencies); the same seed gives the same run. */
  seed?: number;
  /**
   * Read each Kubernetes-Secret secretRef from this context's cluster and check it as on real clouds, though the sandbox
   * clouds are still given their own credentials (createKubeplane's option of the same name). Without it, the sandbox
   * reads no Secret.
   */
  secretsContext?: string;
  /** The kubeconfig file of `secretsContext` (as createKubeplane's). */
  secretsKubeconfig?: string;
}

/**
 * A Kubeplane on the real clouds. `kubeplane` is the SDK's engine API (plan, apply, run, status, destroy, kubeconfig,
 * sshKey, metadata, on); `close()` releases the state directory. Credentials are read when a provider is first used, so a missing
 * variable is reported by `preflight` or the first step, never at creation.
 */
export function createKubeplane(options: CreateKubeplaneOptions = {}): Promise<LocalRuntime> {
  const cwd = options.cwd ?? process.cwd();
  return LocalRuntime.open({
    stateDir: resolve(cwd, options.stateDir ?? DEFAULT_STATE_DIR),
    sandbox: false,
    env: options.env ?? process.env,
    cwd,
    write: !options.memory,
    command: 'createKubeplane',
    ...(options.secretsContext !== undefined ? { secretsContext: options.secretsContext } : {}),
    ...(options.secretsKubeconfig !== undefined ? { secretsKubeconfig: options.secretsKubeconfig } : {}),
    ...(options.memory ? { memory: true } : {}),
  });
}

/**
 * A Kubeplane on the sandbox clouds, in virtual time (a cluster's creation takes about a second): `sandbox` is the
 * emulated world (its inventory, faults, clock). While it is open this process's HTTP goes to the sandbox clouds:
 * close it before talking to anything else.
 */
export function createSandboxKubeplane(
  options: CreateSandboxKubeplaneOptions = {},
): Promise<LocalRuntime & { readonly sandbox: NonNullable<LocalRuntime['sandbox']> }> {
  return LocalRuntime.open({
    stateDir: options.stateDir ?? DEFAULT_STATE_DIR,
    sandbox: true,
    env: process.env,
    cwd: process.cwd(),
    ...(options.stateDir ? { write: true, command: 'createSandboxKubeplane' } : { memory: true }),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.secretsContext !== undefined ? { secretsContext: options.secretsContext } : {}),
    ...(options.secretsKubeconfig !== undefined ? { secretsKubeconfig: options.secretsKubeconfig } : {}),
  }) as Promise<LocalRuntime & { readonly sandbox: NonNullable<LocalRuntime['sandbox']> }>;
}
