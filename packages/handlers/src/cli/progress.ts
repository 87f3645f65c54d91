// Shows the engine's events as a person or a program wants them: one line per phase, step and resource
// with the elapsed (virtual, in the sandbox) time, or one JSON object per event with --json.
import type { Clock, EngineEvent } from '@kubeplane/sdk';
import { println } from './io.js';

export interface ProgressOptions {
  json: boolean;
  /** Mark every line as sandbox output. */
  sandbox: boolean;
  clock: Clock;
  /** Print waits too (they repeat while machines boot). */
  verbose?: boolean;
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

export function progressPrinter(out: NodeJS.WritableStream, options: ProgressOptions): (e: EngineEvent) => void {
  const started = options.clock.now();
  const tag = options.sandbox ? '[sandbox] ' : '';
  return (e) => {
    if (options.json) {
      println(out, JSON.stringify({ ...e, sandbox: options.sandbox }));
      return;
    }
    const t = `${tag}+${elapsed(e.at - started).padStart(6)}`;
    switch (e.type) {
      case 'phase-started':
        println(out, `${t} ${e.cluster}: phase ${e.phase}`);
        break;
      case 'step-done':
        println(out, `${t} ${e.cluster}:   ${e.step} — ${e.message}`);
        break;
      case 'resource-created':
        if (options.verbose) println(out, `${t} ${e.cluster}:     + ${e.kind} ${e.name}${e.provider ? ` (${e.provider})` : ''}`);
        break;
      case 'resource-deleted':
        if (options.verbose) println(out, `${t} ${e.cluster}:     - ${e.kind} ${e.name}${e.provider ? ` (${e.provider})` : ''}`);
        break;
      case 'waiting':
        if (options.verbose) println(out, `${t} ${e.cluster}:   ${e.step} waits ${Math.round(e.seconds)}s: ${e.reason}`);
        break;
      case 'error':
        println(out, `${t} ${e.cluster}: ERROR in ${e.step} (${e.kind}): ${e.message}`);
        break;
      case 'cluster-done':
        println(out, `${t} ${e.cluster}: ${e.state}`);
        break;
    }
  };
}
