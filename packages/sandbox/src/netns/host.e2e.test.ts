// Cleanup of runs whose owner died: their namespaces, links and directory go when the next run starts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, existsSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NetnsHost, NETNS_PREFIX } from './host.js';

const base = mkdtempSync(join(tmpdir(), 'kp-host-test-'));
const opened: NetnsHost[] = [];

afterAll(async () => {
  for (const h of opened) await h.close();
  await NetnsHost.removeStaleRuns(base);
  rmSync(base, { recursive: true, force: true });
});

describe('NetnsHost', () => {
  it('removes a dead run’s namespaces, bridge and directory, and keeps a live one', async () => {
    const live = await NetnsHost.open({ baseDir: base });
    opened.push(live);
    // A run whose owner pid no longer exists (pid 2^22 + 1 is above Linux's pid_max limit).
    const dead = 'zzdd1';
    mkdirSync(join(base, dead), { recursive: true });
    writeFileSync(join(base, dead, 'owner.pid'), '4194305\n');
    execFileSync('ip', ['netns', 'add', `${NETNS_PREFIX}${dead}m1`]);
    execFileSync('ip', ['link', 'add', `${NETNS_PREFIX}${dead}br`, 'type', 'bridge']);
    const second = await NetnsHost.open({ baseDir: base });
    opened.push(second);
    const netns = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
    expect(netns).not.toContain(`${NETNS_PREFIX}${dead}`);
    expect(execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })).not.toContain(`${NETNS_PREFIX}${dead}br`);
    expect(existsSync(join(base, dead))).toBe(false);
    expect(existsSync(live.runDir)).toBe(true);
    expect(execFileSync('ip', ['-o', 'link', 'show', live.bridge], { encoding: 'utf8' })).toContain(live.bridge);
  });

  it('puts no address on the bridge (nothing routes off the host)', async () => {
    const host = await NetnsHost.open({ baseDir: base });
    opened.push(host);
    expect(execFileSync('ip', ['-o', 'addr', 'show', 'dev', host.bridge], { encoding: 'utf8' })).not.toMatch(/\binet\b/);
  });
});
