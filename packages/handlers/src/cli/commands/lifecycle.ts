// `kubeplane sandbox lifecycle <manifest>`: the whole life of a manifest's clusters on the sandbox clouds, in
// virtual time and in memory — create, scale a pool up and down, add a pool and remove it, destroy — with a
// summary that ends in the count of resources left behind in the sandbox clouds (which must be 0).
import { parseCommandArgs } from '../command-args.js';
import { relative, resolve } from 'node:path';
import { checkKubernetesVersion, NEWEST_MINOR } from '@kubeplane/sdk/internal';
import { formatIssue, validateManifestFile, type Manifest, type ValidationIssue } from '@kubeplane/sdk';
import { holdManifestDnsZones, type NetnsSandbox } from '@kubeplane/sandbox';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { EXIT, println, UsageError, type CliIo } from '../io.js';
import { invalidManifest, jsonLine, jsonResult } from '../json-output.js';
import { DELETED, elapsed, printUnreadyMachines, progressPrinter } from '../progress.js';
import { sandboxWorldOptions } from './sandbox-world.js';
import { autoscaleStage, autoscaleWanted, type AutoscaleOutcome } from './lifecycle-autoscale.js';
import { preflightAll } from './preflight-check.js';

interface Stage {
  name: string;
  manifest: Manifest | null;
}

/** The stages, derived from the manifest: its first fixed-size compute pool is the one scaled and copied. */
export function lifecycleStages(m: Manifest): Stage[] {
  const cluster = m.kubernetes.clusters[0];
  const pool = m.nodePools.dynamic.find((p) => p.count !== undefined && (cluster?.pools.compute ?? []).includes(p.name));
  if (!cluster || !pool || pool.count === undefined) {
    return [
      { name: 'create', manifest: m },
      { name: 'destroy', manifest: null },
    ];
  }
  const withCount = (n: number): Manifest => ({
    ...m,
    nodePools: { ...m.nodePools, dynamic: m.nodePools.dynamic.map((p) => (p.name === pool.name ? { ...p, count: n } : p)) },
  });
  const up = Math.min(255, pool.count + 2);
  const down = Math.max(1, pool.count - 1);
  const extraName =
    ['extra', 'extra-pool', 'lifecycle-x'].find((n) => !m.nodePools.dynamic.some((p) => p.name === n) && !m.nodePools.static.some((p) => p.name === n)) ??
    'extra-2';
  const scaledDown = withCount(down);
  const withExtra: Manifest = {
    ...scaledDown,
    nodePools: { ...scaledDown.nodePools, dynamic: [...scaledDown.nodePools.dynamic, { ...pool, name: extraName, count: 1 }] },
    kubernetes: {
      clusters: scaledDown.kubernetes.clusters.map((c) =>
        c.name === cluster.name ? { ...c, pools: { ...c.pools, compute: [...(c.pools.compute ?? []), extraName] } } : c,
      ),
    },
  };
  const stages: Stage[] = [
    { name: 'create', manifest: m },
    { name: `scale ${pool.name} up ${pool.count} -> ${up}`, manifest: withCount(up) },
    { name: `scale ${pool.name} down ${up} -> ${down}`, manifest: scaledDown },
    { name: `add pool ${extraName}`, manifest: withExtra },
    { name: `remove pool ${extraName}`, manifest: scaledDown },
  ];
  // An in-place upgrade to the next minor (kubeadm's one-minor-at-a-time path), or the next patch on the newest minor.
  const from = checkKubernetesVersion(cluster.version);
  if (cluster.controlPlane !== 'managed' && from.ok && !from.version.build && !from.version.prerelease) {
    const v = from.version;
    const to = v.minor < NEWEST_MINOR ? `1.${v.minor + 1}.0` : `1.${v.minor}.${v.patch + 1}`;
    const upgraded: Manifest = {
      ...scaledDown,
      kubernetes: { clusters: scaledDown.kubernetes.clusters.map((c) => (c.name === cluster.name ? { ...c, version: to } : c)) },
    };
    stages.push({ name: `upgrade ${v.raw} -> ${to} in place`, manifest: upgraded });
  }
  return [...stages, { name: 'destroy', manifest: null }];
}

export interface LifecycleHooks {
  /** Called once the netns machines are attached (benchmarks sample their memory). */
  onNetns?: (netns: NetnsSandbox) => void;
}

export async function lifecycle(argv: string[], io: CliIo, hooks: LifecycleHooks = {}): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    allowPositionals: true,
    options: {
      seed: { type: 'string' },
      json: { type: 'boolean' },
      verbose: { type: 'boolean', short: 'v' },
      netns: { type: 'boolean' },
      'without-dns-zones': { type: 'boolean' },
      'aws-opt-in-regions': { type: 'string' },
      'sandbox-date': { type: 'string' },
      'user-data-transform': { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('lifecycle needs exactly one manifest file');
  const world = await sandboxWorldOptions(values, io.cwd);
  const file = positionals[0] as string;
  const shown = relative(io.cwd, resolve(io.cwd, file)) || file;
  const validated = await validateManifestFile(resolve(io.cwd, file), { file: shown });
  const json = values.json ?? false;
  const manifest = validated.manifests[0];
  if (json && (!validated.ok || !manifest))
    return jsonResult(io, 'sandbox lifecycle', EXIT.failed, { error: invalidManifest(validated.issues), issues: validated.issues });
  if (!json) for (const issue of validated.issues) println(io.stderr, formatIssue(issue));
  if (!validated.ok || !manifest) return EXIT.failed;
  const seed = Number(values.seed ?? 1);
  if (!Number.isInteger(seed)) throw new UsageError('--seed must be a whole number');

  const realStart = performance.now();
  const rt = await LocalRuntime.open({
    stateDir: DEFAULT_STATE_DIR,
    sandbox: true,
    memory: true,
    env: io.env,
    cwd: io.cwd,
    seed,
    ...world,
    netns: values.netns ?? false,
  });
  const netns = rt.netns;
  if (netns) hooks.onNetns?.(netns);
  const sandbox = rt.sandbox;
  if (!sandbox) throw new Error('the lifecycle runs on the sandbox');
  const kp = rt.kubeplane;
  // The sandbox accounts hold the DNS zones the manifest names, as the user's would; --without-dns-zones tests the refusal.
  const zones = values['without-dns-zones'] ? [] : holdManifestDnsZones(sandbox, manifest);
  const printer = progressPrinter(io.stdout, { json, sandbox: true, clock: rt.clock, verbose: values.verbose ?? false, env: io.env });
  const off = kp.on(printer);
  const rows: Array<{
    stage: string;
    state: string;
    engineState?: string;
    virtual: string;
    machines: number;
    ready: number;
    messages: number;
    overlay: string;
  }> = [];
  let ok = true;
  // The static pools' nodes that joined (Ready) at some stage: their machines were bootstrapped over SSH.
  const staticJoined = new Set<string>();
  let autoscale: AutoscaleOutcome | undefined;
  const preflightIssues: ValidationIssue[] = [];
  try {
    if (!json)
      println(
        io.stdout,
        `[sandbox] ${shown}: the whole lifecycle on virtual clouds, in virtual time (seed ` +
          `${seed})${netns ? '; every machine a network namespace with real WireGuard, nginx, etcd and TLS' : ''}`,
      );
    if (!json && zones.length) println(io.stdout, `[sandbox] DNS zones the manifest names, added to the sandbox accounts: ${zones.join(', ')}`);
    // After a failed stage the rest are skipped but destroy, which always runs: the count of what is left means
    // something only once everything was asked to go.
    let failedStage = false;
    for (const stage of lifecycleStages(manifest)) {
      if (failedStage && stage.manifest) continue;
      if (json) jsonLine(io, { type: 'stage', stage: stage.name, sandbox: true });
      else println(io.stdout, `[sandbox] == ${stage.name}`);
      const t0 = rt.clock.now();
      let run = { messages: 0 };
      // The create is checked as apply checks it, before anything is recorded: each problem with the file:line of the
      // field (the later stages are the lifecycle's own changes of the file, which the engine's preflight step checks).
      let refused = false;
      try {
        if (stage.manifest === manifest) {
          const checked = await preflightAll(kp, validated, io, rt.clock, json, [manifest]);
          preflightIssues.push(...checked.issues);
          refused = !checked.ok;
        }
        // Refused, nothing was recorded: destroy, which always runs, finds nothing to delete.
        if (!refused) {
          if (stage.manifest) await kp.apply(stage.manifest);
          else await kp.destroy(manifest.name);
          run = await kp.run();
        }
        printer.clear();
      } catch (e) {
        printer.clear();
        println(io.stderr, `[sandbox] ${stage.name} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      const status = await kp.findStatus(manifest.name);
      const state = refused ? 'ERROR' : !status ? DELETED : stage.manifest || Object.keys(status.clusters).length > 0 ? status.state : DELETED;
      let good = stage.manifest ? state === 'DONE' : state === DELETED;
      let overlay = '-';
      if (netns && stage.manifest && good) {
        // Two sync-timer periods: every node's agent has applied the peer list the engine published last.
        await netns.pass(150_000);
        const mesh = await overlayOf(netns);
        overlay = mesh.text;
        good &&= mesh.ok;
        if (!mesh.ok) println(io.stderr, `[sandbox] ${stage.name}: overlay pairs without a WireGuard handshake: ${mesh.missing}`);
        if (stage.name === 'create') {
          const workerNode = sandbox.kubernetes
            .inventory()
            .clusters.flatMap((c) => c.nodes)
            .find((n) => n.ready && !('node-role.kubernetes.io/control-plane' in n.labels));
          const worker = workerNode && sandbox.kubernetes.kubelets().find((k) => k.node === workerNode.name && k.state === 'ready');
          if (worker) {
            await netns.reboot({ cloud: worker.cloud, name: worker.vm });
            const after = await overlayOf(netns);
            if (!json) println(io.stdout, `[sandbox] rebooted ${worker.vm}: overlay handshakes: ${after.text}`);
            good &&= after.ok;
          }
        }
      }
      for (const problem of netns?.problems() ?? []) println(io.stderr, `[sandbox] ${problem}`);
      for (const k of sandbox.kubernetes.kubelets()) if (k.cloud === 'static' && k.state === 'ready' && k.node) staticJoined.add(k.node);
      ok &&= good;
      rows.push({
        stage: stage.name,
        // The engine's state, or FAILED where the engine finished but a check of the machines did not pass (the
        // overlay's handshakes): the stage is not done for the user.
        state: state === 'DONE' && !good ? 'FAILED' : state,
        ...(state === 'DONE' && !good ? { engineState: state } : {}),
        virtual: elapsed(rt.clock.now() - t0),
        machines: sandbox.liveMachines().length,
        ready: stage.manifest
          ? sandbox.kubernetes
              .inventory()
              .clusters.flatMap((c) => c.nodes)
              .filter((n) => n.ready).length
          : 0,
        messages: run.messages,
        overlay,
      });
      if (good && stage.name === 'create' && autoscaleWanted(manifest)) {
        // The autoscale stage runs on the cluster as created: pods that need more nodes, then none (lifecycle-autoscale.ts).
        const a0 = rt.clock.now();
        if (json) jsonLine(io, { type: 'stage', stage: 'autoscale', sandbox: true });
        else println(io.stdout, '[sandbox] == autoscale');
        try {
          autoscale = await autoscaleStage({ kp, sandbox, clock: rt.clock, manifest });
        } catch (e) {
          autoscale = { ok: false, message: e instanceof Error ? e.message : String(e), pools: [] };
        }
        printer.clear();
        const after = await kp.findStatus(manifest.name);
        const aState = autoscale.ok ? (after?.state ?? DELETED) : 'ERROR';
        if (!autoscale.ok) println(io.stderr, `[sandbox] autoscale failed: ${autoscale.message}`);
        else if (!json) println(io.stdout, `[sandbox] autoscale: ${autoscale.message}`);
        ok &&= autoscale.ok;
        rows.push({
          stage: 'autoscale',
          state: aState,
          virtual: elapsed(rt.clock.now() - a0),
          machines: sandbox.liveMachines().length,
          ready: sandbox.kubernetes
            .inventory()
            .clusters.flatMap((c) => c.nodes)
            .filter((n) => n.ready).length,
          messages: 0,
          overlay: '-',
        });
        if (!autoscale.ok) failedStage = true;
      }
      if (!good) {
        // A create refused by preflight said why above, line by line.
        if (!refused)
          println(
            io.stderr,
            `[sandbox] ${stage.name} ended ${state}: ${Object.values(status?.clusters ?? {})
              .map((c) => c.message)
              .join('; ')}`,
          );
        printUnreadyMachines(io.stderr, sandbox.kubernetes.kubelets());
        failedStage = true;
      }
    }
  } finally {
    off();
    printer.close();
  }
  const leaked = sandbox.inventory();
  const calls = sandbox.totalCalls();
  // The user's machines (static pools) are not deleted but reset: what kubeplane left on each must be nothing.
  const machines = await sandbox.staticMachines.info();
  const staticMachines = machines && {
    kind: machines.kind,
    description: machines.description,
    joined: [...staticJoined].sort(),
    leftovers: Object.fromEntries(
      manifest.nodePools.static.flatMap((p) => p.nodes.map((n) => [n.endpoint, sandbox.staticMachines.leftovers(n.endpoint)] as const)),
    ),
  };
  const leftoverFiles = staticMachines ? Object.values(staticMachines.leftovers).flat().length : 0;
  if (leftoverFiles > 0) {
    ok = false;
    for (const [endpoint, files] of Object.entries(staticMachines?.leftovers ?? {}))
      if (files.length) println(io.stderr, `[sandbox] static machine ${endpoint} after destroy still holds: ${files.join(', ')}`);
  }
  await rt.close();
  const summary = {
    manifest: shown,
    seed,
    stages: rows,
    ...(autoscale
      ? { autoscale: { pools: autoscale.pools, ...(autoscale.scaleUpMs !== undefined ? { scaleUpSeconds: autoscale.scaleUpMs / 1000 } : {}) } }
      : {}),
    apiCalls: calls,
    leakedResources: leaked.length,
    leaked,
    ...(staticMachines ? { staticMachines } : {}),
    realSeconds: (performance.now() - realStart) / 1000,
  };
  const code = ok && leaked.length === 0 ? EXIT.ok : EXIT.failed;
  const issues = [...validated.issues, ...preflightIssues];
  if (json) return jsonResult(io, 'sandbox lifecycle', code, { ...summary, ...(issues.length ? { issues } : {}) });
  println(io.stdout, '');
  println(io.stdout, '[sandbox] summary');
  const header = ['stage', 'result', 'virtual time', 'machines', 'Ready nodes', 'steps', 'overlay handshakes'];
  const table = [header, ...rows.map((r) => [r.stage, r.state, r.virtual, String(r.machines), String(r.ready), String(r.messages), r.overlay])];
  const widths = header.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  for (const row of table) println(io.stdout, `  ${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`);
  for (const p of autoscale?.pools ?? []) {
    println(
      io.stdout,
      `  autoscaled pool ${p.pool} (min ${p.min}, max ${p.max}): target ${p.start} -> ${p.peak} -> ${p.end}; scale-ups asked: ${p.increaseCalls}`,
    );
  }
  println(io.stdout, `  cloud API calls: ${calls}; real time: ${summary.realSeconds.toFixed(1)} s`);
  if (staticMachines)
    println(
      io.stdout,
      `  static machines: ${staticMachines.description}; ${staticMachines.joined.length} joined as Ready nodes; kubeplane files left on them: ${leftoverFiles}`,
    );
  println(
    io.stdout,
    `  leaked resources: ${leaked.length}${leaked.length ? ` (${leaked.map((l) => `${l.cloud} ${l.kind} ${l.name ?? l.id}`).join(', ')})` : ''}`,
  );
  return code;
}

/** Handshakes over every pair of machines of each cluster that should have one (the whole mesh): `X/Y`. */
async function overlayOf(netns: NetnsSandbox): Promise<{ ok: boolean; text: string; missing: string }> {
  const reports = await netns.handshakes();
  const handshook = reports.reduce((n, r) => n + r.handshook, 0);
  const expected = reports.reduce((n, r) => n + r.expected, 0);
  const missing = reports.flatMap((r) => r.missing.map(([a, b]) => `${a}–${b}`));
  return { ok: handshook === expected && expected > 0, text: `${handshook}/${expected}`, missing: missing.join(', ') };
}
