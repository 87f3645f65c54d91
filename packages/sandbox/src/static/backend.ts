// What the sandbox's static machines are made of, behind SandboxStaticMachines: real sshd machines
// (openssh-machines.ts) where they can run, in-process ssh2 servers (ssh2-machines.ts) where they cannot.
import type { SandboxVmSource } from '../kubernetes/vm-source.js';

export interface StaticMachineBackend extends SandboxVmSource {
  readonly kind: 'openssh' | 'in-process';
  /** Where the machine for `endpoint:port` listens (started on first contact), letting in only `users`. */
  dial(endpoint: string, port: number, users: readonly string[]): Promise<{ host: string; port: number }>;
  /** Reads back what the machines did (after each script): which became nodes, which were reset. */
  observe(): void;
  /** kubeplane's files left on the machine at `endpoint` (empty: clean, or never touched). */
  leftovers(endpoint: string): string[];
  /** The machine was reinstalled: it offers a new host key (to test the pin). */
  reinstall(endpoint: string, port: number): Promise<void>;
  /** The machines started so far and the loopback port each listens on. */
  listening(): Promise<Array<{ endpoint: string; port: number; local: number }>>;
  close(): Promise<void>;
}
