// `systemctl` in a sandbox machine (no systemd runs there). Units it knows: wg-quick@X (the real wg-quick with the
// userspace wireguard-go, as wg-quick@.service does), nginx (the real nginx, as Debian's nginx.service does),
// systemd-modules-load, the stand-in daemons containerd/kubelet, *.timer (the harness fires the .service on the
// virtual clock), and any *.service with a unit file (ExecStart with its Environment=). Enabled units are recorded
// on the machine's disk (like systemd's .wants symlinks) and started again at every boot (`systemctl --boot`).
// Verbs and messages: systemctl(1), systemd 252 (Debian 12).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { DAEMON_UNITS, NOTIFY_UNITS } from './table.js';
import { ENV, main, registerTimer, StandinFailure } from './control-client.js';
import { execLines, findUnitFile, oneshotScript, parseEnvironment, parseTimeSpan, readUnitFile, unitValues } from './unit-file.js';
import { appendLine, ENABLED_DIR, RUNTIME_RECORD_DIR } from './records.js';

const UNIT_STATE_DIR = `${RUNTIME_RECORD_DIR}/units`;

/** systemctl's exit status for "unit not found" / "program is not running" (systemctl(1), EXIT STATUS; LSB). */
const EXIT_NOT_FOUND = 5;
const EXIT_INACTIVE = 3;

function normalize(unit: string): string {
  return /\.(service|timer|socket|target|mount|path)$/.test(unit) ? unit : `${unit}.service`;
}

function sh(argv: string[], env: Record<string, string> = {}): number {
  const result = spawnSync(argv[0] ?? 'true', argv.slice(1), { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

/** The environment of a daemon: not part of the tracked run that started it (the harness does not wait for it). */
function daemonEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env[ENV.run];
  return env;
}

function pidAlive(pidFile: string): boolean {
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function stopPid(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // not running
    }
  }
  rmSync(pidFile, { force: true });
}

function spawnDaemon(unit: string, argv: string[], env: Record<string, string> = {}): void {
  mkdirSync('/var/log/kubeplane-netns', { recursive: true });
  mkdirSync(UNIT_STATE_DIR, { recursive: true });
  const log = openSync(`/var/log/kubeplane-netns/${unit}.log`, 'a');
  const child = spawn(argv[0] ?? 'true', argv.slice(1), { detached: true, stdio: ['ignore', log, log], env: daemonEnv(env) });
  writeFileSync(`${UNIT_STATE_DIR}/${unit}.pid`, `${child.pid ?? 0}\n`);
  child.unref();
}

function failed(unit: string, verb = 'start'): StandinFailure {
  return new StandinFailure(
    // systemctl(1)'s words for a failed start job; other verbs say which job failed.
    `Job for ${unit} failed ${verb === 'start' ? '' : `(${verb}) `}because the control process exited with error ` +
      `code.\nSee "systemctl status ${unit}" and "journalctl -xeu ${unit}" for details.`,
    1,
  );
}

function notFound(unit: string, verb: string): StandinFailure {
  return new StandinFailure(`Failed to ${verb} ${unit}: Unit ${unit} not found.`, EXIT_NOT_FOUND);
}

interface UnitDriver {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
  reload(): void | Promise<void>;
  active(): boolean;
}

function wgQuick(name: string): UnitDriver {
  // wg-quick(8) brings up /etc/wireguard/<name>.conf; with no kernel module the userspace implementation is used,
  // and wireguard-go refuses to run on Linux without WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD=1.
  const env = { WG_QUICK_USERSPACE_IMPLEMENTATION: 'wireguard-go', WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: '1' };
  const active = (): boolean => spawnSync('wg', ['show', name], { stdio: 'ignore' }).status === 0;
  return {
    start: () => {
      if (active()) return;
      if (sh(['wg-quick', 'up', name], env) !== 0) throw failed(`wg-quick@${name}.service`);
    },
    stop: () => {
      if (active()) sh(['wg-quick', 'down', name], env);
    },
    // wg-quick@.service: ExecReload=/bin/bash -c 'exec /usr/bin/wg syncconf %i <(exec /usr/bin/wg-quick strip %i)'
    reload: () => {
      if (sh(['bash', '-c', `exec wg syncconf ${name} <(exec wg-quick strip ${name})`], env) !== 0) throw failed(`wg-quick@${name}.service`, 'reload');
    },
    active,
  };
}

function nginx(): UnitDriver {
  // Debian's nginx.service: ExecStartPre=nginx -t -q -g 'daemon on; master_process on;', ExecStart=nginx -g '...',
  // PIDFile=/run/nginx.pid, ExecReload=nginx -g '...' -s reload, ExecStop=start-stop-daemon --stop --retry QUIT/5.
  const g = ['-g', 'daemon on; master_process on;'];
  const active = (): boolean => pidAlive('/run/nginx.pid');
  return {
    start: () => {
      if (active()) return;
      if (sh(['nginx', '-t', '-q', ...g]) !== 0 || sh(['nginx', ...g]) !== 0) throw failed('nginx.service');
    },
    stop: () => {
      if (!active()) return;
      sh(['nginx', '-s', 'quit']);
      for (let i = 0; i < 100 && active(); i++) spawnSync('/bin/sleep', ['0.05']);
    },
    reload: () => {
      if (sh(['nginx', ...g, '-s', 'reload']) !== 0) throw failed('nginx.service', 'reload');
    },
    active,
  };
}

function modulesLoad(): UnitDriver {
  // systemd-modules-load.service reads modules-load.d(5): one module name per line, # and ; comments.
  const dirs = ['/etc/modules-load.d', '/run/modules-load.d', '/usr/local/lib/modules-load.d', '/usr/lib/modules-load.d'];
  return {
    start: () => {
      for (const dir of dirs.filter((d) => existsSync(d))) {
        // A dangling symlink (Debian's modules.conf -> ../modules without /etc/modules) is skipped, as systemd does.
        for (const f of readdirSync(dir)
          .filter((n) => n.endsWith('.conf') && existsSync(`${dir}/${n}`))
          .sort()) {
          for (const raw of readFileSync(`${dir}/${f}`, 'utf8').split('\n')) {
            const m = raw.trim();
            if (m === '' || m.startsWith('#') || m.startsWith(';')) continue;
            if (!/^[A-Za-z0-9_-]+$/.test(m)) throw new StandinFailure(`systemd-modules-load: Failed to find module '${m}'`, 1);
            appendLine(`${RUNTIME_RECORD_DIR}/modules`, m);
          }
        }
      }
    },
    stop: () => undefined,
    reload: () => undefined,
    active: () => true,
  };
}

function standinDaemon(unit: string, module: string): UnitDriver {
  const dir = process.env[ENV.standins] ?? '';
  const entry = `${dir}/${module}.js`;
  const pidFile = `${UNIT_STATE_DIR}/${unit}.pid`;
  const notify = NOTIFY_UNITS[module];
  return {
    start: async () => {
      if (pidAlive(pidFile)) return;
      if (!existsSync(entry)) throw new StandinFailure(`Job for ${unit} failed: the sandbox stand-in daemon ${entry} does not exist (not built?).`, 1);
      if (notify) rmSync(notify.readyPath, { force: true });
      spawnDaemon(unit, [process.env[ENV.node] ?? process.execPath, entry, '--daemon']);
      if (!notify) return;
      // Type=notify: the job ends when the daemon is ready, and fails when it exits before (a configuration it
      // cannot load). Real time: the daemon's start is CPU work, not a modelled duration.
      for (const started = Date.now(); Date.now() - started < 20_000; ) {
        if (existsSync(notify.readyPath)) return;
        if (!pidAlive(pidFile)) throw failed(unit);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw failed(unit);
    },
    stop: () => stopPid(pidFile),
    reload: () => undefined,
    active: () => pidAlive(pidFile),
  };
}

const CALENDAR_PERIODS: Readonly<Record<string, number>> = { hourly: 3600, daily: 86_400, weekly: 7 * 86_400 };

function timer(unit: string, path: string): UnitDriver {
  // systemd.timer(5): OnBootSec= is relative to boot, OnUnitActiveSec= to the last activation of the unit the timer
  // activates (Unit=, by default the .service of the same name). The harness fires it on the virtual clock.
  const activeFile = `${UNIT_STATE_DIR}/${unit}.active`;
  const target = (): string => unitValues(readUnitFile(path), 'Timer', 'Unit').at(-1) ?? unit.replace(/\.timer$/, '.service');
  return {
    start: async () => {
      const file = readUnitFile(path);
      // OnCalendar= (systemd.time(7)): the shorthands hourly, daily, weekly become that period, counted from the
      // timer's start instead of the wall-clock boundary; other calendar expressions are not modelled.
      const calendar = unitValues(file, 'Timer', 'OnCalendar').at(-1);
      const calendarSeconds = calendar === undefined ? undefined : CALENDAR_PERIODS[calendar.trim()];
      if (calendar !== undefined && calendarSeconds === undefined)
        throw new StandinFailure(`${unit}: OnCalendar=${calendar} is not modelled by the sandbox (hourly, daily, weekly are)`, 1);
      const onBoot = unitValues(file, 'Timer', 'OnBootSec').at(-1) ?? (calendarSeconds === undefined ? undefined : `${calendarSeconds}s`);
      const every = unitValues(file, 'Timer', 'OnUnitActiveSec').at(-1) ?? (calendarSeconds === undefined ? undefined : `${calendarSeconds}s`);
      if (onBoot === undefined && every === undefined)
        throw new StandinFailure(`${unit} has no OnBootSec=, OnUnitActiveSec= or OnCalendar=; the sandbox models no other trigger.`, 1);
      if (!findUnitFile(target())) throw notFound(target(), 'start');
      mkdirSync(UNIT_STATE_DIR, { recursive: true });
      writeFileSync(activeFile, `${target()}\n`);
      await registerTimer(target(), onBoot === undefined ? null : parseTimeSpan(onBoot), every === undefined ? null : parseTimeSpan(every));
    },
    stop: async () => {
      rmSync(activeFile, { force: true });
      await registerTimer(target(), null, null);
    },
    reload: () => undefined,
    active: () => existsSync(activeFile),
  };
}

function serviceFromFile(unit: string, path: string): UnitDriver {
  const file = readUnitFile(path);
  for (const check of unitValues(file, 'Unit', 'ConditionPathExists')) {
    const negate = check.startsWith('!');
    if (existsSync(check.replace(/^!/, '')) === negate) return { start: () => undefined, stop: () => undefined, reload: () => undefined, active: () => false };
  }
  const oneshot = oneshotScript(file);
  if (oneshot !== null) {
    return {
      start: () => {
        if (sh(['sh', '-c', oneshot]) !== 0) throw failed(unit);
      },
      stop: () => undefined,
      reload: () => undefined,
      active: () => true,
    };
  }
  const env = parseEnvironment(unitValues(file, 'Service', 'Environment'));
  const pidFile = `${UNIT_STATE_DIR}/${unit}.pid`;
  return {
    start: () => {
      if (pidAlive(pidFile)) return;
      const first = execLines(file)[0];
      if (!first) throw new StandinFailure(`${unit} has no ExecStart=.`, 1);
      spawnDaemon(unit, ['sh', '-c', `exec ${first.line}`], env);
    },
    stop: () => stopPid(pidFile),
    reload: () => undefined,
    active: () => pidAlive(pidFile),
  };
}

function driver(unit: string, verb: string): UnitDriver {
  const wg = /^wg-quick@([^.]+)\.service$/.exec(unit);
  if (wg) return wgQuick(wg[1] ?? '');
  if (unit === 'nginx.service') return nginx();
  if (unit === 'systemd-modules-load.service') return modulesLoad();
  const daemon = DAEMON_UNITS[unit.replace(/\.service$/, '')];
  if (daemon) return standinDaemon(unit, daemon);
  const path = findUnitFile(unit);
  if (path && unit.endsWith('.timer')) return timer(unit, path);
  if (path && unit.endsWith('.service')) return serviceFromFile(unit, path);
  throw notFound(unit, verb);
}

function enable(unit: string): void {
  const target = findUnitFile(unit) ?? (driver(unit, 'enable') ? '/dev/null' : '');
  mkdirSync(ENABLED_DIR, { recursive: true });
  const link = `${ENABLED_DIR}/${unit}`;
  if (existsSync(link)) return;
  symlinkSync(target, link);
  process.stderr.write(`Created symlink ${link} → ${target}.\n`);
}

function enabledUnits(): string[] {
  if (!existsSync(ENABLED_DIR)) return [];
  const units = readdirSync(ENABLED_DIR).sort();
  // Services before timers: a timer's service expects what the services bring up (wg0 for the mesh sync).
  return [...units.filter((u) => !u.endsWith('.timer')), ...units.filter((u) => u.endsWith('.timer'))];
}

main(async (args) => {
  const flags = new Set(args.filter((a) => a.startsWith('-')));
  const [verb, ...names] = args.filter((a) => !a.startsWith('-'));
  const quiet = flags.has('-q') || flags.has('--quiet');
  if (flags.has('--boot')) {
    // The harness's boot: what systemd's default target pulls in through the enabled units' symlinks.
    let ok = true;
    for (const unit of enabledUnits()) {
      try {
        await driver(unit, 'start').start();
      } catch (error) {
        ok = false;
        process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
    return ok ? 0 : 1;
  }
  const units = names.map(normalize);
  switch (verb) {
    case 'daemon-reload':
      return 0;
    case 'enable':
      for (const u of units) enable(u);
      if (flags.has('--now')) for (const u of units) await driver(u, 'start').start();
      return 0;
    case 'disable':
      for (const u of units) {
        rmSync(`${ENABLED_DIR}/${u}`, { force: true });
        if (flags.has('--now')) await driver(u, 'stop').stop();
      }
      return 0;
    case 'start':
      for (const u of units) await driver(u, 'start').start();
      return 0;
    case 'stop':
      for (const u of units) await driver(u, 'stop').stop();
      return 0;
    case 'restart':
      for (const u of units) {
        const d = driver(u, 'restart');
        await d.stop();
        await d.start();
      }
      return 0;
    case 'reload':
      for (const u of units) await driver(u, 'reload').reload();
      return 0;
    case 'is-active': {
      let all = true;
      for (const u of units) {
        let active = false;
        try {
          active = driver(u, 'is-active').active();
        } catch {
          active = false;
        }
        if (!quiet) process.stdout.write(`${active ? 'active' : 'inactive'}\n`);
        all &&= active;
      }
      return all ? 0 : EXIT_INACTIVE;
    }
    case 'is-enabled': {
      const all = units.every((u) => existsSync(`${ENABLED_DIR}/${u}`));
      if (!quiet) for (const u of units) process.stdout.write(`${existsSync(`${ENABLED_DIR}/${u}`) ? 'enabled' : 'disabled'}\n`);
      return all ? 0 : 1;
    }
    default:
      throw new StandinFailure(`sandbox systemctl: the verb ${verb ?? '(none)'} is not modelled`, 1);
  }
});
