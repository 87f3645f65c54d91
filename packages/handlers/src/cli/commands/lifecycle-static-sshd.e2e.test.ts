// `kubeplane sandbox lifecycle examples/static-and-dynamic.yaml` with the static pools' machines served by real
// OpenSSH servers (issue 15, Done-when): every stage DONE, nothing leaked, the static nodes joined through real SSH,
// and after destroy nothing of kubeplane's on the machines' disks. Skipped only outside CI where real sshd machines
// cannot run (openssh-server, sudo, root, mount namespaces); in CI it must run (.ci/run installs what it needs).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSshAvailability } from '@kubeplane/sandbox';
import { runCli } from '../../../../../test/helpers/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');
const real = await openSshAvailability();

interface Summary {
  stages: Array<{ stage: string; state: string }>;
  leakedResources: number;
  staticMachines?: { kind: string; description: string; joined: string[]; leftovers: Record<string, string[]> };
}

describe.skipIf(!real.ok && !process.env['CI'])('the sandbox lifecycle of static-and-dynamic.yaml on real sshd machines', () => {
  it('ends with every stage DONE, 0 leaks, the four static nodes joined over real SSH and their machines clean', async () => {
    if (!real.ok) throw new Error(`real sshd machines cannot run here: ${real.reason}; CI installs openssh-server and sudo in .ci/run`);
    const json = await runCli(['sandbox', 'lifecycle', 'examples/static-and-dynamic.yaml', '--json'], { cwd: root });
    const summary = JSON.parse(json.stdout.trim().split('\n').pop() ?? '{}') as Summary;
    expect(summary.stages.map((s) => `${s.stage}: ${s.state}`)).toEqual(summary.stages.map((s) => `${s.stage}: ${s.stage === 'destroy' ? 'DELETED' : 'DONE'}`));
    expect(summary.leakedResources).toBe(0);
    expect(summary.staticMachines).toMatchObject({ kind: 'openssh', description: expect.stringMatching(/^OpenSSH_\d\S* \(real sshd\) on 127\.0\.0\.1:\d+, /) });
    expect(summary.staticMachines?.joined).toEqual([
      'onprem-2mqp5sw-rack-control-01',
      'onprem-2mqp5sw-rack-control-02',
      'onprem-2mqp5sw-rack-control-03',
      'onprem-2mqp5sw-rack-gpu-01',
    ]);
    expect(summary.staticMachines?.leftovers).toEqual({ '198.51.100.10': [], '198.51.100.11': [], '198.51.100.12': [], '198.51.100.20': [] });
    expect(json.code).toBe(0);
  });

  it('says in one line of its summary that the static machines were real sshd servers', async () => {
    const run = await runCli(['sandbox', 'lifecycle', 'examples/static-and-dynamic.yaml'], { cwd: root });
    const lines = run.stdout.split('\n').filter((l) => l.includes('static machines:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /static machines: OpenSSH_\S+ \(real sshd\) on 127\.0\.0\.1:\d+(, 127\.0\.0\.1:\d+){3}; 4 joined as Ready nodes; kubeplane files left on them: 0$/,
    );
    expect(run.stdout).toContain('leaked resources: 0');
    expect(run.code).toBe(0);
  });
});
