// Shows the engine's events as a person or a program wants them. On a terminal: one line per phase, step and
// resource, and below them a status line rewritten in place, saying for each cluster at work what it does or waits
// for, until when, and how long the command has run (refreshed every second on real clouds). Not on a terminal (a
// pipe, a CI log): one line per event, a wait included when its reason changes. With --json, one JSON object per event.
import { escapeControl, type Clock, type EngineEvent } from '@kubeplane/sdk';
import type { KubeletStatus } from '@kubeplane/sandbox';
import { println } from './io.js';
import { jsonText } from './json-output.js';

export interface ProgressOptions {
  json: boolean;
  /** Mark every line as sandbox output (its times are virtual). */
  sandbox: boolean;
  clock: Clock;
  /** Print every wait and every resource created or deleted. */
  verbose?: boolean;
  /** Draw the live status line (default: when `out` is a terminal and TERM is not `dumb`). */
  live?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** A listener for Kubeplane.on; clear() takes the status line away before others print (the next event draws it again), close() for good. */
export interface ProgressPrinter {
  (e: EngineEvent): void;
  clear(): void;
  close(): void;
}

/**
 * What the CLI prints for a project or cluster that is gone, every resource of it deleted: not a stored state (a
 * deleted project has no record), but a state as the user reads it (docs/workflow.md).
 */
export const DELETED = 'DELETED';

export function elapsed(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * What each sandbox machine that is not a Ready node says, as its kubeadm and kubelet logs would: its state, why, and
 * the last lines of its boot log. Printed when a sandbox command ends in ERROR, so a node that did not join says why.
 */
export function printUnreadyMachines(out: NodeJS.WritableStream, kubelets: KubeletStatus[], logLines = 3): void {
  for (const k of kubelets.filter((x) => x.state !== 'ready' && x.state !== 'load-balancer' && x.state !== 'stopped')) {
    println(out, `[sandbox]   ${k.cloud}/${k.vm}: ${k.state}${k.reason ? `: ${escapeControl(k.reason)}` : ''}`);
    for (const entry of k.log.slice(-logLines)) println(out, `[sandbox]     ${new Date(entry.atMs).toISOString()} ${escapeControl(entry.message)}`);
  }
}

const CLEAR_LINE = '\r\x1b[2K';

/** How often a step that keeps failing is reported again (on the run's clock: virtual in the sandbox). */
export const RETRY_REPORT_MS = 60_000;

export function progressPrinter(out: NodeJS.WritableStream, options: ProgressOptions): ProgressPrinter {
  const started = options.clock.now();
  const tag = options.sandbox ? '[sandbox] ' : '';
  const env = options.env ?? process.env;
  const live = !options.json && (options.live ?? ((out as NodeJS.WriteStream).isTTY === true && env.TERM !== 'dumb'));
  const columns = (): number => (out as NodeJS.WriteStream).columns || 100;
  /** What each cluster at work is at, for the status line. */
  const activity = new Map<string, string>();
  /** The last wait printed per cluster: what it said and when (on the run's clock). */
  const lastWait = new Map<string, { key: string; at: number }>();
  let drawn = false;
  // Real clouds: the elapsed time moves on while nothing happens. The sandbox's time is virtual: only events move it.
  const timer = live && !options.sandbox ? setInterval(() => redraw(), 1000) : undefined;
  timer?.unref();

  /** A time the way this run counts it: virtual `+1m05s` in the sandbox, the wall clock's `14:03:07` on real clouds. */
  const when = (at: number): string => (options.sandbox ? `+${elapsed(at - started)}` : new Date(at).toTimeString().slice(0, 8));

  function statusLine(): string {
    const parts = [...activity].map(([cluster, text]) => `${cluster}: ${text}`);
    const line = `${tag}… ${elapsed(options.clock.now() - started)} — ${parts.join('; ') || 'working'}`;
    return line.length > columns() - 1 ? `${line.slice(0, Math.max(10, columns() - 2))}…` : line;
  }

  function redraw(): void {
    if (!live) return;
    // Written raw (println escapes its lines): the names and reasons in it are escaped here instead.
    out.write(`${CLEAR_LINE}${escapeControl(statusLine())}`);
    drawn = true;
  }

  function line(text: string): void {
    if (live && drawn) out.write(CLEAR_LINE);
    println(out, text);
    drawn = false;
  }

  const printer = ((e: EngineEvent) => {
    if (options.json) {
      println(out, jsonText({ ...e, sandbox: options.sandbox }));
      return;
    }
    const t = `${tag}+${elapsed(e.at - started).padStart(6)}`;
    switch (e.type) {
      case 'phase-started':
        activity.set(e.cluster, `phase ${e.phase}`);
        line(`${t} ${e.cluster}: phase ${e.phase}`);
        break;
      case 'step-done':
        activity.set(e.cluster, `${e.phase}: ${e.step} done`);
        lastWait.delete(e.cluster);
        line(`${t} ${e.cluster}:   ${e.step} — ${e.message}`);
        break;
      case 'resource-created':
      case 'resource-deleted':
        if (options.verbose)
          line(`${t} ${e.cluster}:     ${e.type === 'resource-created' ? '+' : '-'} ${e.kind} ${e.name}${e.provider ? ` (${e.provider})` : ''}`);
        break;
      case 'waiting': {
        const until = e.at + e.seconds * 1000;
        const retrying =
          e.failures > 0 ? ` [attempt ${e.attempt}, ${e.failures} failure${e.failures === 1 ? '' : 's'} in a row, for ${elapsed(e.at - e.since)}]` : '';
        // When first: a long reason is what a narrow terminal cuts.
        activity.set(e.cluster, `${e.step} waits until ${when(until)}: ${e.reason}${retrying}`);
        // Off a terminal a repeated wait adds nothing; a new reason is news (it is all a slow step shows). A step that
        // keeps failing (5xx, throttling) says so again at a steady interval, with its attempts and last error, on a
        // terminal too: the status line alone would vanish with the run.
        const key = `${e.step}\n${e.reason}`;
        const last = lastWait.get(e.cluster);
        const due = e.failures > 0 && (last === undefined || e.at - last.at >= RETRY_REPORT_MS);
        if (options.verbose || (!live && last?.key !== key) || due) {
          line(`${t} ${e.cluster}:   ${e.step} waits ${Math.round(e.seconds)}s (until ${when(until)}): ${e.reason}${retrying}`);
          lastWait.set(e.cluster, { key, at: e.at });
        } else if (last?.key !== key) lastWait.set(e.cluster, { key, at: last?.at ?? e.at });
        break;
      }
      case 'error':
        line(`${t} ${e.cluster}: ERROR in ${e.step} (${e.kind}): ${e.message}`);
        break;
      case 'addon':
        line(`${t} ${e.cluster}:     add-on ${e.name} (${e.chart} ${e.declaredVersion}): ${e.state}${e.state === 'installed' ? '' : ` — ${e.message}`}`);
        break;
      case 'pool-growth-refused':
        line(`${t} ${e.cluster}:   ${e.message}`);
        break;
      case 'cluster-done':
        activity.delete(e.cluster);
        lastWait.delete(e.cluster);
        line(`${t} ${e.cluster}: ${e.state}`);
        break;
    }
    redraw();
  }) as ProgressPrinter;
  printer.clear = () => {
    if (live && drawn) out.write(CLEAR_LINE);
    drawn = false;
  };
  printer.close = () => {
    if (timer) clearInterval(timer);
    printer.clear();
  };
  return printer;
}
