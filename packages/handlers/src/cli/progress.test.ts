// What a person sees while a long apply works: waits are never silent. Off a terminal, one line per event, a wait
// when its reason changes, with when it ends; on a terminal, a status line rewritten in place under the event lines.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Clock, EngineEvent } from '@kubeplane/sdk';
import { printUnreadyMachines, progressPrinter } from './progress.js';

class Captured extends Writable {
  text = '';
  isTTY: boolean;
  columns = 100;
  constructor(tty: boolean) {
    super();
    this.isTTY = tty;
  }
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

const clockAt = (t: { now: number }): Clock => ({ now: () => t.now }) as unknown as Clock;
const base = { project: 'p', cluster: 'minimal' };
const events = (t0: number): EngineEvent[] => [
  { type: 'phase-started', at: t0, ...base, phase: 'infrastructure' },
  { type: 'step-done', at: t0 + 2_000, ...base, phase: 'infrastructure', step: 'networks', message: '1 network' },
  {
    type: 'waiting',
    at: t0 + 5_000,
    ...base,
    phase: 'infrastructure',
    step: 'await-machines',
    seconds: 15,
    reason: '1 of 3 machines running',
    attempt: 1,
    failures: 0,
    since: t0,
  },
  {
    type: 'waiting',
    at: t0 + 20_000,
    ...base,
    phase: 'infrastructure',
    step: 'await-machines',
    seconds: 15,
    reason: '1 of 3 machines running',
    attempt: 1,
    failures: 0,
    since: t0,
  },
  {
    type: 'waiting',
    at: t0 + 35_000,
    ...base,
    phase: 'infrastructure',
    step: 'await-machines',
    seconds: 10,
    reason: '2 of 3 machines running',
    attempt: 1,
    failures: 0,
    since: t0,
  },
  { type: 'cluster-done', at: t0 + 65_000, ...base, state: 'DONE' },
];

describe('progress off a terminal', () => {
  it('prints each wait whose reason changed, with its end, and no control codes', () => {
    const out = new Captured(false);
    const t = { now: 1_000_000 };
    const printer = progressPrinter(out, { json: false, sandbox: true, clock: clockAt(t), env: {} });
    for (const e of events(1_000_000)) {
      t.now = e.at;
      printer(e);
    }
    printer.close();
    expect(out.text.split('\n')).toEqual([
      '[sandbox] +    0s minimal: phase infrastructure',
      '[sandbox] +    2s minimal:   networks — 1 network',
      '[sandbox] +    5s minimal:   await-machines waits 15s (until +20s): 1 of 3 machines running',
      '[sandbox] +   35s minimal:   await-machines waits 10s (until +45s): 2 of 3 machines running',
      '[sandbox] + 1m05s minimal: DONE',
      '',
    ]);
  });
});

describe('progress on a terminal', () => {
  it('keeps a status line under the event lines, saying what each cluster waits for and until when, and clears it at the end', () => {
    const out = new Captured(true);
    const t = { now: Date.UTC(2026, 11, 1, 12, 0, 0) };
    const printer = progressPrinter(out, { json: false, sandbox: false, clock: clockAt(t), env: { TERM: 'xterm' } });
    for (const e of events(t.now)) {
      t.now = e.at;
      printer(e);
      if (e.type === 'waiting' && e.reason.startsWith('2 of 3')) {
        const status = out.text.slice(out.text.lastIndexOf('\r\x1b[2K') + 5);
        expect(status).toBe(`… 35s — minimal: await-machines waits until ${new Date(e.at + 10_000).toTimeString().slice(0, 8)}: 2 of 3 machines running`);
      }
    }
    printer.close();
    // Only the event lines stay once every status line is cleared; the repeated waits drew no line of their own.
    const lines = out.text
      .replace(/\r\x1b\[2K[^\n\r]*(?=\r\x1b\[2K)/g, '')
      .replace(/\r\x1b\[2K/g, '')
      .split('\n');
    expect(lines.filter((l) => l.includes('waits'))).toEqual([]);
    expect(lines.at(-2)).toMatch(/minimal: DONE$/);
    expect(out.text.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('draws nothing live with TERM=dumb or --json', () => {
    for (const options of [
      { json: false, env: { TERM: 'dumb' } },
      { json: true, env: { TERM: 'xterm' } },
    ]) {
      const out = new Captured(true);
      const printer = progressPrinter(out, { ...options, sandbox: true, clock: clockAt({ now: 0 }) });
      for (const e of events(0)) printer(e);
      printer.close();
      expect(out.text).not.toContain('\x1b');
    }
  });
});

describe('add-on events', () => {
  it('prints each add-on state change, with the message while it is not installed', () => {
    const out = new Captured(false);
    const t = { now: 1_000_000 };
    const printer = progressPrinter(out, { json: false, sandbox: false, clock: clockAt(t), env: {} });
    printer({ type: 'phase-started', at: t.now, ...base, phase: 'addons' });
    printer({
      type: 'addon',
      at: t.now,
      ...base,
      name: 'hcloud_csi',
      chart: 'hcloud-csi',
      declaredVersion: '2.18.1',
      installedVersion: '2.18.0',
      state: 'installing',
      message: 'upgrading 2.18.0 -> 2.18.1',
    });
    printer({
      type: 'addon',
      at: t.now,
      ...base,
      name: 'hcloud_csi',
      chart: 'hcloud-csi',
      declaredVersion: '2.18.1',
      installedVersion: '2.18.1',
      state: 'installed',
      message: 'Upgrade complete',
    });
    printer.close();
    expect(out.text.split('\n').slice(1, 3)).toEqual([
      '+    0s minimal:     add-on hcloud_csi (hcloud-csi 2.18.1): installing — upgrading 2.18.0 -> 2.18.1',
      '+    0s minimal:     add-on hcloud_csi (hcloud-csi 2.18.1): installed',
    ]);
  });
});

describe('a step that keeps failing', () => {
  it('is reported again at a steady interval with its attempts and last error, on a terminal too', () => {
    for (const tty of [false, true]) {
      const out = new Captured(tty);
      const t = { now: 0 };
      const printer = progressPrinter(out, { json: false, sandbox: true, clock: clockAt(t), env: { TERM: 'xterm' } });
      // Every 20 s for 5 minutes the same 5xx: printed once a minute (at 0, 60, 120 … s), never silent for longer.
      for (let i = 0; i < 15; i++) {
        t.now = i * 20_000;
        printer({
          type: 'waiting',
          at: t.now,
          ...base,
          phase: 'delete',
          step: 'teardown',
          seconds: 20,
          reason: 'hetzner GET /servers: server_error',
          attempt: i + 1,
          failures: i + 1,
          since: 0,
        });
      }
      printer.close();
      const lines = out.text.split(/\n|\r\x1b\[2K/).filter((l) => /teardown waits \d+s \(/.test(l));
      expect(
        lines.map((l) => /attempt (\d+)/.exec(l)?.[1]),
        `tty: ${tty}`,
      ).toEqual(['1', '4', '7', '10', '13']);
      expect(lines[1]).toContain('teardown waits 20s (until +1m20s): hetzner GET /servers: server_error [attempt 4, 4 failures in a row, for 1m00s]');
    }
  });
});

describe('a sandbox command that ends in ERROR', () => {
  it('says for each machine that is not a Ready node what its kubeadm and kubelet logs end with', () => {
    const out = new Captured(false);
    printUnreadyMachines(out, [
      { cloud: 'hetzner', vm: 'm-control-01', state: 'ready', log: [{ atMs: 0, message: 'kubelet: node Ready (Cilium agent running)' }] },
      { cloud: 'hetzner', vm: 'm-lb-01', state: 'load-balancer', log: [] },
      {
        cloud: 'hetzner',
        vm: 'm-workers-01',
        state: 'failed',
        reason: 'kubelet: node-ip 10.0.0.3 is unreachable\x1b[2J',
        log: [1, 2, 3, 4].map((i) => ({ atMs: Date.UTC(2026, 0, 1, 0, i), message: `line ${i}` })),
      },
    ]);
    const lines = out.text.trimEnd().split('\n');
    expect(lines).toEqual([
      '[sandbox]   hetzner/m-workers-01: failed: kubelet: node-ip 10.0.0.3 is unreachable\\u001b[2J',
      '[sandbox]     2026-01-01T00:02:00.000Z line 2',
      '[sandbox]     2026-01-01T00:03:00.000Z line 3',
      '[sandbox]     2026-01-01T00:04:00.000Z line 4',
    ]);
  });
});
