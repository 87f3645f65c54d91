// installationProxy through the engine on the sandbox clouds: the machines' user-data carries the proxy, the simulated
// kubelets still join, and a change on an existing cluster reaches the machines created afterwards, with the plan
// saying that the existing nodes keep the setting they were created with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatPlan } from '@kubeplane/sdk';
import { parseCloudConfig } from '@kubeplane/sdk/internal';
import type { Sandbox } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const withProxy = (proxy: string, workers = 2) =>
  minimal.replace('      network: 10.0.0.0/24\n', `      network: 10.0.0.0/24\n      installationProxy: ${proxy}\n`).replace('count: 2', `count: ${workers}`);
const APT = '/etc/apt/apt.conf.d/90kubeplane-proxy.conf';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function applied(w: World, text: string): Promise<void> {
  await w.kp.apply(manifestOf(text));
  await w.kp.run();
  const status = await w.kp.status('minimal');
  expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
}

/** The apt proxy file in each running machine's user-data, by machine name (null: none). */
function aptProxyByMachine(w: World): Record<string, string | null> {
  return Object.fromEntries(
    w.sandbox
      .listVms()
      .filter((vm) => vm.state === 'running')
      .map((vm) => [
        vm.name,
        parseCloudConfig(vm.userData)
          .files.find((f) => f.path === APT)
          ?.content.toString('utf8') ?? null,
      ]),
  );
}

describe('installationProxy on the sandbox clouds', () => {
  it('puts the proxy in every Hetzner machine of a mode default cluster, whose nodes all join', async () => {
    const w = sandboxWorld(51);
    sandbox = w.sandbox;
    await applied(w, withProxy('{ mode: default }'));
    const byMachine = aptProxyByMachine(w);
    expect(Object.keys(byMachine)).toHaveLength(3);
    for (const [name, apt] of Object.entries(byMachine)) expect(apt, name).toContain('Acquire::https::Proxy "http://proxy.claudie.io:8880";');
    expect(w.sandbox.kubernetes.kubelets().filter((k) => k.state === 'ready')).toHaveLength(3);
  });

  it('gives a changed proxy to the machines created afterwards, and the plan warns that the existing nodes keep theirs (and only on a change in effect)', async () => {
    const w = sandboxWorld(52);
    sandbox = w.sandbox;
    await applied(w, withProxy('{ mode: "off" }'));
    const before = Object.keys(aptProxyByMachine(w));
    // An endpoint while the mode stays off changes nothing in effect: no operation, no warning.
    const same = await w.kp.plan(manifestOf(withProxy('{ mode: "off", endpoint: "http://proxy.example.com:3128" }')));
    if (!same.ok) throw new Error(JSON.stringify(same.issues));
    expect(same.plan.warnings).toBeUndefined();
    expect(same.plan.operations).toEqual([]);

    const changed = withProxy('{ mode: "on", endpoint: "http://proxy.example.com:3128" }', 3);
    const planned = await w.kp.plan(manifestOf(changed));
    if (!planned.ok) throw new Error(JSON.stringify(planned.issues));
    expect(planned.plan.warnings).toEqual([
      expect.objectContaining({
        cluster: 'minimal',
        path: 'kubernetes.clusters[0].installationProxy',
        message: expect.stringContaining('the 3 existing nodes'),
      }),
    ]);
    expect(planned.plan.warnings?.[0]?.message).toContain('keep the installation proxy they were created with (none)');
    const text = formatPlan(planned.plan);
    expect(text).toContain('update-installation-proxy');
    expect(text).toContain('kubernetes.clusters[0].installationProxy: warning: the 3 existing nodes');

    await applied(w, changed);
    const after = aptProxyByMachine(w);
    const added = Object.keys(after).filter((n) => !before.includes(n));
    expect(added).toHaveLength(1);
    expect(after[added[0] ?? '']).toContain('"http://proxy.example.com:3128"');
    for (const name of before) expect(after[name], name).toBeNull();
    expect(w.sandbox.kubernetes.kubelets().filter((k) => k.state === 'ready')).toHaveLength(4);
  });
});
