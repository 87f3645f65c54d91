// One writer per state directory: a command that changes a world (apply, destroy, sandbox serve) holds this
// lock for its whole run. A lock whose process is gone is taken over atomically (see the sdk's file-lock.ts); a
// live one stops the command with a message that names the holder.
import { KubeplaneError } from '@kubeplane/sdk';
import { alive, tryLock } from '@kubeplane/sdk/internal';

export { alive };

export interface ProcessLock {
  release(): Promise<void>;
}

export async function acquireProcessLock(path: string, command: string): Promise<ProcessLock> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const result = await tryLock(path, command);
    if ('held' in result) return result.held;
    const holder = result.holder;
    if (holder) {
      throw new KubeplaneError(
        'conflict',
        `another kubeplane process (pid ${holder.pid}, "${holder.command ?? '?'}" since ` +
          `${holder.since}) is using this state directory; wait for it to finish or stop it`,
        { resource: path },
      );
    }
    // Being released, or a lock file of an older kubeplane being written: look again shortly.
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new KubeplaneError('conflict', `could not take the lock ${path}; if no kubeplane process is running, delete it`, { resource: path });
}
