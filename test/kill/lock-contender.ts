// A process that competes for a lock when its parent says so (stale-lock.e2e.test.ts): the parent starts two and
// plants a stale lock, and both go at once, as two kubeplane commands started together would.
import { withFileLock } from '../../packages/sdk/src/engine/adapters/file-lock.js';
import { acquireProcessLock } from '../../packages/handlers/src/runtime/process-lock.js';

type Order = { go: 'writer' | 'file'; path: string } | { release: true } | { exit: true };

let releaseNow: (() => void) | undefined;

process.on('message', (order: Order) => {
  if ('exit' in order) process.exit(0);
  if ('release' in order) {
    releaseNow?.();
    return;
  }
  const held = new Promise<void>((r) => (releaseNow = r));
  void (async () => {
    if (order.go === 'writer') {
      const lock = await acquireProcessLock(order.path, 'contender').catch(() => null);
      process.send?.({ acquired: lock !== null });
      await held;
      await lock?.release();
    } else {
      await withFileLock(order.path, async () => {
        process.send?.({ acquired: true });
        await held;
      });
    }
    process.send?.({ done: true });
  })().catch((e: unknown) => process.send?.({ error: String(e) }));
});
process.send?.({ ready: true });
