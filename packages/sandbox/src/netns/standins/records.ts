// Where the harness stand-ins record what a real tool would have changed in the kernel or the package database:
// on the machine's disk when a reboot keeps it (dpkg state, holds), under /run when it does not (swap, modules).
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const RECORD_DIR = '/var/lib/kubeplane-netns';
export const RUNTIME_RECORD_DIR = '/run/kubeplane-netns';

export function readJson<T>(path: string, fallback: T): T {
  if (!existsSync(path)) return fallback;
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

export function appendLine(path: string, line: string): void {
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, `${line}\n`);
}

/** Where `systemctl enable` records a unit (the machine's disk: /etc survives reboot), one symlink per unit as in *.wants/. */
export const ENABLED_DIR = '/etc/kubeplane-netns/wants';
