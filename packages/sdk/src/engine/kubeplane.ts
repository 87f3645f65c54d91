// The library API: `new Kubeplane({...})` with plan, apply, status, destroy, the outputs (kubeconfig, sshKey,
// metadata) and an event stream. apply and destroy record the intent and queue the first step; a runner (local, Lambda, Cloud Functions)
// does the work. `run()` drives the local runner in-process, which is what scripts and the CLI use.
import { KubeplaneError, isKubeplaneError } from '../errors.js';
import { stableJson } from '../stable-json.js';
import type { Manifest, ManifestInput } from '../manifest/schema.js';
import { toDocument } from '../manifest/serialize.js';
import { validateManifestObject } from '../manifest/validate.js';
import type { IssueFinding } from '../manifest/issues.js';
import { buildDesiredState } from '../model/desired-state.js';
import type { ClusterSpec, CurrentState } from '../model/types.js';
import { plan as planChanges } from '../plan/plan.js';
import type { Plan, PlanResult } from '../plan/types.js';
import { Redacted } from '../redacted.js';
import { ClusterSecrets } from './cluster-secrets.js';
import { dueAt, Engine, type EngineOptions } from './engine.js';
import { runWatchdog, type WatchdogOptions, type WatchdogReport } from './watchdog.js';
import type { EngineEventListener } from './events.js';
import type { StepName } from './step-names.js';
import {
  clusterKey,
  clusterRecordProblem,
  emptyLedger,
  manifestState,
  newIncarnation,
  projectKey,
  projectRecordProblem,
  pushStage,
  RECORD_VERSION,
  secretName,
  type ClusterRecord,
  type ClusterStatus,
  type ManifestState,
  type ProjectRecord,
} from './records.js';
import type { ProviderDef } from '../manifest/schema.js';
import type { Versioned } from './ports/state-store.js';
import { desiredOf, regionKey } from './steps/common.js';
import { metadataOf, type ClusterMetadata } from './steps/outputs.js';
import { LocalRunner, type RunOptions, type RunReport } from './runner.js';
import { establishedPools, preflight, type PreflightIssue } from './preflight.js';
import { autoscaledPool, growthAllowedAt, nodeGroupOf, scaledPrevious, type NodeGroup } from './pool-scaling.js';
import { isPending } from '../provider/outcome.js';
import { providerAddonIds } from './steps/managed.js';
import { adapterAddressOf } from '../addons/values.js';
import { freshKeyPairs } from '../bootstrap/pki.js';
import { systemRandomSource } from '../bootstrap/random.js';
import { adapterServingTls, parseAdapterAddress, type AdapterServingTls } from './autoscaler-tls.js';
import { isChartAddon } from '../addons/catalog.js';
import { providerUpgradeProblem } from '../addons/provider-releases.js';

/**
 * Changes the planner explains but the engine does not carry out yet on an existing cluster. apply refuses
 * them rather than report DONE for work it did not do.
 */
const NOT_YET_CARRIED_OUT: Partial<Record<Plan['operations'][number]['kind'], string>> = {
  'change-api-endpoint':
    'moving the API endpoint of an existing cluster (new serving certificates and kubeconfigs) is not carried out yet; keep its API load balancer as it is',
};

/**
 * What a managed service cannot change on a running cluster, said before anything is touched: a node pool's instance
 * type (a different type is a new pool), removing an add-on it installed, an upgrade of one of those the seed's rules
 * refuse (from what the cluster last reported); the planner refuses an older control-plane version. A newer one is let
 * through: the control-plane step records it when the provider already runs it (an upgrade Crusoe
 * support made), and refuses it otherwise, since CMK has no upgrade call. Add-ons added, upgraded or removed after
 * creation go through kubeplane's in-cluster mechanism (steps/addons.ts), as on a self-managed cluster.
 */
function managedChangesRefused(built: ClusterSpec, spec: ClusterSpec, record: ClusterRecord): string[] {
  if (spec.controlPlane !== 'managed' || built.controlPlane !== 'managed') return [];
  const out: string[] = [];
  // The add-ons CMK installed at creation are CMK's Helm releases, not kubeplane's: removing one from the manifest
  // would change nothing, so it is refused rather than silently ignored. A version upgrades CMK's release.
  for (const id of record.ledger.managed?.addonsAtCreation ?? providerAddonIds(built)) {
    const after = spec.addons.find((a) => a.name === id);
    if (!after) {
      out.push(
        `cluster ${spec.name}: the managed service installs its add-ons at creation and kubeplane cannot remove ${id}, which ` +
          `it installed; uninstall its Helm release yourself and then remove it from the manifest, or create a new cluster`,
      );
      continue;
    }
    const installed = record.status.addons?.find((a) => a.name === id)?.installedVersion;
    const problem = installed && isChartAddon(id) ? providerUpgradeProblem(id, installed, after.version, after.config) : null;
    if (problem) out.push(`cluster ${spec.name}: ${problem}`);
  }
  for (const pool of spec.pools) {
    const before = built.pools.find((p) => p.name === pool.name);
    if (before && before.serverType !== pool.serverType) {
      out.push(
        `cluster ${spec.name}: node pool ${pool.name} cannot change its instance type (${before.serverType ?? ''} ` +
          `-> ${pool.serverType ?? ''}) on the managed service; add a pool with the new type and remove the old one`,
      );
    }
  }
  return out;
}

/**
 * The manifest as validation makes it, whatever a caller hands in: a Manifest from validateManifest*, one built or
 * changed in code since, or a manifest document (`{ apiVersion, kind, ... }`). Every problem is named, with its path,
 * before anything is read or recorded; a TypeScript type is no guarantee for a caller in JavaScript or across JSON.
 */
function checkedManifest(input: unknown, action: string): Manifest {
  const checked = validatedManifest(input, action);
  if ('manifest' in checked) return checked.manifest;
  const name = typeof input === 'object' && input !== null ? (input as { name?: unknown; metadata?: { name?: unknown } }) : {};
  const project = typeof name.name === 'string' ? name.name : typeof name.metadata?.name === 'string' ? name.metadata.name : undefined;
  // What is not a manifest at all is said as it is; a manifest's problems each with its path.
  const text = checked.errors.map((i) => (i.path === NOT_A_MANIFEST ? i.message : `${i.path}: ${i.message}`)).join('\n');
  throw new KubeplaneError('invalid', text, {
    ...(project !== undefined ? { resource: project } : {}),
    code: 'InvalidManifest',
  });
}

/** The path of a problem with what was given as a whole (the path validation gives the document itself). */
const NOT_A_MANIFEST = '(document)';

/**
 * A manifest (the model validation gives, or a document such as a ManifestInput) validated as validateManifestObject
 * would, with its defaults filled in; or its errors, at least one.
 */
function validatedManifest(input: unknown, action: string): { manifest: Manifest } | { errors: [IssueFinding, ...IssueFinding[]] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      errors: [
        {
          severity: 'error',
          path: NOT_A_MANIFEST,
          message:
            `${action} takes a manifest (a ManifestInput, or one from validateManifestText, validateManifestFile or ` +
            `validateManifestObject), not ${input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input}`,
        },
      ],
    };
  }
  const result = validateManifestObject('apiVersion' in input ? input : toDocument(input as Manifest));
  if (!result.ok) return { errors: result.errors };
  const [manifest] = result.manifests;
  if (!manifest) return { errors: [{ severity: 'error', path: NOT_A_MANIFEST, message: `${action} takes one manifest; none was given` }] };
  return { manifest };
}

/** Every pool of a cluster (its compute and control pools) with its counts, for status. */
function poolCounts(r: ClusterRecord): PoolCounts[] {
  const spec = r.desired ?? r.current;
  if (!spec || r.target === 'absent') return [];
  // A node is `running` in the ledger only as the engine last listed it from its provider (kubeplane's own removals
  // since take it out), so the count is the cloud's as of that read, reported with its time.
  const readAt = r.ledger.machinesReadAt;
  return spec.pools.map((p) => {
    const failure = r.ledger.growthFailures?.[p.name];
    return {
      name: p.name,
      target: p.count,
      ...(p.autoscaler ? { min: p.autoscaler.min, max: p.autoscaler.max } : {}),
      running: Object.values(r.ledger.nodes).filter((n) => n.pool === p.name && n.state === 'running').length,
      ...(readAt !== undefined ? { readAt: new Date(readAt).toISOString() } : {}),
      ...(failure
        ? {
            lastFailure: {
              kind: failure.kind,
              message: failure.message,
              at: new Date(failure.at).toISOString(),
              retryAfter: new Date(growthAllowedAt(failure)).toISOString(),
            },
          }
        : {}),
    };
  });
}

/**
 * What a project has used after one more apply: each provider entry (the latest definition by name) and every
 * `<provider>/<region>` of the desired clusters' networks, added to what it used before.
 */
function usedBy(before: ProjectRecord['used'], manifest: Manifest, clusters: readonly ClusterSpec[]): NonNullable<ProjectRecord['used']> {
  const providers = new Map<string, ProviderDef>((before?.providers ?? []).map((d) => [d.name, d]));
  for (const d of manifest.providers) providers.set(d.name, d);
  const regions = new Set(before?.regions ?? []);
  for (const c of clusters) for (const n of c.networks) regions.add(regionKey(n.provider, n.region));
  return { providers: [...providers.values()].sort((a, b) => a.name.localeCompare(b.name)), regions: [...regions].sort() };
}

/** A project's name as every method takes it: a string, or a clear error for a caller without types. */
function checkedProject(project: unknown): string {
  if (typeof project !== 'string' || project === '')
    throw new KubeplaneError(
      'invalid',
      `a project is named by a non-empty string, not ${project === '' ? 'an empty string' : project === null ? 'null' : typeof project}`,
      { code: 'InvalidProject' },
    );
  return project;
}

/** A manifest's status in Claudie's shape: its state and each cluster's. */
export interface ManifestStatus {
  project: string;
  state: ManifestState;
  generation: number;
  clusters: Record<string, ClusterStatus & { id: string; pools?: PoolCounts[] }>;
}

/** A pool's counts as status shows them: its target, limits when autoscaled, machines running, the last refused growth. */
export interface PoolCounts {
  name: string;
  target: number;
  min?: number;
  max?: number;
  /** Machines of the pool its provider listed as running when the engine last read them (at `readAt`), less those kubeplane removed since. */
  running: number;
  /** When that was (ISO 8601); absent for a cluster whose machines were last read before kubeplane kept the time. */
  readAt?: string;
  lastFailure?: { kind: string; message: string; at: string; retryAfter: string };
}

/** What destroy did: the clusters it scheduled for deletion. */
export interface DestroyResult {
  /** Clusters whose deletion was queued. */
  queued: string[];
  /** Of those, the ones with no readable record: swept by their tag in every provider region the project used. */
  swept: string[];
}

/** What apply did: the plan and the generation it started. */
export interface ApplyResult {
  generation: number;
  plan: Plan;
  /** Clusters whose work was queued (unchanged clusters are left alone). */
  queued: string[];
}

/** The SDK's entry point: apply, destroy and read the status of manifests through one engine. */
export class Kubeplane {
  readonly engine: Engine;
  readonly #options: EngineOptions;
  #runner: LocalRunner | undefined;

  constructor(options: EngineOptions) {
    this.#options = options;
    this.engine = new Engine(options);
  }

  /** Adds a listener of the engine's events; the function returned removes it. */
  on(listener: EngineEventListener): () => void {
    return this.engine.on(listener);
  }

  /** What exists for a project, as recorded: the built spec of each cluster (or what is being built). */
  async currentState(project: string): Promise<CurrentState> {
    const records = await this.#clusterRecords(project);
    return { project, clusters: records.map((r) => r.current ?? r.desired).filter((c): c is ClusterSpec => c !== null) };
  }

  /** The plan apply would carry out now. The manifest is validated again (see apply). */
  async plan(input: Manifest | ManifestInput): Promise<PlanResult> {
    const manifest = checkedManifest(input, 'plan');
    return (await this.#planWith(manifest, await this.#clusterRecords(manifest.name))).planned;
  }

  /**
   * The desired state and the plan to it. Identities already given out (indices, addresses, ranges) come from
   * what is being built or was built; the plan compares with what was built.
   */
  async #planWith(manifest: Manifest, records: ClusterRecord[]) {
    const specs = (pick: (r: ClusterRecord) => ClusterSpec | null): CurrentState => ({
      project: manifest.name,
      clusters: records.map(pick).filter((c): c is ClusterSpec => c !== null),
    });
    const desired = buildDesiredState(
      manifest,
      specs((r) => r.desired ?? r.current),
    );
    return {
      desired,
      planned: planChanges(
        desired,
        specs((r) => r.current),
      ),
    };
  }

  /**
   * The manifest against its providers' live catalogs (credentials, regions, zones, server types, images, DNS zones),
   * as the first step of apply checks it, without recording anything: for callers that want the problems before they
   * apply (the CLI prints them with file:line). The answers are cached, so the step that follows asks nothing again.
   *
   * Every problem is an issue of the result, never an exception: a manifest that does not validate (its errors),
   * credentials that cannot be read (a variable not set, a file missing) or that a cloud refuses, and whatever a
   * catalog lacks. It throws only when a cloud cannot be asked now (throttled, unreachable: a retryable
   * KubeplaneError), which says nothing about the manifest.
   */
  async preflight(input: Manifest | ManifestInput): Promise<PreflightIssue[]> {
    const checked = validatedManifest(input, 'preflight');
    if (!('manifest' in checked)) return checked.errors.map((e) => ({ severity: e.severity, path: e.path, message: e.message }));
    const manifest = checked.manifest;
    const defs = new Map(manifest.providers.map((p) => [p.name, p]));
    const providerOf = (name: string, region?: string) => {
      const def = defs.get(name);
      if (!def) throw new KubeplaneError('invalid', `provider "${name}" is not in the manifest of project ${manifest.name}`);
      return this.engine.providerFor(manifest.name, def, region);
    };
    const records = await this.#clusterRecords(manifest.name);
    const { desired } = await this.#planWith(manifest, records);
    const established = establishedPools(
      records.flatMap((r) => (r.current ? [r.current] : [])),
      desired.clusters,
    );
    return preflight(manifest, providerOf, this.engine.catalogs, this.#options.clock.now(), { established });
  }

  /**
   * Records the manifest as the project's desired state and queues the work. Rejects invalid changes before touching
   * anything. `reconcile: true` runs every cluster's flow even when nothing changed, so drift is repaired: machines
   * deleted behind kubeplane's back are created again, firewall rules and DNS records are put back as declared.
   * What it is given is validated again, as validateManifestObject would: a manifest changed in code after its
   * validation, or built by hand, is refused with every problem named ('invalid', code InvalidManifest).
   */
  async apply(input: Manifest | ManifestInput, options: { reconcile?: boolean } = {}): Promise<ApplyResult> {
    const manifest = checkedManifest(input, 'apply');
    const { clock } = this.#options;
    const records = await this.#clusterRecords(manifest.name);
    const { desired, planned } = await this.#planWith(manifest, records);
    if (!planned.ok) {
      throw new KubeplaneError('invalid', planned.issues.map((i) => `${i.path}: ${i.message}`).join('\n'), { resource: manifest.name, code: 'InvalidChange' });
    }
    const unsupported = planned.plan.operations
      .filter((o) => NOT_YET_CARRIED_OUT[o.kind] && records.some((r) => r.clusterId === o.clusterId && r.current))
      .map((o) => `cluster ${o.cluster}: ${NOT_YET_CARRIED_OUT[o.kind]} (${o.reason})`);
    for (const spec of desired.clusters) {
      const record = records.find((r) => r.clusterId === spec.id);
      if (record?.current) unsupported.push(...managedChangesRefused(record.current, spec, record));
    }
    if (unsupported.length > 0) {
      throw new KubeplaneError('invalid', [...new Set(unsupported)].join('\n'), { resource: manifest.name, code: 'UnsupportedChange' });
    }

    const project = await this.#updateProject(manifest.name, (p) => ({
      ...p,
      generation: p.generation + 1,
      manifest,
      lastManifest: manifest,
      used: usedBy(p.used, manifest, desired.clusters),
      clusters: { ...p.clusters, ...Object.fromEntries(desired.clusters.map((c) => [c.name, c.id])) },
      establishedPools: [
        ...establishedPools(
          records.flatMap((r) => (r.current ? [r.current] : [])),
          desired.clusters,
        ),
      ].sort(),
      updatedAt: clock.now(),
    }));
    const queued: string[] = [];
    const changed = new Set(planned.plan.operations.map((o) => o.clusterId));
    for (const spec of desired.clusters) {
      const existing = records.find((r) => r.clusterId === spec.id);
      const settled = existing && existing.status.state === 'DONE' && existing.target === 'present' && !changed.has(spec.id) && !options.reconcile;
      if (settled) continue;
      // A reconcile (a schedule, say) never interrupts work under way or brings back a cluster being deleted.
      const busy = existing && (existing.status.state === 'IN_PROGRESS' || existing.status.state === 'WAIT_FOR_PICKUP' || existing.target === 'absent');
      if (options.reconcile && busy && stableJson(existing.desired) === stableJson(spec)) continue;
      await this.#startFlow(
        spec.id,
        project,
        (r) => ({ ...r, name: spec.name, target: 'present', desired: spec, lastManifest: manifest }),
        'preflight',
        'infrastructure',
      );
      queued.push(spec.name);
    }
    for (const r of records) {
      if (desired.clusters.some((c) => c.id === r.clusterId)) continue;
      await this.#startFlow(r.clusterId, project, (x) => ({ ...x, target: 'absent' }), 'delete-dns', 'delete');
      queued.push(r.name);
    }
    return { generation: project.generation, plan: planned.plan, queued };
  }

  /**
   * Runs every cluster of the project through its flow again with the manifest last applied, repairing drift
   * (`apply(manifest, { reconcile: true })`): for a schedule, or after someone changed things in a console.
   */
  async reconcile(project: string): Promise<ApplyResult> {
    checkedProject(project);
    // A busy cluster is left to its work by the apply below, so a lost message is looked for first.
    await this.watchdog({ project });
    const stored = await this.#readProject(project);
    const manifest = stored?.value.manifest;
    if (!manifest)
      throw new KubeplaneError('not-found', `project ${project} has no applied manifest to reconcile${stored ? ' (it is being destroyed)' : ''}`, {
        resource: project,
      });
    return this.apply(manifest, { reconcile: true });
  }

  /**
   * Sets the node count of an autoscaled pool (what a cluster autoscaler asks for), within the pool's min and max, and
   * starts the cluster's flow to carry it out. `removeNodes` names exactly the nodes to take away (the autoscaler's
   * choice; the target is then the pool's count less them). The target is kept by later applies of the manifest
   * (clamped to new limits). A growth refused by the provider falls back to what exists and backs the pool off
   * (pool-scaling.ts); growth asked for within the backoff is refused with code GrowthBackedOff. Compare-and-swap safe:
   * each attempt computes the new desired state from the record it replaces.
   */
  async scalePool(
    project: string,
    cluster: string,
    pool: string,
    target: number,
    options: { removeNodes?: string[] } = {},
  ): Promise<{ target: number; queued: boolean }> {
    checkedProject(project);
    const record = (await this.#clusterRecords(project)).find((r) => r.name === cluster);
    if (!record) throw new KubeplaneError('not-found', `project ${project} has no cluster ${cluster}`, { resource: cluster });
    const stored = await this.#readProject(project);
    const manifest = stored?.value.manifest;
    if (!manifest || record.target === 'absent')
      throw new KubeplaneError('invalid', `cluster ${cluster} of project ${project} is being deleted; its pools cannot be scaled`, { resource: cluster });
    const spec = record.desired ?? record.current;
    if (!spec) throw new KubeplaneError('invalid', `cluster ${cluster} has no desired state yet`, { resource: cluster });
    const before = autoscaledPool(spec, pool);
    // Checked once here for a clear error before anything is written, and again on the record each attempt replaces.
    const request = { pool, target, ...(options.removeNodes ? { removeNodes: options.removeNodes } : {}) };
    const checked = scaledPrevious(spec, request, this.#options.clock.now(), record.ledger);
    const wanted = autoscaledPool(checked, pool).count;
    if (wanted === before.count && !options.removeNodes?.length) return { target: wanted, queued: false };
    const p = await this.#updateProject(project, (x) => ({ ...x, generation: x.generation + 1, updatedAt: this.#options.clock.now() }));
    await this.#startFlow(
      record.clusterId,
      p,
      (r) => {
        const base = r.desired ?? r.current;
        if (!base) throw new KubeplaneError('invalid', `cluster ${cluster} has no desired state`, { resource: cluster });
        const previous = scaledPrevious(base, request, this.#options.clock.now(), r.ledger);
        const desired = buildDesiredState(manifest, { project, clusters: [previous] }).clusters.find((c) => c.name === cluster);
        if (!desired) throw new KubeplaneError('not-found', `cluster ${cluster} is no longer in project ${project}'s manifest`, { resource: cluster });
        return { ...r, target: 'present', desired };
      },
      'preflight',
      'infrastructure',
    );
    return { target: wanted, queued: true };
  }

  /**
   * The autoscaled pools of a cluster as node groups: limits, target, nodes with their state and provider id, a
   * template node from the provider's instance catalog (for scale-from-zero) and the last refused growth.
   */
  async nodeGroups(project: string, cluster: string): Promise<NodeGroup[]> {
    checkedProject(project);
    const record = (await this.#clusterRecords(project)).find((r) => r.name === cluster);
    if (!record) throw new KubeplaneError('not-found', `project ${project} has no cluster ${cluster}`, { resource: cluster });
    const spec = record.desired ?? record.current;
    if (!spec) return [];
    const stored = await this.#readProject(project);
    const manifest = stored?.value.manifest ?? record.lastManifest;
    const out: NodeGroup[] = [];
    for (const pool of spec.pools) {
      if (!pool.autoscaler || pool.kind !== 'dynamic') continue;
      const typed = autoscaledPool(spec, pool.name);
      out.push(nodeGroupOf(record, typed, await this.#serverTypeSize(project, manifest, pool)));
    }
    return out;
  }

  /** cpu, memory and GPUs of a pool's server type from its provider's catalog (cached per run), if the catalog answers. */
  async #serverTypeSize(
    project: string,
    manifest: Manifest | null,
    pool: ClusterSpec['pools'][number],
  ): Promise<{ vcpus: number; memoryGiB: number; gpus?: number } | undefined> {
    const def = manifest?.providers.find((d) => d.name === pool.provider?.name);
    if (!def || !pool.provider || !pool.serverType) return undefined;
    const region = pool.provider.region;
    const compute = (await this.engine.providerFor(project, def, region)).compute;
    if (!compute) return undefined;
    // The catalog preflight reads, under its key: an autoscaler asks every scan, the cloud is asked once an hour.
    const types = await this.engine.catalogs
      .get(`${stableJson(def)}/server-types/${region}`, async () => {
        const o = await compute.serverTypes(region);
        if (isPending(o)) throw new KubeplaneError(o.reason === 'throttled' ? 'throttled' : 'retryable', `${def.name} server types of ${region}: ${o.message}`);
        return o.value;
      })
      .catch((e: unknown) => {
        // Throttled or busy: the template comes from the pool's machineSpec until the next ask.
        if (isKubeplaneError(e) && e.retryable) return undefined;
        throw e;
      });
    return types?.find((t) => t.name === pool.serverType);
  }

  /**
   * Deletes every cluster of the project, whatever state it is in. A cluster whose record was lost or cannot be read
   * (the project record still names it) is swept by its tag, in every provider and region the project ever used,
   * from the manifest last applied (`swept` names them). The deletion is over when findStatus(project) answers null; a
   * cluster left in ERROR failed for good (its message says why and what is left), and destroy may be asked again.
   */
  async destroy(project: string): Promise<DestroyResult> {
    return this.#destroy(checkedProject(project), null);
  }
  /**
   * Deletes one cluster of a project. The project's manifest is left as it is: applying it again creates the
   * cluster again, as a declarative manifest should.
   */
  async destroyCluster(project: string, cluster: string): Promise<{ queued: string[] }> {
    const record = (await this.#clusterRecords(project)).find((r) => r.name === cluster);
    if (!record) throw new KubeplaneError('not-found', `project ${project} has no cluster ${cluster}`);
    const p = await this.#updateProject(project, (x) => ({ ...x, generation: x.generation + 1, updatedAt: this.#options.clock.now() }));
    await this.#startFlow(record.clusterId, p, (x) => ({ ...x, target: 'absent' }), 'delete-dns', 'delete');
    return { queued: [cluster] };
  }

  /**
   * destroy() with the manifest at hand: its clusters are deleted too when the state holds nothing of them (state
   * lost, or never recorded here), swept by their tag in the manifest's provider regions; the cluster ids are derived
   * from it. Clusters the project record names beyond the manifest's are deleted as destroy() deletes them.
   */
  async destroyByManifest(input: Manifest | ManifestInput): Promise<DestroyResult> {
    const manifest = checkedManifest(input, 'destroyByManifest');
    return this.#destroy(manifest.name, manifest);
  }

  async #destroy(project: string, manifest: Manifest | null): Promise<DestroyResult> {
    const given = manifest ? buildDesiredState(manifest).clusters : [];
    const p = await this.#updateProject(project, (x) => ({
      ...x,
      generation: x.generation + 1,
      manifest: null,
      ...((x.lastManifest ?? x.manifest ?? manifest) ? { lastManifest: (x.lastManifest ?? x.manifest ?? manifest) as Manifest } : {}),
      ...(manifest ? { used: usedBy(x.used, manifest, given) } : {}),
      clusters: { ...x.clusters, ...Object.fromEntries(given.map((c) => [c.name, c.id])) },
      updatedAt: this.#options.clock.now(),
    }));
    const last = p.lastManifest ?? null;
    const known = last ? buildDesiredState(last).clusters : [];
    const regions = p.used?.regions ?? [];
    const queued: string[] = [];
    const swept: string[] = [];
    for (const [name, id] of Object.entries(p.clusters).sort(([a], [b]) => a.localeCompare(b))) {
      const found = await this.#readCluster(id);
      const spec = given.find((c) => c.id === id) ?? known.find((c) => c.id === id) ?? null;
      const from = given.some((c) => c.id === id) ? manifest : last;
      if (found && 'record' in found) {
        await this.#startFlow(
          id,
          p,
          (x) => ({ ...x, target: 'absent', desired: x.desired ?? spec, lastManifest: x.lastManifest ?? from }),
          'delete-dns',
          'delete',
        );
      } else {
        // Lost, or unreadable: swept by its tag from what the project record kept; a fresh record replaces a bad one.
        await this.#startFlow(
          id,
          p,
          (x) => ({
            ...x,
            name,
            target: 'absent',
            desired: spec,
            lastManifest: from,
            ledger: { ...x.ledger, regions: [...new Set([...x.ledger.regions, ...regions])] },
          }),
          'delete-dns',
          'delete',
          { replace: found !== null },
        );
        swept.push(name);
      }
      queued.push(name);
    }
    if (queued.length === 0) {
      const again = await this.#options.state.get<ProjectRecord>(projectKey(project));
      if (again) await this.#options.state.delete(projectKey(project), again.revision);
    }
    return { queued, swept };
  }

  /**
   * Re-queues every IN_PROGRESS cluster (of one project, or all) whose current step's message is overdue: due more
   * than `overdueAfterSeconds` ago (default: the queue's visibility timeout + the lease + 60 s, the longest a message
   * can be in flight). Its message was lost (a crash between the record write and the send, a queue that dropped
   * it); the step's attempt is bumped with compare-and-swap, so the old message, if it still exists, is stale.
   * For the schedule of serverless runtimes, and every CLI command that holds the writer lock.
   */
  watchdog(options: WatchdogOptions = {}): Promise<WatchdogReport> {
    return runWatchdog(this.engine, options);
  }

  /** Runs queued work in this process until none is left (see LocalRunner). */
  async run(options?: RunOptions): Promise<RunReport> {
    const participant = this.engine.options.clockParticipant;
    this.#runner ??= new LocalRunner(this.engine, this.engine.pullQueue(), this.#options.clock);
    return this.#runner.runUntilIdle(participant ? { participant, ...options } : options);
  }

  /** The state of a project and each of its clusters; 'not-found' (naming no other project) for a project never applied or deleted whole. */
  async status(project: string): Promise<ManifestStatus> {
    const status = await this.findStatus(project);
    // Naming only what the caller named: a service passes this message on, and the other projects are other tenants'.
    if (!status) throw new KubeplaneError('not-found', `no project named ${project}`, { resource: project });
    return status;
  }

  /** As status, but null for a project that is not recorded: never applied, or deleted whole. */
  async findStatus(project: string): Promise<ManifestStatus | null> {
    checkedProject(project);
    const stored = await this.#readProject(project);
    // A record that cannot be read is shown, not thrown: status still answers, and destroy still sweeps it.
    const { records, unreadable } = await this.#readClusters(project);
    if (!stored && records.length === 0) return null;
    const broken: ManifestStatus['clusters'] = Object.fromEntries(
      unreadable.map((u) => [u.name, { state: 'ERROR' as const, phase: 'none' as const, message: u.message, previous: [], id: u.id }]),
    );
    return {
      project,
      state: unreadable.length ? 'ERROR' : manifestState(records, stored?.value.manifest === null && records.length > 0),
      generation: stored?.value.generation ?? 0,
      clusters: { ...broken, ...Object.fromEntries(records.map((r) => [r.name, { ...r.status, id: r.clusterId, pools: poolCounts(r) }])) },
    };
  }

  /**
   * Sets a cluster's status to ERROR with a message a person can act on, when its current step is the one an
   * undeliverable (poison) message named; a cluster that has moved on since is left alone. Returns whether it
   * was marked. Runtimes call it when a message has failed too often to retry (SQS: past maxReceiveCount).
   */
  async markFailed(clusterId: string, message: string, expect?: { generation: number; seq: number }): Promise<boolean> {
    const { state, clock } = this.#options;
    for (let i = 0; i < 20; i++) {
      const stored = await state.get<ClusterRecord>(clusterKey(clusterId));
      if (!stored) return false;
      const r = stored.value;
      if (r.status.state !== 'IN_PROGRESS') return false;
      if (expect && (expect.generation !== r.generation || expect.seq !== r.step.seq)) return false;
      const status: ClusterStatus = { ...r.status, previous: [...r.status.previous] };
      pushStage(status, { status: 'ERROR', stage: r.step.phase, taskDescription: message, timestamp: new Date(clock.now()).toISOString() });
      const next: ClusterRecord = { ...r, status: { ...status, state: 'ERROR', message: `${r.step.name}: ${message}` } };
      try {
        await state.put(clusterKey(clusterId), next, stored.revision);
        this.engine.emit({
          type: 'error',
          at: clock.now(),
          project: r.project,
          cluster: r.name,
          phase: r.step.phase,
          // The record holds the name of a step of its flow (the engine wrote it), stored as text.
          step: r.step.name as StepName,
          message,
          kind: 'undeliverable',
        });
        return true;
      } catch (e) {
        if (!(isKubeplaneError(e) && e.kind === 'conflict')) throw e;
      }
    }
    throw new KubeplaneError('conflict', `cluster ${clusterId} is being changed by others; try again`);
  }

  /** The names of the projects in the StateStore. */
  async projects(): Promise<string[]> {
    return (await this.#options.state.list('projects/')).map((k) => k.slice('projects/'.length));
  }

  /** The admin kubeconfig of a finished cluster. */
  async kubeconfig(project: string, cluster: string): Promise<Redacted<string>> {
    const record = await this.#clusterRecord(project, cluster);
    const value = await new ClusterSecrets(this.#options.secrets, record.clusterId, {}).output('kubeconfig');
    if (!value) throw new KubeplaneError('not-found', `cluster ${cluster} has no kubeconfig yet (status: ${record.status.state}, ${record.status.message})`);
    return value;
  }

  /**
   * What `kubeplane autoscaler-adapter serve` serves with when the cluster's cluster_autoscaler add-on names an adapter
   * outside the cluster (config.adapterAddress): a certificate for that address's host from the cluster's autoscaler CA,
   * whose client half apply wrote into the cluster. Null when the add-on names no such address (plain gRPC, beside it).
   */
  async autoscalerAdapterTls(project: string, cluster: string): Promise<AdapterServingTls | null> {
    const record = await this.#clusterRecord(project, cluster);
    const spec = record.desired ?? record.current;
    const address = adapterAddressOf(spec?.addons.find((a) => a.name === 'cluster_autoscaler'));
    if (address === undefined) return null;
    const parsed = parseAdapterAddress(address);
    if (!parsed) throw new KubeplaneError('invalid', `cluster ${cluster}: config.adapterAddress "${address}" is not host:port`, { resource: cluster });
    const tls = await new ClusterSecrets(this.#options.secrets, record.clusterId, {}).autoscalerTls();
    if (!tls)
      throw new KubeplaneError(
        'not-found',
        `cluster ${cluster} has no autoscaler certificates yet: apply installs the cluster_autoscaler add-on first (status: ${record.status.state})`,
        { resource: cluster },
      );
    const options = { random: this.engine.options.random ?? systemRandomSource(), now: new Date(this.#options.clock.now()) };
    return adapterServingTls(tls, parsed, this.engine.options.keyPairs ?? freshKeyPairs, options);
  }

  /**
   * The private SSH key of a cluster's machines, in OpenSSH's format (`ssh -i`, `ssh-keygen -y` read it); there from
   * the cluster's first step on, so a cluster that stopped half-built can be logged in to. Keys of clusters made before
   * kubeplane wrote this format (PKCS#8 PEM) are converted as they are read.
   */
  async sshKey(project: string, cluster: string): Promise<Redacted<string>> {
    const record = await this.#clusterRecord(project, cluster);
    const ssh = await new ClusterSecrets(this.#options.secrets, record.clusterId, {}).ssh();
    if (!ssh) throw new KubeplaneError('not-found', `cluster ${cluster} has no SSH key yet (status: ${record.status.state}, ${record.status.message})`);
    return ssh.privateKey;
  }

  /**
   * The metadata output of a finished cluster (docs/outputs.md): its nodes' addresses by pool and load balancer and the
   * SSH key, in the shape Claudie's guide reads with jq. A cluster finished before this shape (and before the OpenSSH
   * key format) gets its metadata made again from its record, with the key converted.
   */
  async metadata(project: string, cluster: string): Promise<Redacted<ClusterMetadata>> {
    const record = await this.#clusterRecord(project, cluster);
    const secrets = new ClusterSecrets(this.#options.secrets, record.clusterId, {});
    const stored = await secrets.output('metadata');
    if (!stored) throw new KubeplaneError('not-found', `cluster ${cluster} has no metadata yet (status: ${record.status.state}, ${record.status.message})`);
    let value: Partial<ClusterMetadata>;
    try {
      value = JSON.parse(stored.reveal()) as Partial<ClusterMetadata>;
    } catch {
      // Not the parser's message: it quotes the text, which holds the key.
      throw new KubeplaneError('invalid', `the metadata output of cluster ${cluster} is not valid JSON; run \`apply --reconcile\` to write it again`, {
        resource: secretName(record.clusterId, 'metadata'),
      });
    }
    if (typeof value.cluster_private_key === 'string' && value.nodepools) return Redacted.of(value as ClusterMetadata);
    const ssh = await secrets.ssh();
    if (!ssh) throw new KubeplaneError('not-found', `cluster ${cluster} has no SSH key (status: ${record.status.state}, ${record.status.message})`);
    return Redacted.of(metadataOf(record.current ?? desiredOf(record), record.ledger, ssh.privateKey.reveal()));
  }

  async #clusterRecord(project: string, cluster: string): Promise<ClusterRecord> {
    const record = (await this.#clusterRecords(project)).find((r) => r.name === cluster);
    if (!record) throw new KubeplaneError('not-found', `project ${project} has no cluster ${cluster}`);
    return record;
  }

  async #clusterRecords(project: string): Promise<ClusterRecord[]> {
    const { records, unreadable } = await this.#readClusters(project);
    const [bad] = unreadable;
    if (bad) throw new KubeplaneError('invalid', bad.message, { resource: bad.where, code: 'CorruptRecord' });
    return records;
  }

  /** The project's cluster records, and each one the state holds that is not a record, with the fix. */
  async #readClusters(project: string): Promise<{ records: ClusterRecord[]; unreadable: Array<{ name: string; id: string; where: string; message: string }> }> {
    checkedProject(project);
    const stored = await this.#readProject(project);
    const records: ClusterRecord[] = [];
    const unreadable: Array<{ name: string; id: string; where: string; message: string }> = [];
    for (const [name, id] of Object.entries(stored?.value.clusters ?? {})) {
      const r = await this.#readCluster(id);
      if (r && 'problem' in r) {
        const where = this.#where(clusterKey(id));
        unreadable.push({
          name,
          id,
          where,
          message:
            `${where} (cluster ${name} of project ${project}) cannot be read: ${r.problem}. Restore it from a backup; or delete the cluster with ` +
            `\`kubeplane destroy ${project}\` (SDK: destroy('${project}')), which sweeps its resources by their tag whatever the record holds`,
        });
      } else if (r) records.push(r.record);
    }
    return { records: records.sort((a, b) => a.name.localeCompare(b.name)), unreadable };
  }

  #where(key: string): string {
    return this.#options.state.where?.(key) ?? `state key ${key}`;
  }

  /** A cluster record, or why the stored value is not one (with its revision, so a sweep can replace it). */
  async #readCluster(id: string): Promise<{ record: ClusterRecord; revision: number } | { problem: string; revision: number } | null> {
    const r = await this.#options.state.get<ClusterRecord>(clusterKey(id));
    if (!r) return null;
    const problem = clusterRecordProblem(r.value);
    return problem ? { problem, revision: r.revision } : { record: r.value, revision: r.revision };
  }

  /** The project record; one that is not a project record is named with the fix. */
  async #readProject(project: string): Promise<Versioned<ProjectRecord> | null> {
    const stored = await this.#options.state.get<ProjectRecord>(projectKey(project));
    const problem = stored && projectRecordProblem(stored.value);
    if (problem) {
      throw new KubeplaneError(
        'invalid',
        `${this.#where(projectKey(project))} (project ${project}) cannot be read: ${problem}. Restore it from a backup; or move it ` +
          `away and run \`kubeplane destroy <manifest file>\` (SDK: destroyByManifest), which sweeps the manifest's clusters by their tag`,
        { resource: this.#where(projectKey(project)), code: 'CorruptRecord' },
      );
    }
    return stored;
  }

  async #updateProject(project: string, change: (p: ProjectRecord) => ProjectRecord): Promise<ProjectRecord> {
    const { state, clock } = this.#options;
    for (let i = 0; i < 20; i++) {
      const stored = await this.#readProject(project);
      const base: ProjectRecord = stored?.value ?? { v: RECORD_VERSION, project, generation: 0, manifest: null, clusters: {}, updatedAt: clock.now() };
      const next = change(base);
      try {
        await state.put(projectKey(project), next, stored?.revision ?? 0);
        return next;
      } catch (e) {
        if (!(isKubeplaneError(e) && e.kind === 'conflict')) throw e;
      }
    }
    throw new KubeplaneError('conflict', `project ${project} is being changed by others; try again`);
  }

  /** Moves a cluster's record to the start of a flow at the project's generation, and queues that step. */
  async #startFlow(
    clusterId: string,
    project: ProjectRecord,
    change: (r: ClusterRecord) => ClusterRecord,
    step: 'preflight' | 'delete-dns',
    phase: 'infrastructure' | 'delete',
    options: { replace?: boolean } = {},
  ): Promise<void> {
    const { state, clock } = this.#options;
    for (let i = 0; i < 20; i++) {
      const stored = await state.get<ClusterRecord>(clusterKey(clusterId));
      // `replace`: the stored value is not a record (see clusterRecordProblem); a fresh one takes its place, by revision.
      const base: ClusterRecord = (options.replace ? undefined : stored?.value) ?? {
        v: RECORD_VERSION,
        project: project.project,
        name: Object.entries(project.clusters).find(([, id]) => id === clusterId)?.[0] ?? clusterId,
        clusterId,
        incarnation: newIncarnation(),
        generation: 0,
        target: 'present',
        desired: null,
        current: null,
        ledger: emptyLedger(),
        pki: null,
        step: { phase, name: step, seq: 0, since: clock.now(), attempts: 0 },
        status: { state: 'WAIT_FOR_PICKUP', phase: 'none', message: '', previous: [] },
        lastManifest: null,
      };
      const next = change(base);
      // Records written before incarnations existed get one now (their messages in flight are stale).
      next.incarnation = base.incarnation || newIncarnation();
      next.generation = project.generation;
      next.step = { phase, name: step, seq: base.step.seq + 1, since: clock.now(), attempts: 0, dueAt: dueAt(clock.now(), 0) };
      // A fresh record after a bad one: its step numbers go on from the revision, so no message of the old one matches.
      if (options.replace && stored) next.step.seq = stored.revision + 1;
      next.status = { ...base.status, state: 'IN_PROGRESS', phase, message: step === 'preflight' ? 'queued' : 'deletion queued' };
      try {
        await state.put(clusterKey(clusterId), next, stored?.revision ?? 0);
        this.engine.emit({ type: 'phase-started', at: clock.now(), project: next.project, cluster: next.name, phase });
        await this.engine.enqueue(next);
        return;
      } catch (e) {
        if (!(isKubeplaneError(e) && e.kind === 'conflict')) throw e;
      }
    }
    throw new KubeplaneError('conflict', `cluster ${clusterId} is being changed by others; try again`);
  }
}
