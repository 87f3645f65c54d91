// Preflight under a storm of cloud faults: each attempt that gets more of the clouds' catalogs answered is progress,
// so a dozen catalogs that each fail a few times converge instead of spending the step's retries in a row.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '@kubeplane/sandbox';
import { manifestOf, sandboxWorld } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

describe('preflight under a storm of faults', () => {
  it('converges when every catalog it asks fails a few times before it answers, more failures in all than a step retries in a row', async () => {
    const w = sandboxWorld(5);
    sandbox = w.sandbox;
    // The catalogs the preflight of a Hetzner cluster asks, each failing four times before it answers.
    for (const operation of ['GET /locations', 'GET /datacenters', 'GET /server_types', 'GET /images'])
      w.sandbox.injectFault({ cloud: 'hetzner', operation, kind: 'server-error', times: 4 });
    await w.kp.apply(manifestOf(minimal));
    await w.kp.run();
    const status = await w.kp.status('minimal');
    expect(status.state, JSON.stringify(status.clusters.minimal)).toBe('DONE');
    expect(w.sandbox.faults.fired.length).toBeGreaterThan(12);
  });
});
