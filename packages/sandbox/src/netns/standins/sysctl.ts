// `sysctl` in a sandbox machine: net.* keys are per network namespace (Documentation/networking/ip-sysctl.rst), so
// they are written for real under /proc/sys/net; every other key belongs to the shared host kernel and is only
// recorded. `--system` reads the files in procps' order (sysctl(8), sysctl.d(5)).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { main, StandinFailure } from './control-client.js';
import { appendLine, RUNTIME_RECORD_DIR } from './records.js';

const SYSTEM_DIRS = ['/etc/sysctl.d', '/run/sysctl.d', '/usr/local/lib/sysctl.d', '/usr/lib/sysctl.d', '/lib/sysctl.d'];

/** sysctl.d(5): files by name across the directories, the first directory's file of a name wins, /etc/sysctl.conf last. */
function systemFiles(): string[] {
  const byName = new Map<string, string>();
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.conf'))
      .sort())
      if (!byName.has(name)) byName.set(name, `${dir}/${name}`);
  }
  const files = [...byName.keys()].sort().map((n) => byName.get(n) ?? '');
  if (existsSync('/etc/sysctl.conf')) files.push('/etc/sysctl.conf');
  return files;
}

function apply(key: string, value: string, quiet: boolean): boolean {
  const path = `/proc/sys/${key.replace(/\./g, '/')}`;
  if (key.startsWith('net.')) {
    if (!existsSync(path)) {
      process.stderr.write(`sysctl: cannot stat ${path}: No such file or directory\n`);
      return false;
    }
    writeFileSync(path, value);
  } else appendLine(`${RUNTIME_RECORD_DIR}/sysctl`, `${key} = ${value}`);
  if (!quiet) process.stdout.write(`${key} = ${value}\n`);
  return true;
}

function applyFile(path: string, quiet: boolean): boolean {
  let ok = true;
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const ignoreFailure = line.startsWith('-');
    const m = /^-?([^=\s]+)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    if (!apply(m[1] ?? '', m[2] ?? '', quiet) && !ignoreFailure) ok = false;
  }
  return ok;
}

main(async (args) => {
  const quiet = args.includes('-q') || args.includes('--quiet');
  if (args.includes('--system')) {
    let ok = true;
    for (const file of systemFiles()) {
      if (!quiet) process.stdout.write(`* Applying ${file} ...\n`);
      if (!applyFile(file, quiet)) ok = false;
    }
    return ok ? 0 : 1;
  }
  const pIndex = args.findIndex((a) => a === '-p' || a === '--load');
  if (pIndex >= 0) return applyFile(args[pIndex + 1] ?? '/etc/sysctl.conf', quiet) ? 0 : 1;
  const operands = args.filter((a) => !a.startsWith('-'));
  if (operands.length === 0) throw new StandinFailure('sysctl: no variables specified', 1);
  let ok = true;
  for (const op of operands) {
    const m = /^([^=]+)=(.*)$/.exec(op);
    if (m) {
      if (!apply(m[1] ?? '', m[2] ?? '', quiet)) ok = false;
      continue;
    }
    const path = `/proc/sys/${op.replace(/\./g, '/')}`;
    if (!existsSync(path)) {
      process.stderr.write(`sysctl: cannot stat ${path}: No such file or directory\n`);
      ok = false;
    } else process.stdout.write(`${op} = ${readFileSync(path, 'utf8').trim()}\n`);
  }
  return ok ? 0 : 255;
});
