// A served sandbox with one cluster's kubeconfig, for test files that drive it with kubectl: registers the file's
// beforeAll/afterAll and gives `kubectl(...)` with that kubeconfig and a clean environment.
import { afterAll, beforeAll } from 'vitest';
import { requireTool, runTool, type ToolRun } from './tools.js';
import { ServedWorld } from './served-world.js';

export interface KubectlWorld {
  /** The served world (set once beforeAll ran). */
  readonly world: ServedWorld;
  readonly kubeconfig: string;
  readonly env: NodeJS.ProcessEnv;
  kubectl(...args: string[]): Promise<ToolRun>;
}

export function useKubectlWorld(manifest: string, cluster: string): KubectlWorld {
  let world: ServedWorld | undefined;
  let kubeconfig = '';
  let env: NodeJS.ProcessEnv = {};
  beforeAll(async () => {
    world = await ServedWorld.start({ manifests: [manifest] });
    kubeconfig = await world.kubeconfigFile(cluster);
    env = { PATH: process.env.PATH ?? '', HOME: world.dir };
  }, 180_000);
  afterAll(async () => {
    await world?.dispose();
  }, 60_000);
  return {
    get world(): ServedWorld {
      if (!world) throw new Error('the served world has not started (use it inside a test)');
      return world;
    },
    get kubeconfig() {
      return kubeconfig;
    },
    get env() {
      return env;
    },
    async kubectl(...args: string[]): Promise<ToolRun> {
      const bin = await requireTool('kubectl', 'kubernetes-client');
      return runTool(bin, ['--kubeconfig', kubeconfig, ...args], env);
    },
  };
}
