// The client sweep's operations: what a real client asks of the served sandbox, and what the answer must be. Every
// operation is either `right` (it succeeds and its check holds, as against the real cloud) or `refused` (the sandbox
// says clearly that it does not emulate it, or refuses it as the cloud would). A wrong answer or a hang fails the
// sweep. The table in docs/sandbox.md ("What real clients get") is rendered from these lists (table.ts).
import type { ToolRun } from '../test-support/tools.js';

/** The six real clients the sweep drives, as Debian packages them. */
export type SweepClient = 'kubectl' | 'python3-kubernetes' | 'aws-cli' | 'boto3' | 'hcloud-cli' | 'python3-hcloud';

interface OpBase {
  /** The API asked: `Kubernetes`, `EC2`, `Route 53`, `STS`, `Hetzner Cloud`. */
  api: string;
  /** The client's own name for the operation (`kubectl drain`, `list_namespaced_pod`, `ec2 describe-images`). */
  operation: string;
  /** What it must do, in a few words (the table's last column). */
  expect: string;
}

/** An operation that must succeed, its answer checked. */
interface Right {
  outcome: 'right';
}
/** An operation the sandbox refuses: the client's error output must match `refusal`. */
interface Refused {
  outcome: 'refused';
  refusal: RegExp;
}

/** One run of a command-line client (kubectl, aws, hcloud); `check` throws when the answer is wrong. */
export type CliOp = OpBase &
  (
    | (Right & { args: string[] | ((vars: SweepVars) => string[]); check?: (run: ToolRun, vars: SweepVars) => void })
    | (Refused & { args: string[] | ((vars: SweepVars) => string[]) })
  );

/**
 * Python run in one interpreter shared by the client's operations (so one may use what an earlier one made), with
 * `check(condition, what)` to assert and the client set up by the sweep's prelude. A `refused` operation's exception
 * text must match `refusal`.
 */
export type PythonOp = OpBase & (Right | Refused) & { code: string };

/** Values an operation leaves for later ones (`vars.instanceId = …` in a check). */
export type SweepVars = Record<string, string>;

/** What an operation did: `right`, `refused`, or `wrong` / `hang` with what was seen. */
export interface SweepResult {
  api: string;
  operation: string;
  status: 'right' | 'refused' | 'wrong' | 'hang';
  detail?: string;
}

/** Throws `what` when `condition` does not hold: the checks of CLI operations. */
export function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(what);
}

/** The parsed JSON output of a CLI run. */
export function json<T = Record<string, unknown>>(run: Pick<ToolRun, 'stdout'>): T {
  return JSON.parse(run.stdout) as T;
}
