import https from 'node:https';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox, SANDBOX_CREDENTIALS } from './sandbox.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

/** One Hetzner GET over node:https, the way got and the AWS SDK send theirs (https.request, which msw replaces). */
function getLocations(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request('https://api.hetzner.cloud/v1/locations', { headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const globalHandleBytes = () => (getHeapStatistics() as ReturnType<typeof getHeapStatistics> & { used_global_handles_size: number }).used_global_handles_size;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** A full garbage collection, so that only handles something still holds are counted (weak ones go). */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('the sandbox interception', () => {
  it('keeps no HTTP parser of an exchange it answered: five hundred requests hold no more native handles than fifty', async () => {
    sandbox = new Sandbox({ seed: 1 }).listen();
    const batch = async (n: number) => {
      for (let i = 0; i < n; i++) expect(await getLocations()).toBe(200);
      await turn();
      await turn();
      collect();
    };
    await batch(50);
    const before = globalHandleBytes();
    await batch(500);
    // Two parsers an exchange, each a global handle while the interceptor's freed parsers were kept: 1,000 more
    // handles (about 30 KB). Node's own parsers return to its pool and are reused, so the count stays where it was.
    expect(globalHandleBytes() - before).toBeLessThan(8_192);
  });
});
