// `kubeplane apply | destroy | status | kubeconfig`: the engine on the local runtime. apply and destroy run
// the work to the end in this process and show it as it goes; --sandbox acts on the sandbox world kept in
// the state directory, in virtual time, and says so on every line.
import { parseCommandArgs } from '../command-args.js';
import { relative, resolve } from 'node:path';
import {
  formatIssue,
  formatPlan,
  isKubeplaneError,
  KubeplaneError,
  validateManifestFile,
  type AddonStatus,
  type EngineEvent,
  type Kubeplane,
  type Manifest,
  type ManifestStatus,
  type Plan,
  type ValidationIssue,
  type ValidationResult,
} from '@kubeplane/sdk';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { EXIT, println, print, UsageError, type CliIo } from '../io.js';
import { invalidManifest, jsonResult } from '../json-output.js';
import { writeSecretDocument } from '../secret-output.js';
import { secretsClusterResolver, type SecretsClusterOptions } from '../../runtime/credentials.js';
import { checkCredentials, type CheckOptions } from './credentials-check.js';
import { type SandboxWorldOptions, sandboxWorldOptions } from './sandbox-world.js';
import { preflightAll } from './preflight-check.js';
import { DELETED, elapsed, printUnreadyMachines, progressPrinter } from '../progress.js';

const common = {
  sandbox: { type: 'boolean' },
  'state-dir': { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
} as const;

/** The cluster Kubernetes-Secret secretRefs are read from (commands that resolve credentials: apply, destroy). */
const secretsCluster = {
  'secrets-context': { type: 'string' },
  'secrets-kubeconfig': { type: 'string' },
} as const;

async function readManifests(file: string, io: CliIo, json: string | undefined): Promise<Manifest[] | number> {
  const result = await readValidated(file, io, json);
  return typeof result === 'number' ? result : result.manifests;
}

/**
 * The manifests of a file, its issues printed (one line each on stderr), or the exit code of a file with errors.
 * With --json (`json`: the command's name) the issues wait for the result line instead.
 */
async function readValidated(file: string, io: CliIo, json: string | undefined): Promise<ValidationResult | number> {
  const shown = relative(io.cwd, resolve(io.cwd, file)) || file;
  const result = await validateManifestFile(resolve(io.cwd, file), { file: shown });
  if (json) return result.ok ? result : jsonResult(io, json, EXIT.failed, { error: invalidManifest(result.issues), issues: result.issues });
  for (const issue of result.issues) println(io.stderr, formatIssue(issue));
  return result.ok ? result : EXIT.failed;
}

export async function withRuntime<T>(
  io: CliIo,
  values: {
    sandbox?: boolean;
    netns?: boolean;
    'state-dir'?: string;
    'secrets-context'?: string;
    'secrets-kubeconfig'?: string;
    /** The sandbox world's account and start, when the world is made (--aws-opt-in-regions, --sandbox-date). */
    world?: SandboxWorldOptions;
  },
  write: boolean,
  command: string,
  fn: (rt: LocalRuntime) => Promise<T>,
): Promise<T> {
  const rt = await LocalRuntime.open({
    ...values.world,
    stateDir: resolve(io.cwd, values['state-dir'] ?? DEFAULT_STATE_DIR),
    sandbox: values.sandbox ?? false,
    netns: values.netns ?? false,
    env: io.env,
    cwd: io.cwd,
    write,
    command,
    ...secretsOptions(values),
  });
  try {
    const r = rt.recovery;
    if (write && (r.messages || r.leases || r.requeued.length)) {
      println(
        io.stderr,
        `${rt.sandbox ? '[sandbox] ' : ''}resuming after an interrupted run: ${r.messages} step message(s) in flight and ${r.leases} ` +
          `lease(s) released${r.requeued.length ? `, queued again: ${r.requeued.map((x) => `${x.cluster} ${x.step}`).join(', ')}` : ''}`,
      );
    }
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

/** The secrets cluster's options as the runtime takes them. */
function secretsOptions(values: { 'secrets-context'?: string; 'secrets-kubeconfig'?: string }): SecretsClusterOptions {
  if (values['secrets-context'] === '') throw new UsageError('--secrets-context needs the name of a kubeconfig context');
  if (values['secrets-kubeconfig'] === '') throw new UsageError('--secrets-kubeconfig needs a file name');
  return {
    ...(values['secrets-context'] !== undefined ? { secretsContext: values['secrets-context'] } : {}),
    ...(values['secrets-kubeconfig'] !== undefined ? { secretsKubeconfig: values['secrets-kubeconfig'] } : {}),
  };
}

/** The engine's events from now on, held until runToEnd prints them. */
interface HeldEvents {
  events: EngineEvent[];
  off: () => void;
}

/**
 * Starts holding the engine's events: apply and destroy emit each flow's first phase-started as they queue it, before
 * anything runs, so the printer must be listening by then. Held (not printed) so the plan is printed first.
 */
function holdEvents(kp: Kubeplane): HeldEvents {
  const events: EngineEvent[] = [];
  return { events, off: kp.on((e) => void events.push(e)) };
}

/** Runs queued work to the end (or to the step in hand, after Ctrl-C), printing progress; the final status of each project touched, or null if interrupted. */
async function runToEnd(
  rt: LocalRuntime,
  kp: Kubeplane,
  projects: string[],
  io: CliIo,
  json: boolean,
  verbose: boolean,
  held: HeldEvents,
): Promise<ManifestStatus[] | null> {
  const printer = progressPrinter(io.stdout, { json, sandbox: rt.sandbox !== undefined, clock: rt.clock, verbose, env: io.env });
  // No await between these: no event falls between the holder and the printer.
  held.off();
  for (const e of held.events) printer(e);
  const off = kp.on(printer);
  let report;
  try {
    report = await kp.run({ beforeMessage: () => io.signal?.aborted === true });
  } finally {
    off();
    printer.close();
  }
  if (report.stopped === 'stopped') return null;
  // A project whose every cluster was deleted is gone from the state: an empty status, which finish calls DELETED.
  return Promise.all(
    projects.map(async (p) => (await kp.findStatus(p)) ?? { project: p, state: 'WATCHING_FOR_CHANGES' as const, generation: 0, clusters: {} }),
  );
}

function interrupted(io: CliIo, rt: LocalRuntime, command: string, json: boolean): number {
  const message = `interrupted: the step in hand finished and everything is saved; run \`kubeplane ${command}\` again to continue`;
  if (json) return jsonResult(io, command.split(' ')[0] ?? command, EXIT.interrupted, { error: { kind: 'interrupted', message } });
  println(io.stderr, `${rt.sandbox ? '[sandbox] ' : ''}${message}`);
  return EXIT.interrupted;
}

export async function apply(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...common,
      ...secretsCluster,
      reconcile: { type: 'boolean' },
      netns: { type: 'boolean' },
      'without-dns-zones': { type: 'boolean' },
      'aws-opt-in-regions': { type: 'string' },
      'sandbox-date': { type: 'string' },
      'user-data-transform': { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('apply needs exactly one manifest file');
  if (values.netns && !values.sandbox) throw new UsageError("--netns boots the sandbox clouds' machines in network namespaces; add --sandbox");
  if (values['without-dns-zones'] && !values.sandbox)
    throw new UsageError("--without-dns-zones leaves the manifest's DNS zones out of the sandbox accounts; add --sandbox");
  if (values['aws-opt-in-regions'] !== undefined && !values.sandbox)
    throw new UsageError("--aws-opt-in-regions enables opt-in Regions in the sandbox's AWS account; add --sandbox");
  if (values['sandbox-date'] !== undefined && !values.sandbox) throw new UsageError("--sandbox-date sets the day the sandbox's clock starts; add --sandbox");
  if (values['user-data-transform'] !== undefined && !values.sandbox)
    throw new UsageError("--user-data-transform changes what the sandbox's machines boot from; add --sandbox");
  const world = await sandboxWorldOptions(values, io.cwd);
  const json = values.json ?? false;
  const validated = await readValidated(positionals[0] as string, io, json ? 'apply' : undefined);
  if (typeof validated === 'number') return validated;
  const manifests = validated.manifests;
  const secrets = secretsClusterResolver(secretsOptions(values), io.env, io.cwd);
  /** The credentials that do not resolve, printed; the exit code then, or undefined when all do. */
  const credentialsRefused = async (options: CheckOptions, sandbox: boolean): Promise<number | undefined> => {
    const missing = await checkCredentials(validated, { env: io.env, cwd: io.cwd, kubernetes: secrets }, options);
    if (!missing.length) return undefined;
    const message = 'credentials missing: nothing was recorded';
    if (json) return jsonResult(io, 'apply', EXIT.failed, { error: { kind: 'auth', message }, issues: missing });
    for (const issue of missing) println(io.stderr, `${sandbox ? '[sandbox] ' : ''}credentials: ${formatIssue(issue)}`);
    println(io.stderr, `${sandbox ? '[sandbox] ' : ''}${message}`);
    return EXIT.failed;
  };
  if (!values.sandbox) {
    // Before the state directory is even opened: a credential that does not resolve stops the apply with nothing recorded.
    const refused = await credentialsRefused({}, false);
    if (refused !== undefined) return refused;
  }
  return withRuntime(io, { ...values, world }, true, `apply ${positionals[0]}`, async (rt) => {
    const kp = rt.kubeplane;
    const started = rt.clock.now();
    if (rt.sandbox && !values.json) println(io.stdout, '[sandbox] virtual clouds in virtual time: nothing real is created or billed');
    if (rt.sandbox && secrets) {
      // With a secrets cluster named, the sandbox rehearses the read of each Kubernetes Secret (its clouds then get
      // their own keys). Here, once the sandbox answers: the cluster named may be one of its own.
      const refused = await credentialsRefused({ kubernetesOnly: true }, true);
      if (refused !== undefined) return refused;
    }
    if (rt.sandbox && !values['without-dns-zones']) {
      // The sandbox accounts hold the zones the manifest names, as the user's own accounts would. (Loaded here only:
      // an apply on real clouds never loads the sandbox.)
      const { holdManifestDnsZones } = await import('@kubeplane/sandbox');
      const added = manifests.flatMap((m) => (rt.sandbox ? holdManifestDnsZones(rt.sandbox, m) : []));
      if (added.length && !values.json) println(io.stdout, `[sandbox] DNS zones the manifest names, added to the sandbox accounts: ${added.join(', ')}`);
    }
    const preflight = await preflightAll(kp, validated, io, rt.sandbox ? rt.clock : undefined, json);
    if (!preflight.ok) {
      return json
        ? jsonResult(io, 'apply', EXIT.failed, { error: { kind: 'invalid', message: 'preflight failed: nothing was created' }, issues: preflight.issues })
        : EXIT.failed;
    }
    const plans: Plan[] = [];
    const held = holdEvents(kp);
    for (const m of manifests) {
      const applied = await kp.apply(m, { reconcile: values.reconcile ?? false });
      plans.push(applied.plan);
      if (!values.json) {
        print(io.stdout, formatPlan(applied.plan, { maxLinesPerCluster: values.verbose ? Infinity : 12 }));
        if (applied.queued.length === 0) println(io.stdout, `${m.name}: nothing to do`);
      }
    }
    if (rt.netns && !values.json)
      println(
        io.stdout,
        '[sandbox] --netns: machines created now boot in network namespaces on this host ' +
          'for as long as this command runs; later commands continue in the simulation',
      );
    const statuses = await runToEnd(
      rt,
      kp,
      manifests.map((m) => m.name),
      io,
      values.json ?? false,
      values.verbose ?? false,
      held,
    );
    if (!statuses) return interrupted(io, rt, `apply ${argv.join(' ')}`, json);
    const overlay: Array<{ cluster: string; handshook: number; expected: number }> = [];
    if (rt.netns) {
      await rt.netns.pass(150_000);
      for (const r of await rt.netns.handshakes()) {
        overlay.push({ cluster: r.cluster, handshook: r.handshook, expected: r.expected });
        if (!values.json)
          println(
            io.stdout,
            `[sandbox] cluster ${r.cluster}: overlay handshakes: ` +
              `${r.handshook}/${r.expected}${r.missing.length ? ` (missing: ${r.missing.map(([a, b]) => `${a}–${b}`).join(', ')})` : ''}`,
          );
      }
      for (const problem of rt.netns.problems()) println(io.stderr, `[sandbox] ${problem}`);
    }
    if (rt.sandbox && !json && statuses.some((s) => s.state === 'ERROR')) printUnreadyMachines(io.stderr, rt.sandbox.kubernetes.kubelets());
    return finish(io, 'apply', statuses, json, rt.sandbox !== undefined, rt.clock.now() - started, {
      plans,
      ...(rt.netns ? { overlay } : {}),
      ...(preflight.issues.length ? { issues: preflight.issues } : {}),
    });
  });
}

export async function destroy(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    allowPositionals: true,
    options: { ...common, ...secretsCluster, yes: { type: 'boolean', short: 'y' } },
  });
  if (positionals.length !== 1) throw new UsageError('destroy needs a manifest file or a project name');
  const target = positionals[0] as string;
  const isFile = /\.(ya?ml|json)$/i.test(target);
  const manifests = isFile ? await readManifests(target, io, values.json ? 'destroy' : undefined) : [];
  if (typeof manifests === 'number') return manifests;
  if (!values.sandbox && !values.yes) {
    // Real machines are about to go: a person confirms, a script says so with --yes (as terraform's -auto-approve).
    if (!io.stdin?.isTTY || values.json)
      throw new UsageError(
        `destroy deletes real cloud resources; pass --yes to confirm${values.json ? ' (--json never asks)' : ' (standard input is not a terminal to ask on)'}`,
      );
    const what = isFile ? `every cluster of ${manifests.map((m) => m.name).join(', ')}` : target;
    if (!(await confirm(io, `Delete ${what} on the real clouds, with every resource tagged with its clusters? Only 'yes' confirms: `))) {
      println(io.stderr, 'destroy: not confirmed; nothing was deleted');
      return EXIT.failed;
    }
  }
  return withRuntime(io, values, true, `destroy ${target}`, async (rt) => {
    const kp = rt.kubeplane;
    const started = rt.clock.now();
    const json = values.json ?? false;
    if (rt.sandbox && !json) println(io.stdout, '[sandbox] destroying in the sandbox world');
    const projects = isFile ? manifests.map((m) => m.name) : [target];
    // The ids of the clusters being deleted, to count what of theirs is left in the sandbox clouds afterwards.
    const ids = new Set<string>();
    const idsOf = async (project: string): Promise<void> => {
      for (const c of Object.values((await kp.findStatus(project))?.clusters ?? {})) ids.add(c.id);
    };
    let owner: string | undefined;
    const held = holdEvents(kp);
    if (!isFile && !(await kp.findStatus(target))?.generation) {
      // Not a project: a cluster of one, deleted on its own.
      const owners: string[] = [];
      for (const p of await kp.projects()) if ((await kp.findStatus(p))?.clusters[target]) owners.push(p);
      // Errors name only what the caller named: the other projects of a shared state directory are not theirs to list.
      if (owners.length > 1) throw new UsageError(`clusters named ${target} exist in ${owners.length} projects; pass the manifest file instead`);
      owner = owners[0];
      if (!owner) throw new KubeplaneError('not-found', `no project or cluster named ${target} in ${rt.stateDir}`, { resource: target });
      const cluster = (await kp.findStatus(owner))?.clusters[target];
      if (cluster) ids.add(cluster.id);
      await kp.destroyCluster(owner, target);
      if (!json) println(io.stdout, `${owner}: deleting cluster ${target} (applying the manifest again creates it again)`);
    } else {
      for (const [i, project] of projects.entries()) {
        const known = ((await kp.findStatus(project))?.generation ?? 0) > 0;
        // With the manifest at hand even a cluster whose state was lost is swept by its tag.
        const m = manifests[i];
        const result = m ? await kp.destroyByManifest(m) : known ? await kp.destroy(project) : { queued: [], swept: [] };
        await idsOf(project);
        if (!json) println(io.stdout, result.queued.length ? `${project}: deleting ${result.queued.join(', ')}` : `${project}: nothing to delete`);
        if (!json && result.swept.length)
          println(
            io.stdout,
            `${project}: no readable record of ${result.swept.join(', ')}: swept by the ` +
              `tag kubeplane.dev/cluster-id=<id> in every provider region the project used`,
          );
      }
    }
    const statuses = await runToEnd(rt, kp, owner ? [owner] : projects, io, json, values.verbose ?? false, held);
    if (!statuses) return interrupted(io, rt, `destroy ${argv.join(' ')}`, json);
    let left = 0;
    if (rt.sandbox) {
      const inventory = rt.sandbox.inventory();
      // Only what carries a deleted cluster's kubeplane.dev/cluster-id tag is theirs (kubeplane tags all it makes): an
      // instance made by hand, or another project's cluster, is no failure of this destroy.
      const ours = inventory.filter((i) => i.clusterId !== undefined && ids.has(i.clusterId));
      const others = inventory.length - ours.length;
      left = ours.length;
      if (!json)
        println(
          io.stdout,
          `[sandbox] resources left in the sandbox clouds: ${left}` +
            (others > 0 ? ` (besides ${others} not of the deleted clusters: made by hand, or another project's)` : ''),
        );
      if (left > 0)
        println(
          io.stderr,
          `[sandbox] ${left} resource(s) of the deleted clusters are left: ${ours
            .slice(0, 10)
            .map((l) => `${l.cloud} ${l.kind} ${l.name ?? l.id}`)
            .join(', ')}${left > 10 ? ', …' : ''}`,
        );
    }
    // Done only when every cluster asked for is gone: a deletion that failed for good leaves its cluster (in ERROR).
    const remaining = statuses.flatMap((s) =>
      Object.entries(s.clusters)
        .filter(([name]) => !owner || name === target)
        .map(([name, c]) => `${s.project}/${name} ${c.state}: ${c.message}`),
    );
    if (remaining.length && !json)
      println(
        io.stderr,
        `${rt.sandbox ? '[sandbox] ' : ''}not deleted: ${remaining.join('; ')}; its resources ` +
          `are left in the clouds: run \`kubeplane destroy ${target}\` again once the cause is fixed`,
      );
    return finish(
      io,
      'destroy',
      statuses,
      json,
      rt.sandbox !== undefined,
      rt.clock.now() - started,
      { ...(rt.sandbox ? { leftResources: left } : {}), ...(remaining.length ? { notDeleted: remaining } : {}) },
      left > 0 || remaining.length > 0,
    );
  });
}

/** Asks on the terminal; true for an answer of exactly `yes`. */
async function confirm(io: CliIo, question: string): Promise<boolean> {
  const stdin = io.stdin;
  if (!stdin) return false;
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: stdin, output: io.stderr, terminal: false });
  try {
    return (await rl.question(question)).trim() === 'yes';
  } finally {
    rl.close();
  }
}

function finish(
  io: CliIo,
  command: string,
  statuses: ManifestStatus[],
  json: boolean,
  sandbox: boolean,
  ms: number,
  extra: { issues?: ValidationIssue[] } & Record<string, unknown> = {},
  leftovers = false,
): number {
  const failed = leftovers || statuses.some((s) => s.state === 'ERROR' || s.state === 'IN_PROGRESS');
  if (json) return jsonResult(io, command, failed ? EXIT.failed : EXIT.ok, { sandbox, elapsedMs: ms, ...extra, projects: statuses });
  // A project whose every cluster was deleted is gone from the state: say so, not its empty status's state.
  const stateOf = (s: ManifestStatus): string => (s.generation === 0 && Object.keys(s.clusters).length === 0 ? DELETED : s.state);
  if (!json)
    for (const s of statuses)
      println(io.stdout, `${sandbox ? '[sandbox] ' : ''}${s.project}: ${stateOf(s)} after ${elapsed(ms)}${sandbox ? ' (virtual)' : ''}${describeClusters(s)}`);
  return failed ? EXIT.failed : EXIT.ok;
}

function describeClusters(s: ManifestStatus): string {
  const parts = Object.entries(s.clusters).map(([name, c]) => `${name} ${c.state}${c.state === 'DONE' ? '' : `: ${c.message}`}`);
  return parts.length ? ` — ${parts.join('; ')}` : '';
}

export async function status(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({ args: argv, allowPositionals: true, options: common });
  return withRuntime(io, values, false, 'status', async (rt) => {
    const kp = rt.kubeplane;
    const projects = positionals.length ? positionals : await kp.projects();
    const found = await Promise.all(projects.map(async (p) => ({ p, s: await kp.findStatus(p) })));
    const statuses = found.flatMap(({ s }) => (s ? [s] : []));
    const unknown = found.filter(({ s }) => !s).map(({ p }) => p);
    // Naming only the projects asked for (`kubeplane status` with none lists what there is).
    if (unknown.length) throw new KubeplaneError('not-found', `no project named ${unknown.join(', ')} in ${rt.stateDir}`, { resource: unknown.join(', ') });
    if (values.json) return jsonResult(io, 'status', EXIT.ok, { sandbox: rt.sandbox !== undefined, projects: statuses });
    if (statuses.length === 0) println(io.stdout, `${rt.sandbox ? '[sandbox] ' : ''}no projects in this state directory`);
    for (const s of statuses) {
      println(io.stdout, `${rt.sandbox ? '[sandbox] ' : ''}${s.project}: ${s.state} (generation ${s.generation})`);
      for (const [name, c] of Object.entries(s.clusters)) {
        println(io.stdout, `  ${name} [${c.id}]: ${c.state}${c.phase !== 'none' ? `, phase ${c.phase}` : ''} — ${c.message}`);
        for (const p of c.previous) println(io.stdout, `    ${p.timestamp} ${p.stage}: ${p.status} ${p.taskDescription}`);
        // Each pool's counts, running as of the engine's last read of the cloud (status itself calls no cloud); an
        // autoscaled pool with its limits and the last growth its provider refused.
        for (const pool of c.pools ?? []) {
          const limits = pool.min !== undefined ? ` (autoscaled ${pool.min}–${pool.max})` : '';
          const readAt = pool.readAt ? ` (as the cloud reported at ${pool.readAt})` : '';
          const refused = pool.lastFailure
            ? `; growth refused ${pool.lastFailure.at} (${pool.lastFailure.kind}: ${pool.lastFailure.message}), backed off until ${pool.lastFailure.retryAfter}`
            : '';
          println(io.stdout, `    pool ${pool.name}: ${pool.target} wanted${limits}, ${pool.running} running${readAt}${refused}`);
        }
        for (const line of addonLines(c.addons ?? [])) println(io.stdout, `    ${line}`);
      }
    }
    return 0;
  });
}

/** One line per add-on: name, chart, declared and installed version, state, and the message while not installed. */
export function addonLines(addons: readonly AddonStatus[]): string[] {
  if (addons.length === 0) return [];
  return [
    'add-ons:',
    ...addons.map((a) => {
      const versions =
        a.installedVersion && a.installedVersion !== a.declaredVersion
          ? `${a.installedVersion} -> ${a.declaredVersion}`
          : (a.installedVersion ?? a.declaredVersion);
      return `  ${a.name} (${a.chart} ${versions}): ${a.state}${a.state === 'installed' ? '' : ` — ${a.message}`}`;
    }),
  ];
}

/** The project and name of a cluster given by name or by id (`gpu-lab` or `gpu-lab-m5ih4t7`), in one project or all. */
export async function findCluster(kp: Kubeplane, cluster: string, project?: string): Promise<{ project: string; name: string }> {
  const projects = project ? [project] : await kp.projects();
  const owners: Array<{ project: string; name: string }> = [];
  for (const p of projects) {
    for (const [name, c] of Object.entries((await kp.findStatus(p))?.clusters ?? {}))
      if (name === cluster || c.id === cluster) owners.push({ project: p, name });
  }
  const [first] = owners;
  // Naming only what the caller named: the project given with --project, never the others of the state directory.
  if (!first)
    throw new KubeplaneError('not-found', `no cluster named ${cluster} in ${project ? `project ${project}` : 'this state directory'}`, { resource: cluster });
  if (owners.length > 1) throw new UsageError(`clusters named ${cluster} exist in ${owners.length} projects; pass --project`);
  return first;
}

export async function kubeconfig(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    allowPositionals: true,
    options: { ...common, project: { type: 'string' }, out: { type: 'string' } },
  });
  if (values.out === '') throw new UsageError('--out needs a file name');
  if (positionals.length !== 1) throw new UsageError('kubeconfig needs a cluster name');
  const cluster = positionals[0] as string;
  return withRuntime(io, values, false, 'kubeconfig', async (rt) => {
    const kp = rt.kubeplane;
    const owner = await findCluster(kp, cluster, values.project);
    try {
      await writeSecretDocument(io, (await kp.kubeconfig(owner.project, owner.name)).reveal(), values.out);
    } catch (e) {
      if (isKubeplaneError(e)) {
        println(io.stderr, `kubeplane kubeconfig: ${e.message}`);
        return 1;
      }
      throw e;
    }
    return 0;
  });
}
