// `kubeplane sandbox lifecycle <manifest>`: the whole life of a manifest's clusters on the sandbox clouds, in
// virtual time and in memory — create, scale a pool up and down, add a pool and remove it, destroy — with a
// summary that ends in the count of resources left behind in the sandbox clouds (which must be 0).
import { parseArgs } from 'node:util';
import { relative, resolve } from 'node:path';
import { formatIssue, validateManifestFile, type Manifest } from '@kubeplane/sdk';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { println, UsageError, type CliIo } from '../io.js';
import { elapsed, progressPrinter } from '../progress.js';

export const lifecycleUsage = 'kubeplane sandbox lifecycle <manifest> [--seed N] [--json] [-v]';

interface Stage {
  name: string;
  manifest: Manifest | null;
}

/** The stages, derived from the manifest: its first fixed-size compute pool is the one scaled and copied. */
export function lifecycleStages(m: Manifest): Stage[] {
  const cluster = m.kubernetes.clusters[0];
  const pool = m.nodePools.dynamic.find((p) => p.count !== undefined && (cluster?.pools.compute ?? []).includes(p.name));
  if (!cluster || !pool || pool.count === undefined) {
    return [{ name: 'create', manifest: m }, { name: 'destroy', manifest: null }];
  }
  const withCount = (n: number): Manifest => ({ ...m, nodePools: { ...m.nodePools, dynamic: m.nodePools.dynamic.map((p) => (p.name === pool.name ? { ...p, count: n } : p)) } });
  const up = Math.min(255, pool.count + 2);
  const down = Math.max(1, pool.count - 1);
  const extraName = ['extra', 'extra-pool', 'lifecycle-x'].find((n) => !m.nodePools.dynamic.some((p) => p.name === n) && !m.nodePools.static.some((p) => p.name === n)) ?? 'extra-2';
  const scaledDown = withCount(down);
  const withExtra: Manifest = {
    ...scaledDown,
    nodePools: { ...scaledDown.nodePools, dynamic: [...scaledDown.nodePools.dynamic, { ...pool, name: extraName, count: 1 }] },
    kubernetes: { clusters: scaledDown.kubernetes.clusters.map((c) => (c.name === cluster.name ? { ...c, pools: { ...c.pools, compute: [...(c.pools.compute ?? []), extraName] } } : c)) },
  };
  return [
    { name: 'create', manifest: m },
    { name: `scale ${pool.name} up ${pool.count} -> ${up}`, manifest: withCount(up) },
    { name: `scale ${pool.name} down ${up} -> ${down}`, manifest: scaledDown },
    { name: `add pool ${extraName}`, manifest: withExtra },
    { name: `remove pool ${extraName}`, manifest: scaledDown },
    { name: 'destroy', manifest: null },
  ];
}

export async function lifecycle(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { seed: { type: 'string' }, json: { type: 'boolean' }, verbose: { type: 'boolean', short: 'v' } },
  });
  if (positionals.length !== 1) throw new UsageError('lifecycle needs exactly one manifest file');
  const file = positionals[0] as string;
  const shown = relative(io.cwd, resolve(io.cwd, file)) || file;
  const validated = await validateManifestFile(resolve(io.cwd, file), { file: shown });
  for (const issue of validated.issues) println(io.stderr, formatIssue(issue));
  const manifest = validated.manifests[0];
  if (!validated.ok || !manifest) return 1;
  const seed = Number(values.seed ?? 1);
  if (!Number.isInteger(seed)) throw new UsageError('--seed must be a whole number');

  const realStart = performance.now();
  const rt = await LocalRuntime.open({ stateDir: DEFAULT_STATE_DIR, sandbox: true, memory: true, env: io.env, cwd: io.cwd, seed });
  const sandbox = rt.sandbox;
  if (!sandbox) throw new Error('the lifecycle runs on the sandbox');
  const kp = rt.kubeplane;
  const json = values.json ?? false;
  const off = kp.on(progressPrinter(io.stdout, { json, sandbox: true, clock: rt.clock, verbose: values.verbose ?? false }));
  const rows: Array<{ stage: string; state: string; virtual: string; machines: number; ready: number; messages: number }> = [];
  let ok = true;
  try {
    if (!json) println(io.stdout, `[sandbox] ${shown}: the whole lifecycle on virtual clouds, in virtual time (seed ${seed})`);
    for (const stage of lifecycleStages(manifest)) {
      if (!json) println(io.stdout, `[sandbox] == ${stage.name}`);
      const t0 = rt.clock.now();
      if (stage.manifest) await kp.apply(stage.manifest);
      else await kp.destroy(manifest.name);
      const run = await kp.run();
      const status = await kp.status(manifest.name);
      const state = stage.manifest ? status.state : Object.keys(status.clusters).length === 0 ? 'DELETED' : status.state;
      const good = stage.manifest ? state === 'DONE' : state === 'DELETED';
      ok &&= good;
      rows.push({
        stage: stage.name,
        state,
        virtual: elapsed(rt.clock.now() - t0),
        machines: sandbox.liveMachines().length,
        ready: stage.manifest ? sandbox.kubernetes.inventory().clusters.flatMap((c) => c.nodes).filter((n) => n.ready).length : 0,
        messages: run.messages,
      });
      if (!good) {
        println(io.stderr, `[sandbox] ${stage.name} ended ${state}: ${Object.values(status.clusters).map((c) => c.message).join('; ')}`);
        break;
      }
    }
  } finally {
    off();
  }
  const leaked = sandbox.inventory();
  const calls = sandbox.totalCalls();
  await rt.close();
  const summary = { manifest: shown, seed, stages: rows, apiCalls: calls, leakedResources: leaked.length, leaked, realSeconds: (performance.now() - realStart) / 1000 };
  if (json) {
    println(io.stdout, JSON.stringify(summary));
  } else {
    println(io.stdout, '');
    println(io.stdout, '[sandbox] summary');
    const header = ['stage', 'result', 'virtual time', 'machines', 'Ready nodes', 'steps'];
    const table = [header, ...rows.map((r) => [r.stage, r.state, r.virtual, String(r.machines), String(r.ready), String(r.messages)])];
    const widths = header.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
    for (const row of table) println(io.stdout, `  ${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`);
    println(io.stdout, `  cloud API calls: ${calls}; real time: ${summary.realSeconds.toFixed(1)} s`);
    println(io.stdout, `  leaked resources: ${leaked.length}${leaked.length ? ` (${leaked.map((l) => `${l.cloud} ${l.kind} ${l.name ?? l.id}`).join(', ')})` : ''}`);
  }
  return ok && leaked.length === 0 ? 0 : 1;
}
