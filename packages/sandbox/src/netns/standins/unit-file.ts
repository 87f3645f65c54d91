// Reading systemd unit files the way the systemctl stand-in needs: [Section] Key=Value (systemd.syntax(7)) and
// time spans (systemd.time(7): "60s", "1min 30s", "2h", a bare number is seconds).
import { existsSync, readFileSync } from 'node:fs';

/** systemd's unit search path for system units, highest priority first (systemd.unit(5), "Unit File Load Path"). */
export const UNIT_DIRS = ['/etc/systemd/system', '/run/systemd/system', '/usr/local/lib/systemd/system', '/lib/systemd/system', '/usr/lib/systemd/system'];

export type UnitFile = Map<string, Map<string, string[]>>;

/** The unit's file on the search path; `root` is the machine's / as another mount namespace sees it (the world). */
export function findUnitFile(unit: string, root = ''): string | undefined {
  const template = /^([^@]+@)[^.]+(\.\w+)$/.exec(unit);
  const names = [unit, ...(template ? [`${template[1] ?? ''}${template[2] ?? ''}`] : [])];
  for (const name of names) for (const dir of UNIT_DIRS) if (existsSync(`${root}${dir}/${name}`)) return `${root}${dir}/${name}`;
  return undefined;
}

export function parseUnitFile(text: string): UnitFile {
  const out: UnitFile = new Map();
  let section = '';
  // Backslash-newline continues a line (systemd.syntax(7)).
  for (const raw of text.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const s = /^\[(.+)\]$/.exec(line);
    if (s) {
      section = s[1] ?? '';
      if (!out.has(section)) out.set(section, new Map());
      continue;
    }
    const m = /^([A-Za-z0-9]+)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const values = out.get(section) ?? new Map<string, string[]>();
    out.set(section, values);
    const key = m[1] ?? '';
    // An empty assignment resets list settings such as ExecStart= and Environment=.
    if ((m[2] ?? '') === '') values.set(key, []);
    else values.set(key, [...(values.get(key) ?? []), m[2] ?? '']);
  }
  return out;
}

export function readUnitFile(path: string): UnitFile {
  return parseUnitFile(readFileSync(path, 'utf8'));
}

export function unitValues(unit: UnitFile, section: string, key: string): string[] {
  return unit.get(section)?.get(key) ?? [];
}

const TIME_UNITS: Record<string, number> = {
  us: 1e-6,
  usec: 1e-6,
  ms: 1e-3,
  msec: 1e-3,
  s: 1,
  sec: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
  w: 604800,
  week: 604800,
  weeks: 604800,
};

/** A systemd.time(7) time span in seconds. */
export function parseTimeSpan(text: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  let total = 0;
  let covered = '';
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)) {
    const unit = TIME_UNITS[m[2] ?? ''];
    if (unit === undefined) throw new Error(`invalid time span ${JSON.stringify(text)}`);
    total += Number(m[1]) * unit;
    covered += m[0];
  }
  // Every character but blanks must belong to a number and its unit ("1min 30s"; not "1min, 30s" or "x5s").
  const blankless = (s: string): string => s.replace(/\s+/g, '');
  if (covered === '' || blankless(covered) !== blankless(t)) throw new Error(`invalid time span ${JSON.stringify(text)}`);
  return total;
}

/** Environment= assignments (systemd.exec(5)): space-separated, each optionally double-quoted. */
export function parseEnvironment(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    for (const m of value.matchAll(/"([^"]*)"|(\S+)/g)) {
      const assignment = m[1] ?? m[2] ?? '';
      const eq = assignment.indexOf('=');
      if (eq > 0) out[assignment.slice(0, eq)] = assignment.slice(eq + 1);
    }
  }
  return out;
}

/** ExecStart= lines without their prefixes (systemd.service(5)): '-' ignores a failure; '@', '+', '!', ':' change nothing here. */
export function execLines(unit: UnitFile): Array<{ line: string; ignoreFailure: boolean }> {
  return unitValues(unit, 'Service', 'ExecStart').map((exec) => {
    const m = /^([-@+!:]*)(.*)$/.exec(exec);
    return { line: m?.[2] ?? exec, ignoreFailure: (m?.[1] ?? '').includes('-') };
  });
}

/** Stand-ins import nothing from the SDK (each of their process starts counts), hence this copy of its shQuote. */
const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A Type=oneshot service as one shell script, what systemd does to start it: skip it (exit 0) when a
 * ConditionPathExists= does not hold, set its Environment=, run each ExecStart= in turn and fail (exit 1) at the first
 * failure not prefixed '-'. null for any other type. The systemctl stand-in runs it for `systemctl start`, the world
 * when the unit's timer elapses (systemd starts the service itself then; no systemctl runs).
 */
export function oneshotScript(unit: UnitFile): string | null {
  if ((unitValues(unit, 'Service', 'Type').at(-1) ?? 'simple') !== 'oneshot') return null;
  const conditions = unitValues(unit, 'Unit', 'ConditionPathExists').map((check) =>
    check.startsWith('!') ? `[ ! -e ${quote(check.slice(1))} ] || exit 0` : `[ -e ${quote(check)} ] || exit 0`,
  );
  const env = Object.entries(parseEnvironment(unitValues(unit, 'Service', 'Environment'))).map(([k, v]) => `export ${k}=${quote(v)}`);
  const execs = execLines(unit).map(({ line, ignoreFailure }) => `sh -c ${quote(line)}${ignoreFailure ? '' : ' || exit 1'}`);
  return [...conditions, ...env, ...execs, 'exit 0'].join('\n');
}
