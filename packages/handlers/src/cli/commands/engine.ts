// `kubeplane apply | destroy | status | kubeconfig`: the engine on the local runtime. apply and destroy run
// the work to the end in this process and show it as it goes; --sandbox acts on the sandbox world kept in
// the state directory, in virtual time, and says so on every line.
import { parseArgs } from 'node:util';
import { relative, resolve } from 'node:path';
import { formatIssue, formatPlan, isKubeplaneError, validateManifestFile, type Kubeplane, type Manifest, type ManifestStatus } from '@kubeplane/sdk';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { println, UsageError, type CliIo } from '../io.js';
import { elapsed, progressPrinter } from '../progress.js';

const common = {
  sandbox: { type: 'boolean' },
  'state-dir': { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
} as const;

export const applyUsage = 'kubeplane apply <manifest> [--reconcile] [--sandbox [--netns]] [--state-dir DIR] [--json] [-v]';
export const destroyUsage = 'kubeplane destroy <manifest|project|cluster> [--sandbox] [--state-dir DIR] [--json] [-v]';
export const statusUsage = 'kubeplane status [project] [--sandbox] [--state-dir DIR] [--json]';
export const kubeconfigUsage = 'kubeplane kubeconfig <cluster> [--project P] [--sandbox] [--state-dir DIR]';

async function readManifests(file: string, io: CliIo): Promise<Manifest[] | number> {
  const shown = relative(io.cwd, resolve(io.cwd, file)) || file;
  const result = await validateManifestFile(resolve(io.cwd, file), { file: shown });
  for (const issue of result.issues) println(io.stderr, formatIssue(issue));
  return result.ok ? result.manifests : 1;
}

async function withRuntime<T>(io: CliIo, values: { sandbox?: boolean; netns?: boolean; 'state-dir'?: string }, write: boolean, command: string, fn: (rt: LocalRuntime) => Promise<T>): Promise<T> {
  const rt = await LocalRuntime.open({
    stateDir: resolve(io.cwd, values['state-dir'] ?? DEFAULT_STATE_DIR),
    sandbox: values.sandbox ?? false,
    netns: values.netns ?? false,
    env: io.env,
    cwd: io.cwd,
    write,
    command,
  });
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

/** Runs queued work to the end, printing progress; returns the final status of each project touched. */
async function runToEnd(rt: LocalRuntime, kp: Kubeplane, projects: string[], io: CliIo, json: boolean, verbose: boolean): Promise<ManifestStatus[]> {
  const off = kp.on(progressPrinter(io.stdout, { json, sandbox: rt.sandbox !== undefined, clock: rt.clock, verbose }));
  try {
    await kp.run();
  } finally {
    off();
  }
  return Promise.all(projects.map((p) => kp.status(p)));
}

export async function apply(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...common, reconcile: { type: 'boolean' }, netns: { type: 'boolean' } } });
  if (positionals.length !== 1) throw new UsageError('apply needs exactly one manifest file');
  if (values.netns && !values.sandbox) throw new UsageError('--netns boots the sandbox clouds\' machines in network namespaces; add --sandbox');
  const manifests = await readManifests(positionals[0] as string, io);
  if (typeof manifests === 'number') return manifests;
  return withRuntime(io, values, true, `apply ${positionals[0]}`, async (rt) => {
    const kp = rt.kubeplane;
    const started = rt.clock.now();
    if (rt.sandbox && !values.json) println(io.stdout, '[sandbox] virtual clouds in virtual time: nothing real is created or billed');
    for (const m of manifests) {
      const applied = await kp.apply(m, { reconcile: values.reconcile ?? false });
      if (!values.json) {
        io.stdout.write(formatPlan(applied.plan, { maxLinesPerCluster: values.verbose ? Infinity : 12 }));
        if (applied.queued.length === 0) println(io.stdout, `${m.name}: nothing to do`);
      }
    }
    if (rt.netns && !values.json) println(io.stdout, '[sandbox] --netns: machines created now boot in network namespaces on this host for as long as this command runs; later commands continue in the simulation');
    const statuses = await runToEnd(rt, kp, manifests.map((m) => m.name), io, values.json ?? false, values.verbose ?? false);
    if (rt.netns) {
      await rt.netns.pass(150_000);
      for (const r of await rt.netns.handshakes()) {
        if (!values.json) println(io.stdout, `[sandbox] cluster ${r.cluster}: overlay handshakes: ${r.handshook}/${r.expected}${r.missing.length ? ` (missing: ${r.missing.map(([a, b]) => `${a}–${b}`).join(', ')})` : ''}`);
      }
      for (const problem of rt.netns.problems()) println(io.stderr, `[sandbox] ${problem}`);
    }
    return finish(io, statuses, values.json ?? false, rt.sandbox !== undefined, rt.clock.now() - started);
  });
}

export async function destroy(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: common });
  if (positionals.length !== 1) throw new UsageError('destroy needs a manifest file or a project name');
  const target = positionals[0] as string;
  const isFile = /\.(ya?ml|json)$/i.test(target);
  const manifests = isFile ? await readManifests(target, io) : [];
  if (typeof manifests === 'number') return manifests;
  return withRuntime(io, values, true, `destroy ${target}`, async (rt) => {
    const kp = rt.kubeplane;
    const started = rt.clock.now();
    if (rt.sandbox && !values.json) println(io.stdout, '[sandbox] destroying in the sandbox world');
    const projects = isFile ? manifests.map((m) => m.name) : [target];
    if (!isFile && (await kp.status(target)).generation === 0) {
      // Not a project: a cluster of one, deleted on its own.
      const owners: string[] = [];
      for (const p of await kp.projects()) if ((await kp.status(p)).clusters[target]) owners.push(p);
      if (owners.length > 1) throw new UsageError(`clusters named ${target} exist in projects ${owners.join(', ')}; pass the manifest file instead`);
      const owner = owners[0];
      if (owner) {
        await kp.destroyCluster(owner, target);
        if (!values.json) println(io.stdout, `${owner}: deleting cluster ${target} (applying the manifest again creates it again)`);
        const statuses = await runToEnd(rt, kp, [owner], io, values.json ?? false, values.verbose ?? false);
        return finish(io, statuses, values.json ?? false, rt.sandbox !== undefined, rt.clock.now() - started);
      }
    }
    for (const [i, project] of projects.entries()) {
      const known = (await kp.status(project)).generation > 0;
      // With the manifest at hand even a cluster whose state was lost is swept by its tag.
      const m = manifests[i];
      const queued = known ? await kp.destroy(project) : m ? await kp.destroyByManifest(m) : { queued: [] };
      if (!values.json) println(io.stdout, queued.queued.length ? `${project}: deleting ${queued.queued.join(', ')}` : `${project}: nothing to delete`);
    }
    const statuses = await runToEnd(rt, kp, projects, io, values.json ?? false, values.verbose ?? false);
    const leaks = rt.sandbox?.inventory().length;
    if (!values.json && leaks !== undefined) println(io.stdout, `[sandbox] resources left in the sandbox clouds: ${leaks}`);
    return finish(io, statuses, values.json ?? false, rt.sandbox !== undefined, rt.clock.now() - started);
  });
}

function finish(io: CliIo, statuses: ManifestStatus[], json: boolean, sandbox: boolean, ms: number): number {
  const failed = statuses.some((s) => s.state === 'ERROR' || s.state === 'IN_PROGRESS');
  if (json) println(io.stdout, JSON.stringify({ sandbox, elapsedMs: ms, projects: statuses }));
  else for (const s of statuses) println(io.stdout, `${sandbox ? '[sandbox] ' : ''}${s.project}: ${s.state} after ${elapsed(ms)}${sandbox ? ' (virtual)' : ''}${describeClusters(s)}`);
  return failed ? 1 : 0;
}

function describeClusters(s: ManifestStatus): string {
  const parts = Object.entries(s.clusters).map(([name, c]) => `${name} ${c.state}${c.state === 'DONE' ? '' : `: ${c.message}`}`);
  return parts.length ? ` — ${parts.join('; ')}` : '';
}

export async function status(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: common });
  return withRuntime(io, values, false, 'status', async (rt) => {
    const kp = rt.kubeplane;
    const projects = positionals.length ? positionals : await kp.projects();
    const statuses = await Promise.all(projects.map((p) => kp.status(p)));
    if (values.json) {
      println(io.stdout, JSON.stringify({ sandbox: rt.sandbox !== undefined, projects: statuses }, null, 2));
      return 0;
    }
    if (statuses.length === 0) println(io.stdout, `${rt.sandbox ? '[sandbox] ' : ''}no projects in this state directory`);
    for (const s of statuses) {
      println(io.stdout, `${rt.sandbox ? '[sandbox] ' : ''}${s.project}: ${s.state} (generation ${s.generation})`);
      for (const [name, c] of Object.entries(s.clusters)) {
        println(io.stdout, `  ${name} [${c.id}]: ${c.state}${c.phase !== 'none' ? `, phase ${c.phase}` : ''} — ${c.message}`);
        for (const p of c.previous) println(io.stdout, `    ${p.timestamp} ${p.stage}: ${p.status} ${p.taskDescription}`);
      }
    }
    return 0;
  });
}

/** The project and name of a cluster given by name or by id (`gpu-lab` or `gpu-lab-m5ih4t7`), in one project or all. */
export async function findCluster(kp: Kubeplane, cluster: string, project?: string): Promise<{ project: string; name: string }> {
  const projects = project ? [project] : await kp.projects();
  const owners: Array<{ project: string; name: string }> = [];
  for (const p of projects) {
    for (const [name, c] of Object.entries((await kp.status(p)).clusters)) if (name === cluster || c.id === cluster) owners.push({ project: p, name });
  }
  const [first] = owners;
  if (!first) throw new UsageError(`no cluster named ${cluster} in ${projects.length ? projects.join(', ') : 'this state directory'}`);
  if (owners.length > 1) throw new UsageError(`clusters named ${cluster} exist in ${owners.map((o) => o.project).join(', ')}; pass --project`);
  return first;
}

export async function kubeconfig(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...common, project: { type: 'string' } } });
  if (positionals.length !== 1) throw new UsageError('kubeconfig needs a cluster name');
  const cluster = positionals[0] as string;
  return withRuntime(io, values, false, 'kubeconfig', async (rt) => {
    const kp = rt.kubeplane;
    const owner = await findCluster(kp, cluster, values.project);
    try {
      io.stdout.write((await kp.kubeconfig(owner.project, owner.name)).reveal());
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
