// One writer per state directory: a command that changes a world (apply, destroy, sandbox serve) holds this
// lock for its whole run. A lock whose process is gone is taken over; a live one stops the command with a
// message that names the holder.
import { open, readFile, rm, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { KubeplaneError } from '@kubeplane/sdk';

export interface ProcessLock {
  release(): Promise<void>;
}

export async function acquireProcessLock(path: string, command: string): Promise<ProcessLock> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(JSON.stringify({ pid: process.pid, command, since: new Date().toISOString() }));
      await handle.close();
      return { release: () => rm(path, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder: { pid?: number; command?: string; since?: string } = {};
      try {
        holder = JSON.parse(await readFile(path, 'utf8')) as typeof holder;
      } catch {
        // Half-written by a process that just started; look again.
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (holder.pid !== undefined && !alive(holder.pid)) {
        await rm(path, { force: true });
        continue;
      }
      throw new KubeplaneError(
        'conflict',
        `another kubeplane process (pid ${holder.pid ?? '?'}, "${holder.command ?? '?'}" since ${holder.since ?? '?'}) is using this state directory; wait for it to finish or stop it`,
        { resource: path },
      );
    }
  }
  throw new KubeplaneError('conflict', `could not take the lock ${path}`, { resource: path });
}

/** Whether a process with this id exists (one we may not signal still counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
