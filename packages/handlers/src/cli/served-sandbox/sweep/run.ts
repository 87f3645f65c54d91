// Runs a client's sweep operations against a served sandbox, in order, and says of each whether its answer was right,
// a clear refusal, wrong, or a hang (no answer within the operation's time).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool } from '../test-support/tools.js';
import type { CliOp, PythonOp, SweepResult, SweepVars } from './ops.js';

/** Longer than any operation the sandbox answers: a client still waiting then is hanging (hcloud retries a 409 forever). */
export const HANG_MS = 30_000;

/** Runs `ops` with the command-line client `bin` (`baseArgs` first: a kubeconfig, an endpoint). */
export async function runCliOps(bin: string, baseArgs: string[], env: NodeJS.ProcessEnv, ops: CliOp[], vars: SweepVars = {}): Promise<SweepResult[]> {
  const results: SweepResult[] = [];
  for (const op of ops) {
    const args = typeof op.args === 'function' ? op.args(vars) : op.args;
    const started = Date.now();
    const run = await runTool(bin, [...baseArgs, ...args], env, HANG_MS).catch((e: unknown) => ({ code: -1, stdout: '', stderr: String(e) }));
    const base = { api: op.api, operation: op.operation };
    if (run.code !== 0 && Date.now() - started >= HANG_MS - 100) {
      results.push({ ...base, status: 'hang', detail: `no answer in ${HANG_MS / 1000} s` });
      continue;
    }
    const output = `exit ${run.code}\n${run.stderr}${run.stdout}`.slice(0, 2000);
    if (op.outcome === 'refused') {
      const refused = run.code !== 0 && op.refusal.test(`${run.stderr}${run.stdout}`);
      results.push(refused ? { ...base, status: 'refused' } : { ...base, status: 'wrong', detail: `expected a refusal matching ${op.refusal}:\n${output}` });
      continue;
    }
    if (run.code !== 0) {
      results.push({ ...base, status: 'wrong', detail: output });
      continue;
    }
    try {
      op.check?.(run, vars);
      results.push({ ...base, status: 'right' });
    } catch (e) {
      results.push({ ...base, status: 'wrong', detail: `${e instanceof Error ? e.message : String(e)}\n${output}` });
    }
  }
  return results;
}

// The Python side: every operation's code runs with exec() in one namespace, under an alarm of HANG_MS; each result is
// one JSON line on stdout, so a crash of the interpreter still leaves the results before it.
const PYTHON_DRIVER = `
import json, signal, sys, traceback
ops = json.load(open(sys.argv[1]))
class Hang(Exception):
    pass
def _alarm(signum, frame):
    raise Hang()
signal.signal(signal.SIGALRM, _alarm)
class CheckFailed(Exception):
    pass
def check(condition, what):
    if not condition:
        raise CheckFailed(what)
scope = {'check': check, 'CheckFailed': CheckFailed}
exec(ops['prelude'], scope)
for op in ops['ops']:
    signal.alarm(ops['hangSeconds'])
    try:
        exec(op, scope)
        out = {'ok': True}
    except Hang:
        out = {'hang': True}
    except CheckFailed as e:
        out = {'ok': False, 'check': str(e)}
    except BaseException as e:
        out = {'ok': False, 'error': type(e).__name__ + ': ' + str(e)[:1500]}
    finally:
        signal.alarm(0)
    print(json.dumps(out), flush=True)
`;

/**
 * Runs `ops` in one Debian python3 (`/usr/bin/python3`, where python3-kubernetes, python3-boto3 and python3-hcloud
 * install), after `prelude` (imports and the client). `dir` receives the driver's files.
 */
export async function runPythonOps(prelude: string, env: NodeJS.ProcessEnv, ops: PythonOp[], dir: string): Promise<SweepResult[]> {
  const driver = join(dir, 'sweep-driver.py');
  const input = join(dir, `sweep-ops-${process.pid}-${Date.now()}.json`);
  await writeFile(driver, PYTHON_DRIVER);
  await writeFile(input, JSON.stringify({ prelude, hangSeconds: HANG_MS / 1000, ops: ops.map((o) => o.code) }));
  const run = await runTool('/usr/bin/python3', [driver, input], env, HANG_MS * (ops.length + 1));
  const lines = run.stdout.split('\n').filter((l) => l.startsWith('{'));
  return ops.map((op, i): SweepResult => {
    const base = { api: op.api, operation: op.operation };
    const line = lines[i];
    if (line === undefined) return { ...base, status: 'wrong', detail: `python stopped before it (exit ${run.code}):\n${run.stderr.slice(-2000)}` };
    const out = JSON.parse(line) as { ok?: boolean; hang?: boolean; check?: string; error?: string };
    if (out.hang) return { ...base, status: 'hang', detail: `no answer in ${HANG_MS / 1000} s` };
    if (op.outcome === 'refused') {
      if (out.error !== undefined && op.refusal.test(out.error)) return { ...base, status: 'refused' };
      return { ...base, status: 'wrong', detail: `expected a refusal matching ${op.refusal}: ${out.error ?? out.check ?? 'it succeeded'}` };
    }
    if (out.ok) return { ...base, status: 'right' };
    return { ...base, status: 'wrong', detail: out.check ?? out.error ?? 'failed' };
  });
}

/** The results that are neither right nor a clear refusal, one per line with what was seen: '' when there are none. */
export function wrongAnswers(results: SweepResult[]): string {
  return results
    .filter((r) => r.status === 'wrong' || r.status === 'hang')
    .map((r) => `${r.api} ${r.operation}: ${r.status}\n  ${(r.detail ?? '').split('\n').join('\n  ')}`)
    .join('\n');
}
