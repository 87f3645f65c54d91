// The ssh2 adapter against a real OpenSSH server (Debian openssh-server; .ci/run installs it): the static bootstrap
// and reset kubeplane renders, run as root over SSH, host-key pinning. sshd runs as the sandbox's machines do
// (../sandbox/openssh/machine.ts): its own mount, PID and UTS namespaces with overlays on /etc, /var, /usr, /root and
// /home, so what the scripts write and remove stays out of this machine.
// Skipped only where sshd is missing outside CI; in CI it must run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeplaneError, Redacted, type MachineTarget } from '@kubeplane/sdk';
import { renderStaticBootstrap, renderStaticReset, STATIC_STATE_DIR } from '@kubeplane/sdk/internal';
import { SshMachineAccess } from './ssh-machine-access.js';
import { openSshAvailability, OpenSshMachine } from '@kubeplane/sandbox';
import { ed25519KeyPair } from '@kubeplane/sandbox/testing';

const availability = await openSshAvailability();
const available = availability.ok;

const USER_DATA = `#cloud-config
# kubeplane node sshd-test-01 (join) of cluster sshd [sshd-test]
write_files:
  - path: /etc/kubeplane/static-test.conf
    permissions: '0600'
    content: "token: not-a-real-one\\n"
  - path: /usr/local/sbin/kubeplane-bootstrap
    permissions: '0755'
    content: |
      #!/bin/sh
      mkdir -p /var/lib/kubeplane && date >/var/lib/kubeplane/bootstrap.done
runcmd:
  - [/usr/local/sbin/kubeplane-bootstrap]
`;

describe.skipIf(!available && !process.env['CI'])('static machines over a real OpenSSH server', () => {
  let machine: OpenSshMachine | undefined;
  let hostFingerprint = '';
  const client = ed25519KeyPair();
  const access = new SshMachineAccess({
    privateKey: async () => Redacted.of(client.private),
    dial: async () => ({ host: '127.0.0.1', port: machine?.port ?? 0 }),
  });
  const target = (hostKey?: string): MachineTarget => ({
    node: 'sshd-test-01',
    endpoint: '192.0.2.10',
    port: 22,
    username: 'root',
    secretRef: { env: { privatekey: 'TEST_KEY' } },
    ...(hostKey ? { hostKey } : {}),
  });
  const sh = async (script: string, hostKey = hostFingerprint) => access.run(target(hostKey), Redacted.of(script));

  beforeAll(async () => {
    if (!availability.ok) throw new Error(`real sshd machines cannot run here: ${availability.reason}; CI installs openssh-server and sudo in .ci/run`);
    machine = await OpenSshMachine.start({ authorizedKey: client.public, hostname: 'sshd-test-01' });
    hostFingerprint = machine.hostKeyFingerprint;
    expect(hostFingerprint).toMatch(/^SHA256:/);
  });

  afterAll(async () => {
    await machine?.stop();
  });

  it('pins the host key on first contact: the fingerprint is the one ssh-keygen prints', async () => {
    const run = await access.run(target(), Redacted.of('echo hello'));
    expect(run).toMatchObject({ hostKey: hostFingerprint, exitCode: 0, output: 'hello' });
  });

  it('refuses a machine whose host key is not the pinned one, naming the node and both fingerprints', async () => {
    const pinned = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const error = await sh('touch /root/must-not-exist', pinned).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeplaneError);
    expect((error as KubeplaneError).kind).toBe('invalid');
    expect((error as KubeplaneError).message).toContain('sshd-test-01');
    expect((error as KubeplaneError).message).toContain(pinned);
    expect((error as KubeplaneError).message).toContain(hostFingerprint);
    expect((await sh('test -e /root/must-not-exist; echo $?')).output).toBe('1');
  });

  it("runs the rendered bootstrap as cloud-init would, and the reset leaves nothing of it, the user's files kept", async () => {
    await sh('echo mine >/root/user-file');
    const started = await sh(renderStaticBootstrap('sshd-test-01', USER_DATA).reveal());
    expect(started).toMatchObject({ exitCode: 0, output: 'kubeplane: the bootstrap of sshd-test-01 started' });
    // The boot runs detached; wait for its done-marker (a wait, not a timing).
    let done = '';
    for (let i = 0; i < 200 && done !== 'yes'; i++) done = (await sh(`test -f ${STATIC_STATE_DIR}/boot-finished && echo yes || echo no`)).output;
    expect(done).toBe('yes');
    expect((await sh('stat -c %a /etc/kubeplane/static-test.conf; test -f /var/lib/kubeplane/bootstrap.done && echo ran')).output).toBe('600\nran');
    // A second bootstrap (a retried step) starts nothing.
    expect((await sh(renderStaticBootstrap('sshd-test-01', USER_DATA).reveal())).output).toContain('was started before');

    expect((await sh(renderStaticReset('sshd-test-01'))).exitCode).toBe(0);
    const left = await sh(
      `for p in /etc/kubeplane /usr/local/sbin/kubeplane-bootstrap /var/lib/kubeplane ${STATIC_STATE_DIR}; do test -e "$p" && echo "$p"; done; cat /root/user-file`,
    );
    expect(left.output).toBe('mine');
    // Read from the host side, the machine's disk holds nothing of kubeplane's: only the user's file.
    expect(machine?.written()).toEqual(['/root/user-file']);
  });
});
