import { afterAll, describe, expect, it } from 'vitest';
import { KubeplaneError, Redacted, renderStaticBootstrap, renderStaticReset, VirtualClock, type MachineTarget } from '@kubeplane/sdk';
import { SandboxStaticMachines } from './static-machines.js';

const USER_DATA = `#cloud-config
write_files:
  - path: /etc/kubeplane/x.conf
    content: x
runcmd:
  - [/usr/local/sbin/kubeplane-bootstrap]
`;

describe('the sandbox\'s static machines', () => {
  const machines = new SandboxStaticMachines(new VirtualClock(Date.parse('2026-01-01T00:00:00Z')));
  const access = machines.access();
  const target = (hostKey?: string): MachineTarget => ({ node: 'c-rack-01', endpoint: '198.51.100.10', port: 2222, username: 'ubuntu', secretRef: { env: { privatekey: 'K' } }, ...(hostKey ? { hostKey } : {}) });
  afterAll(() => machines.close());

  it('boot the user-data they are sent over SSH, and the reset leaves nothing of kubeplane on them', async () => {
    const run = await access.run(target(), renderStaticBootstrap('c-rack-01', USER_DATA));
    expect(run.exitCode).toBe(0);
    expect(machines.listVms()).toMatchObject([{ cloud: 'static', name: 'c-rack-01', state: 'running', publicIPv4: '198.51.100.10', userData: USER_DATA }]);
    expect(machines.leftovers('198.51.100.10')).toContain('/etc/kubeplane/x.conf');
    const reset = await access.run(target(run.hostKey), Redacted.of(renderStaticReset('c-rack-01')));
    expect(reset.exitCode).toBe(0);
    expect(machines.leftovers('198.51.100.10')).toEqual([]);
    expect(machines.listVms()).toMatchObject([{ name: 'c-rack-01', state: 'terminated' }]);
  });

  it('refuse nothing but the pin: a reinstalled machine (new host key) is a clear error with both fingerprints', async () => {
    const first = await access.run(target(), Redacted.of('# kubeplane static reset c-rack-01\n'));
    machines.reinstall('198.51.100.10', 2222);
    const error = await access.run(target(first.hostKey), Redacted.of('# kubeplane static reset c-rack-01\n')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeplaneError);
    expect((error as KubeplaneError).message).toMatch(new RegExp(`c-rack-01 .*pinned ${first.hostKey.replace(/[+/]/g, '\\$&')} at first contact, now offered SHA256:`));
  });
});
