// The sandbox's static machines, both kinds: real sshd machines (skipped only outside CI where they cannot run) and
// the in-process ssh2 fallback. The same behaviour is asked of each.
import { afterAll, describe, expect, it } from 'vitest';
import { KubeplaneError, Redacted, type MachineTarget } from '@kubeplane/sdk';
import { renderStaticBootstrap, renderStaticReset } from '@kubeplane/sdk/internal';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { SandboxStaticMachines } from './static-machines.js';
import { openSshAvailability } from './openssh/machine.js';

const real = await openSshAvailability();

const USER_DATA = `#cloud-config
write_files:
  - path: /etc/kubeplane/x.conf
    content: x
runcmd:
  - [/usr/local/sbin/kubeplane-bootstrap]
`;

const kinds = [
  { use: 'in-process' as const, skip: false },
  { use: 'openssh' as const, skip: !real.ok && !process.env['CI'] },
];

describe.each(kinds)("the sandbox's static machines ($use)", ({ use, skip }) => {
  const machines = new SandboxStaticMachines(new VirtualClock(Date.parse('2026-01-01T00:00:00Z')), { use });
  const access = machines.access();
  // Not root: the scripts go through sudo, as on a cloud image's default user.
  const target = (hostKey?: string): MachineTarget => ({
    node: 'c-rack-01',
    endpoint: '198.51.100.10',
    port: 2222,
    username: 'ubuntu',
    secretRef: { env: { privatekey: 'K' } },
    ...(hostKey ? { hostKey } : {}),
  });
  afterAll(() => machines.close());

  it.skipIf(skip)('boot the user-data they are sent over SSH, and the reset leaves nothing of kubeplane on them', async () => {
    expect(machines.listVms()).toEqual([]);
    const run = await access.run(target(), renderStaticBootstrap('c-rack-01', USER_DATA));
    expect(run.exitCode).toBe(0);
    expect(run.output).toContain('kubeplane: the bootstrap of c-rack-01 started');
    expect(machines.listVms()).toMatchObject([{ cloud: 'static', name: 'c-rack-01', state: 'running', publicIPv4: '198.51.100.10', userData: USER_DATA }]);
    // A real machine's first boot runs detached: wait until it wrote the file (a wait, not a timing).
    for (let i = 0; i < 400 && !machines.leftovers('198.51.100.10').includes('/etc/kubeplane/x.conf'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(machines.leftovers('198.51.100.10')).toContain('/etc/kubeplane/x.conf');
    const reset = await access.run(target(run.hostKey), Redacted.of(renderStaticReset('c-rack-01')));
    expect(reset.exitCode).toBe(0);
    expect(reset.output).toContain('kubeplane: c-rack-01 reset');
    expect(machines.leftovers('198.51.100.10')).toEqual([]);
    expect(machines.listVms()).toMatchObject([{ name: 'c-rack-01', state: 'terminated' }]);
    const info = await machines.info();
    expect(info?.kind).toBe(use);
    expect(info?.description).toMatch(
      use === 'openssh' ? /^OpenSSH_\S+ \(real sshd\) on 127\.0\.0\.1:\d+$/ : /^in-process ssh2 server \(asked for\) on 127\.0\.0\.1:\d+$/,
    );
  });

  it.skipIf(skip)('refuse nothing but the pin: a reinstalled machine (new host key) is a clear error with both fingerprints', async () => {
    const first = await access.run(target(), Redacted.of(renderStaticReset('c-rack-01')));
    await machines.reinstall('198.51.100.10', 2222);
    const error = await access.run(target(first.hostKey), Redacted.of(renderStaticReset('c-rack-01'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeplaneError);
    expect((error as KubeplaneError).message).toMatch(
      new RegExp(`c-rack-01 .*pinned ${first.hostKey.replace(/[+/]/g, '\\$&')} at first contact, now offered SHA256:`),
    );
  });
});

describe("the sandbox's static machines, lazily", () => {
  it('start nothing and name nothing until a machine is contacted', async () => {
    const machines = new SandboxStaticMachines(new VirtualClock(0));
    machines.access();
    expect(await machines.info()).toBeUndefined();
    expect(machines.listVms()).toEqual([]);
    await machines.close();
  });
});
