// The README's main job in the netns mode: every machine a network namespace with real wireguard-go, nginx, etcd
// and TLS. Each stage must end DONE with every pair of a cluster's machines handshaking over WireGuard (X/Y with
// X = Y), a rebooted worker must keep its peers, and nothing may be left in the clouds. The hybrid example is also
// the three-control-plane cluster behind a load balancer: its control planes join etcd over the overlay for real.
// Needs root and network namespaces (CI has them; .ci/run installs the packages): without them it fails, naming why.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..');

async function lifecycleNetns(example: string): Promise<string> {
  const run = await runCli(['sandbox', 'lifecycle', `examples/${example}`, '--netns'], { cwd: root });
  expect(run.stderr, run.stdout).toBe('');
  expect(run.code, run.stdout).toBe(0);
  return run.stdout;
}

function stageRows(stdout: string): Array<{ stage: string; result: string; handshakes: string }> {
  const table = stdout.slice(stdout.indexOf('[sandbox] summary'));
  return table
    .split('\n')
    .filter((l) => / (DONE|DELETED|ERROR|IN_PROGRESS) /.test(l))
    .map((l) => {
      const cells = l.trim().split(/\s{2,}/);
      return { stage: cells[0] ?? '', result: cells[1] ?? '', handshakes: cells.at(-1) ?? '' };
    });
}

describe('the whole lifecycle with every machine in a network namespace (--netns)', () => {
  for (const example of ['minimal.yaml', 'hybrid-aws-hetzner.yaml']) {
    it(
      `${example}: every stage DONE with X/Y overlay handshakes, X = Y, a rebooted worker keeps its peers, nothing leaked`,
      async () => {
        const stdout = await lifecycleNetns(example);
        const rows = stageRows(stdout);
        expect(rows.map((r) => r.stage)).toEqual(expect.arrayContaining(['create', 'destroy']));
        expect(rows.some((r) => r.stage.startsWith('upgrade '))).toBe(true);
        for (const row of rows.filter((r) => r.stage !== 'destroy')) {
          expect(row.result, row.stage).toBe('DONE');
          const [x, y] = row.handshakes.split('/').map(Number);
          expect(y, row.stage).toBeGreaterThan(0);
          expect(x, row.stage).toBe(y);
        }
        expect(rows.at(-1)).toMatchObject({ stage: 'destroy', result: 'DELETED' });
        const reboot = /rebooted \S+: overlay handshakes: (\d+)\/(\d+)/.exec(stdout);
        expect(reboot, stdout).not.toBeNull();
        expect(reboot?.[1]).toBe(reboot?.[2]);
        expect(stdout).toContain('leaked resources: 0');
      },
      15 * 60_000,
    );
  }
});
