import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findUnitFile, oneshotScript, parseTimeSpan, parseUnitFile } from './unit-file.js';

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

/** Runs a unit's oneshot script with sh in a scratch directory: its exit code and what its commands wrote. */
function start(unit: string): { code: number | null; log: string } {
  dir = mkdtempSync(join(tmpdir(), 'kubeplane-unit-'));
  const script = oneshotScript(parseUnitFile(unit.replaceAll('$DIR', dir)));
  if (script === null) throw new Error('not a oneshot service');
  const run = spawnSync('sh', ['-c', script], { encoding: 'utf8' });
  let log = '';
  try {
    log = readFileSync(join(dir, 'log'), 'utf8');
  } catch {
    log = '';
  }
  return { code: run.status, log };
}

describe('a oneshot service as systemd starts it (oneshotScript)', () => {
  it('sets its Environment= (quoted values too) and runs each ExecStart= in order', () => {
    const { code, log } = start(`[Service]
Type=oneshot
Environment=WHO=mesh "GREETING=it's here"
ExecStart=/bin/sh -c 'echo "1 $WHO" >>$DIR/log'
ExecStart=/bin/sh -c 'echo "2 $GREETING" >>$DIR/log'
`);
    expect(code).toBe(0);
    expect(log).toBe("1 mesh\n2 it's here\n");
  });

  it('stops at the first failing ExecStart= and fails, unless the line is prefixed with -', () => {
    expect(
      start(
        `[Service]\nType=oneshot\nExecStart=-/bin/false\nExecStart=/bin/sh -c 'echo a >>$DIR/log'\nExecStart=/bin/false\nExecStart=/bin/sh -c 'echo b >>$DIR/log'\n`,
      ),
    ).toEqual({ code: 1, log: 'a\n' });
  });

  it('does nothing and succeeds when a ConditionPathExists= does not hold, ! negating it', () => {
    expect(start(`[Unit]\nConditionPathExists=$DIR/absent\n[Service]\nType=oneshot\nExecStart=/bin/sh -c 'echo ran >>$DIR/log'\n`)).toEqual({
      code: 0,
      log: '',
    });
    expect(start(`[Unit]\nConditionPathExists=!$DIR/absent\n[Service]\nType=oneshot\nExecStart=/bin/sh -c 'echo ran >>$DIR/log'\n`)).toEqual({
      code: 0,
      log: 'ran\n',
    });
  });

  it('is null for a service of another type (a daemon needs systemctl)', () => {
    expect(oneshotScript(parseUnitFile('[Service]\nExecStart=/usr/bin/sleep infinity\n'))).toBeNull();
    expect(oneshotScript(parseUnitFile('[Service]\nType=simple\nExecStart=/usr/bin/sleep infinity\n'))).toBeNull();
  });

  it('finds a unit under another root, a template instance by its template', () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeplane-unit-'));
    spawnSync('mkdir', ['-p', join(dir, 'lib/systemd/system'), join(dir, 'etc/systemd/system')]);
    writeFileSync(join(dir, 'lib/systemd/system/wg-quick@.service'), '[Service]\n');
    writeFileSync(join(dir, 'etc/systemd/system/tick.service'), '[Service]\n');
    expect(findUnitFile('wg-quick@wg0.service', dir)).toBe(join(dir, 'lib/systemd/system/wg-quick@.service'));
    expect(findUnitFile('tick.service', dir)).toBe(join(dir, 'etc/systemd/system/tick.service'));
    expect(findUnitFile('absent.service', dir)).toBeUndefined();
  });
});

describe('a time span as systemd.time(7) reads it (parseTimeSpan)', () => {
  it('adds up numbers with units, blanks between them or not, and takes a bare number as seconds', () => {
    expect(parseTimeSpan('1min 30s')).toBe(90);
    expect(parseTimeSpan('2h30min')).toBe(9000);
    expect(parseTimeSpan(' 45 ')).toBe(45);
  });

  it('refuses anything else in the text: a stray word, punctuation, an unknown unit', () => {
    for (const bad of ['1min, 30s', 'x5s', '5s later', '10 fortnights', '']) expect(() => parseTimeSpan(bad), bad).toThrow(/invalid time span/);
  });
});
