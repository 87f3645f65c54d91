// Conformance rules for the managedKubernetes capability (a control plane the provider runs, e.g. Crusoe CMK):
// one describe group per rule, run against the provider's sandbox like the core suite.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeplaneError } from '../../errors.js';
import type { Outcome } from '../outcome.js';
import { settle } from '../settle.js';
import type { ManagedKubernetesApi, Provider } from '../types.js';
import type { ConformanceSandbox } from './harness.js';
import type { ContractRule } from './rules.js';

/** The numbered rules of the managed Kubernetes contract, which providers with that capability must follow. */
export const MANAGED_KUBERNETES_RULES = [
  { id: 'M1', title: 'versions are listed, and a version not in the list is rejected as invalid before anything is created', mandatory: 'with-capability' },
  { id: 'M2', title: 'ensureCluster is pending while the control plane provisions, done once it runs, and idempotent', mandatory: 'with-capability' },
  { id: 'M3', title: 'ensureNodePool creates the pool with its count and is idempotent', mandatory: 'with-capability' },
  { id: 'M4', title: 'scale-up adds machines; scale-down removes exactly the nodes the engine chose', mandatory: 'with-capability' },
  { id: 'M5', title: 'the admin kubeconfig is available once the cluster runs', mandatory: 'with-capability' },
  { id: 'M6', title: 'deleting the cluster removes its pools and machines, and deleting again is done', mandatory: 'with-capability' },
] as const satisfies readonly ContractRule[];

/** How to run the managed Kubernetes conformance suite against a provider. */
export interface ManagedConformanceOptions {
  name: string;
  /** A fresh sandbox (started) per test. */
  sandbox: () => ConformanceSandbox | Promise<ConformanceSandbox>;
  /** The provider under test, on the sandbox. */
  makeProvider: (sandbox: ConformanceSandbox) => Provider;
  fixtures: {
    region: string;
    /** A cluster version the sandbox offers. */
    version: string;
    /** A node-pool instance type. */
    serverType: string;
    addons?: string[];
  };
}

function title(id: (typeof MANAGED_KUBERNETES_RULES)[number]['id']): string {
  return `${id}: ${MANAGED_KUBERNETES_RULES.find((r) => r.id === id)?.title ?? ''}`;
}

/** Registers the managedKubernetes conformance groups for one provider. */
export function runManagedKubernetesConformance(options: ManagedConformanceOptions): void {
  const { fixtures } = options;
  let sandbox: ConformanceSandbox;
  let provider: Provider;
  let seq = 0;
  const run = <T>(call: (attempt: number) => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: sandbox.clock, maxAttempts: 400 });
  const mk = (): ManagedKubernetesApi => {
    if (!provider.managedKubernetes) throw new Error(`${options.name} has no managedKubernetes API`);
    return provider.managedKubernetes;
  };
  const clusterId = () => `mk${++seq}`;
  const clusterRequest = (id: string) => ({
    name: id,
    clusterId: id,
    region: fixtures.region,
    kubernetesVersion: fixtures.version,
    ...(fixtures.addons ? { addons: fixtures.addons } : {}),
  });
  const ref = (id: string) => ({ clusterId: id, name: id, region: fixtures.region });
  const liveOf = (id: string, kind: string) => sandbox.liveResources(id).filter((r) => r.kind === kind);

  describe(`managedKubernetes conformance: ${options.name}`, () => {
    beforeEach(async () => {
      sandbox = await options.sandbox();
      provider = options.makeProvider(sandbox);
    });
    afterEach(() => sandbox.stop());

    describe(title('M1'), () => {
      it('lists the fixture version and rejects an unknown one without creating a cluster', async () => {
        expect(provider.capabilities.managedKubernetes).toBe(true);
        const versions = await run(() => mk().versions(fixtures.region));
        expect(versions.cluster).toContain(fixtures.version);
        expect(versions.nodePool.length).toBeGreaterThan(0);
        const id = clusterId();
        const error = await mk()
          .ensureCluster({ ...clusterRequest(id), kubernetesVersion: '0.0.1-nope.0' })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(KubeplaneError);
        expect((error as KubeplaneError).kind).toBe('invalid');
        expect((error as KubeplaneError).message).toContain(fixtures.version);
        expect(sandbox.liveResources(id)).toEqual([]);
      });
    });

    describe(title('M2'), () => {
      it('is pending while provisioning, then running with an endpoint, and returns the same cluster again', async () => {
        const id = clusterId();
        const first = await mk().ensureCluster(clusterRequest(id));
        expect(first).toMatchObject({ status: 'pending', reason: 'in-progress' });
        const started = sandbox.clock.now();
        const cluster = await run(() => mk().ensureCluster(clusterRequest(id)));
        expect(cluster.state).toBe('running');
        expect(cluster.apiEndpoint).toMatch(/^https:\/\//);
        expect(cluster.kubernetesVersion).toBe(fixtures.version);
        expect(sandbox.clock.now() - started).toBeGreaterThan(0);
        const again = await run(() => mk().ensureCluster(clusterRequest(id)));
        expect(again.id).toBe(cluster.id);
        expect(liveOf(id, 'managed-cluster')).toHaveLength(1);
      });
    });

    describe(title('M3'), () => {
      it('creates a pool with its count once and returns it again without new machines', async () => {
        const id = clusterId();
        await run(() => mk().ensureCluster(clusterRequest(id)));
        const req = { clusterId: id, name: 'workers', serverType: fixtures.serverType, count: 2, labels: { team: 'ml' } };
        const pool = await run(() => mk().ensureNodePool(req));
        expect(pool.count).toBe(2);
        expect(pool.nodeIds).toHaveLength(2);
        const again = await run(() => mk().ensureNodePool(req));
        expect(again.id).toBe(pool.id);
        expect(again.nodeIds.sort()).toEqual([...pool.nodeIds].sort());
        expect(liveOf(id, 'node')).toHaveLength(2);
      });
    });

    describe(title('M4'), () => {
      it('scales up, then down by deleting the chosen node only; a scale-down without a choice is invalid', async () => {
        const id = clusterId();
        await run(() => mk().ensureCluster(clusterRequest(id)));
        const base = { clusterId: id, name: 'workers', serverType: fixtures.serverType };
        await run(() => mk().ensureNodePool({ ...base, count: 1 }));
        const up = await run(() => mk().ensureNodePool({ ...base, count: 3 }));
        expect(up.nodeIds).toHaveLength(3);
        const nodes = await run(() => mk().listNodePoolNodes(ref(id), 'workers'));
        expect(nodes.map((n) => n.providerId.endsWith(n.id))).toEqual([true, true, true]);
        const error = await mk()
          .ensureNodePool({ ...base, count: 2 })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect((error as KubeplaneError).kind).toBe('invalid');
        const victim = up.nodeIds[1] ?? '';
        const down = await run(() => mk().ensureNodePool({ ...base, count: 2, removeNodes: [victim] }));
        expect(down.count).toBe(2);
        expect(down.nodeIds.sort()).toEqual(up.nodeIds.filter((n) => n !== victim).sort());
        sandbox.clock.advance(600_000);
        const later = await run(() => mk().ensureNodePool({ ...base, count: 2 }));
        expect(later.nodeIds).not.toContain(victim);
        expect(later.nodeIds).toHaveLength(2);
      });
    });

    describe(title('M5'), () => {
      it("returns an admin kubeconfig for the cluster's endpoint", async () => {
        const id = clusterId();
        const cluster = await run(() => mk().ensureCluster(clusterRequest(id)));
        const kubeconfig = await run(() => mk().kubeconfig(ref(id)));
        expect(kubeconfig).toContain('kind: Config');
        expect(kubeconfig).toContain(cluster.apiEndpoint?.replace(/:\d+$/, '') ?? '');
      });
    });

    describe(title('M6'), () => {
      it('deletes pools, machines and the cluster, and a second delete is done', async () => {
        const id = clusterId();
        await run(() => mk().ensureCluster(clusterRequest(id)));
        await run(() => mk().ensureNodePool({ clusterId: id, name: 'workers', serverType: fixtures.serverType, count: 2 }));
        expect(sandbox.liveResources(id).length).toBeGreaterThan(2);
        await run(() => mk().deleteCluster(ref(id)));
        await run(() => mk().deleteCluster(ref(id)));
        expect(sandbox.liveResources(id)).toEqual([]);
        await run(() => mk().deleteNodePool({ clusterId: id, name: 'workers', region: fixtures.region }));
      });
    });
  });
}
