// A Claudie manifest whose every worker pool carries a taint (here a timed NoExecute one, `timeAdded` as Claudie's CRD
// allows) upgrades in place like any other (issue 31). The control plane's drain evicts kubeadm's CoreDNS, which has
// nowhere else to go: kubeadm gives it no PodDisruptionBudget, so the drain goes on and DNS waits for the uncordon. The
// sandbox once added a budget kubeadm does not create, and the upgrade gave up after two hours.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'kubeplane-tainted-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TIMED_TAINT = [
  '        taints:',
  '          - key: dedicated',
  '            value: batch',
  '            effect: NoExecute',
  '            timeAdded: "2024-05-01T12:00:00Z"',
];

describe('an in-place upgrade of a cluster whose every worker is tainted', () => {
  it("ends with every stage DONE: the control plane's drain evicts CoreDNS, which kubeadm gives no disruption budget", async () => {
    // Claudie's Hetzner example (two compute pools), each compute pool with a timed taint.
    const text = readFileSync(join(root, 'test', 'fixtures', 'claudie', 'docs', 'hetzner-1.yaml'), 'utf8').replaceAll(
      '        storageDiskSize: 50\n',
      `        storageDiskSize: 50\n${TIMED_TAINT.join('\n')}\n`,
    );
    expect(text.match(/timeAdded/g)).toHaveLength(2);
    writeFileSync(join(dir, 'timed-taints.yaml'), text);
    const run = await runCli(['sandbox', 'lifecycle', 'timed-taints.yaml', '--json'], { cwd: dir });
    const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as {
      stages: Array<{ stage: string; state: string }>;
      leakedResources: number;
      issues?: Array<{ severity: string; path: string }>;
    };
    expect(summary.issues?.filter((i) => i.path.endsWith('.timeAdded')).map((i) => i.severity)).toEqual(['warning', 'warning']);
    expect(run.stderr).toBe('');
    expect(summary.stages.map((s) => `${s.stage}: ${s.state}`)).toEqual([
      'create: DONE',
      'scale compute-1-htz up 2 -> 4: DONE',
      'scale compute-1-htz down 4 -> 1: DONE',
      'add pool extra: DONE',
      'remove pool extra: DONE',
      'upgrade 1.31.0 -> 1.32.0 in place: DONE',
      'destroy: DELETED',
    ]);
    expect(summary.leakedResources).toBe(0);
    expect(run.code).toBe(0);
  });
});
