// The ssh2 adapter against a real OpenSSH server (Debian openssh-server; .ci/run installs it): the static bootstrap
// and reset kubeplane renders, run as root over SSH, host-key pinning. sshd runs in its own mount namespace with
// overlays on /etc, /var, /usr and /root, so what the scripts write and remove stays out of this machine.
// Skipped only where sshd is missing outside CI; in CI it must run.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ssh2 from 'ssh2';
import { KubeplaneError, Redacted, renderStaticBootstrap, renderStaticReset, STATIC_STATE_DIR, type MachineTarget } from '@kubeplane/sdk';
import { SshMachineAccess } from './ssh-machine-access.js';
import { ed25519KeyPair } from '../sandbox/static-machines.js';

const SSHD = '/usr/sbin/sshd';
const available = existsSync(SSHD) && existsSync('/usr/bin/ssh-keygen') && process.getuid?.() === 0;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

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
  let sshd: ChildProcess | undefined;
  let port = 0;
  let hostFingerprint = '';
  const client = ed25519KeyPair();
  const access = new SshMachineAccess({ privateKey: async () => Redacted.of(client.private), dial: async () => ({ host: '127.0.0.1', port }) });
  const target = (hostKey?: string): MachineTarget => ({ node: 'sshd-test-01', endpoint: '192.0.2.10', port: 22, username: 'root', secretRef: { env: { privatekey: 'TEST_KEY' } }, ...(hostKey ? { hostKey } : {}) });
  const sh = async (script: string, hostKey = hostFingerprint) => access.run(target(hostKey), Redacted.of(script));

  beforeAll(async () => {
    if (!available) throw new Error(`${SSHD} or ssh-keygen is missing or not root: CI installs openssh-server in .ci/run`);
    const dir = mkdtempSync(join(tmpdir(), 'kp-sshd-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host')]);
    hostFingerprint = execFileSync('ssh-keygen', ['-l', '-f', join(dir, 'host.pub')]).toString().split(' ')[1] ?? '';
    writeFileSync(join(dir, 'authorized_keys'), `${client.public}\n`, { mode: 0o600 });
    port = await freePort();
    writeFileSync(
      join(dir, 'sshd_config'),
      [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'PermitRootLogin prohibit-password', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'StrictModes no', `PidFile ${join(dir, 'sshd.pid')}`].join('\n') + '\n',
    );
    execFileSync('mkdir', ['-p', '/run/sshd']);
    const overlays = ['/etc', '/var', '/usr', '/root']
      .map((d, i) => `mkdir -p ${dir}/o${i}/up ${dir}/o${i}/work && mount -t overlay overlay -o lowerdir=${d},upperdir=${dir}/o${i}/up,workdir=${dir}/o${i}/work ${d}`)
      .join(' && ');
    sshd = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', `${overlays} && exec ${SSHD} -D -e -f ${join(dir, 'sshd_config')}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    sshd.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    for (let i = 0; i < 100 && !(await accepting(port)); i++) {
      if (sshd.exitCode !== null) throw new Error(`sshd exited: ${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(readFileSync(join(dir, 'host.pub'), 'utf8')).toContain('ssh-ed25519');
  });

  afterAll(() => {
    sshd?.kill();
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

  it('runs the rendered bootstrap as cloud-init would, and the reset leaves nothing of it, the user\'s files kept', async () => {
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
    const left = await sh(`for p in /etc/kubeplane /usr/local/sbin/kubeplane-bootstrap /var/lib/kubeplane ${STATIC_STATE_DIR}; do test -e "$p" && echo "$p"; done; cat /root/user-file`);
    expect(left.output).toBe('mine');
  });
});
