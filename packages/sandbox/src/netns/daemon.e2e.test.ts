// How systemctl starts the Kubernetes stand-in daemons (H2's modules): `node <standins>/<unit>.js --daemon`, not
// tracked by settle(), restarted at boot when enabled; a missing module fails the unit loudly.
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { NetnsWorld } from './world.js';

const built = fileURLToPath(new URL('../../dist/netns/standins/', import.meta.url));
// Not under /tmp: every machine mounts its own /tmp, so the host's would be invisible inside.
const standins = mkdtempSync('/dev/shm/kp-standins-');
const clock = new VirtualClock(Date.UTC(2026, 0, 1));
const reports: string[] = [];
let world: NetnsWorld;

beforeAll(async () => {
  // Links to the built stand-ins, except the two this test replaces (writing through a link would overwrite dist/).
  for (const f of readdirSync(built).filter((n) => n.endsWith('.js') && n !== 'containerd.js' && n !== 'kubelet.js'))
    symlinkSync(join(built, f), join(standins, f));
  // A containerd daemon that listens on its socket (containerd.service is Type=notify: systemctl waits for it), reports,
  // then sleeps on the virtual clock for ever (a daemon's sleeps never make it busy).
  writeFileSync(
    join(standins, 'containerd.js'),
    `import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { report, virtualSleep } from './control-client.js';
if (process.argv[2] !== '--daemon') process.exit(2);
mkdirSync('/run/containerd', { recursive: true });
await new Promise((resolve) => createServer().listen('/run/containerd/containerd.sock', resolve));
await report('containerd-up', { pid: process.pid });
for (;;) await virtualSleep(3600);
`,
  );
  world = await NetnsWorld.open({ clock, standinsDir: standins, onReport: (m, e) => reports.push(`${m} ${e}`), settleTimeoutMs: 20_000 });
}, 60_000);

afterAll(async () => {
  await world?.close();
  rmSync(standins, { recursive: true, force: true });
});

describe('stand-in daemons', () => {
  it('systemctl enable --now containerd runs the stand-in daemon, untracked, and again after a reboot', async () => {
    const vm = {
      cloud: 'ec2',
      name: 'node',
      state: 'running' as const,
      publicIPv4: '198.18.1.10',
      userData: '#cloud-config\nruncmd:\n  - systemctl enable containerd\n  - systemctl restart containerd\n',
    };
    await world.boot(vm);
    await world.settle();
    // Untracked: the daemon reports in its own time, possibly after runcmd ended (systemctl returns once it listens),
    // and on a loaded machine a node process takes a while to start: wait for it, do not guess how long.
    await until(() => reports.includes('ec2/node containerd-up') && world.nextWakeAt() === clock.now() + 3600_000);
    expect([...reports].sort()).toEqual(['ec2/node bootstrap-exit', 'ec2/node containerd-up']);
    expect(world.nextWakeAt()).toBe(clock.now() + 3600_000);
    expect((await world.exec(vm, 'systemctl is-active containerd')).stdout).toBe('active\n');
    await world.reboot(vm);
    await world.settle();
    await until(() => reports.filter((r) => r === 'ec2/node containerd-up').length >= 2);
    expect(reports.filter((r) => r === 'ec2/node containerd-up')).toHaveLength(2);
  });

  it('a unit whose stand-in module does not exist fails loudly', async () => {
    const vm = { cloud: 'ec2', name: 'nokubelet', state: 'running' as const, publicIPv4: '198.18.1.11', userData: '#cloud-config\nruncmd: []\n' };
    await world.boot(vm);
    await world.settle();
    const r = await world.exec(vm, 'systemctl start kubelet');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Job for kubelet.service failed: the sandbox stand-in daemon ${standins}/kubelet.js does not exist`);
  });
});

/** Polls `done` (every 50 ms, up to 30 s of real time) for what a process does in its own time. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 30_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
}
