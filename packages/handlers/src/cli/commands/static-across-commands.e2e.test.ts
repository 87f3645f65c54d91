// `kubeplane apply --sandbox` and then `kubeplane destroy --sandbox`, two commands (two sandboxes, as two processes
// would load them): the second meets the static pools' machines the first bootstrapped, with the same host keys, and
// resets them. Before the machines were kept in the state directory, each command met new machines with new host
// keys, and the destroy ended in ERROR on the pinned key with the cloud resources left behind.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../../test/helpers/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'kp-static-cmds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('static pools across sandbox commands', () => {
  it('destroy --sandbox resets the machines apply --sandbox bootstrapped, in another command, and leaks nothing', async () => {
    const state = join(dir, 'state');
    const apply = await runCli(['apply', 'examples/static-and-dynamic.yaml', '--sandbox', '--state-dir', state], { cwd: root });
    expect(apply.stdout).toMatch(/onprem: DONE after/);
    expect(apply.code).toBe(0);
    const kept = join(state, 'sandbox', 'static-machines');
    const machines = readdirSync(kept).sort();
    expect(machines).toEqual(['198.51.100.10_2222', '198.51.100.11_2222', '198.51.100.12_2222', '198.51.100.20_22']);
    const hostKeys = machines.map((m) => readFileSync(join(kept, m, 'host'), 'utf8'));

    const destroy = await runCli(['destroy', 'examples/static-and-dynamic.yaml', '--sandbox', '--state-dir', state], { cwd: root });
    expect(destroy.stderr + destroy.stdout).not.toMatch(/host key changed/);
    expect(destroy.stdout).toContain('resources left in the sandbox clouds: 0');
    expect(destroy.stdout).toMatch(/onprem: DELETED after/);
    expect(destroy.code).toBe(0);
    // The same machines, reset: kubeplane's state directory is gone from each (from its disk, for real sshd machines).
    expect(machines.map((m) => readFileSync(join(kept, m, 'host'), 'utf8'))).toEqual(hostKeys);
    for (const m of machines) {
      const host = JSON.parse(readFileSync(join(kept, m, 'host.json'), 'utf8')) as { stoppedAtMs?: number; files?: string[] };
      expect(host.stoppedAtMs, m).toBeTypeOf('number');
      expect(host.files ?? [], m).toEqual([]);
      expect(existsSync(join(kept, m, 'disk', 'var', 'lib', 'kubeplane-static')), m).toBe(false);
    }
  });
});
