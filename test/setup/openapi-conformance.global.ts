// The whole test run's conformance: every Sandbox (in the test processes and in the `sandbox serve` processes they
// start) validates its Hetzner and Crusoe responses, and the request bodies it accepts, against the vendors'
// documents and writes each violation to the directory this setup names; teardown, after every test file, fails the
// run listing them.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFORMANCE_DIR_ENV, type RecordedViolation } from '../../packages/sandbox/src/openapi/conformance.js';

export function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-conformance-'));
  // Set before vitest forks its workers, so they inherit it (and pass it to the servers they spawn).
  process.env[CONFORMANCE_DIR_ENV] = dir;
  // vitest 4 logs a throwing teardown as "error during close" without failing the run, so the exit code is set too.
  return () => {
    const violations = readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as RecordedViolation),
      );
    rmSync(dir, { recursive: true, force: true });
    if (violations.length === 0) return;
    const distinct = new Map<string, RecordedViolation & { count: number }>();
    for (const v of violations) {
      // One line per rule broken, not per array element: /servers/3/image and /servers/4/image are the same fault.
      const key = `${v.cloud} ${v.subject ?? 'response'} ${v.operation} ${v.status} ${v.pointer.replace(/\/\d+(?=\/|$)/g, '/*')} ${v.message}`;
      const seen = distinct.get(key);
      if (seen) seen.count += 1;
      else distinct.set(key, { ...v, pointer: v.pointer.replace(/\/\d+(?=\/|$)/g, '/*'), count: 1 });
    }
    const lines = [...distinct.values()].map(
      (v) =>
        `  ${v.cloud} ${v.operation} → ${v.status}, ${v.subject === 'request' ? 'request body' : 'response'} at '${v.pointer}': ${v.message} (${v.count}×, e.g. ${v.request})`,
    );
    process.exitCode = 1;
    throw new Error(`${violations.length} requests or responses broke the vendors' API documents (${distinct.size} distinct):\n${lines.join('\n')}`);
  };
}
