// A deploy that left a variable out: the functions still load (the runtime is built on the first request), and each
// request answers 500 with the variable named in the log, not in the answer.
import { describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { GCP_FUNCTION_NAMES, registerGcpFunctions } from './register.js';
import { gcpRuntimeFromEnv } from './runtime.js';

describe('registerGcpFunctions with a missing variable', () => {
  it('answers 500 and logs which variable is missing', async () => {
    const logged: Array<Record<string, unknown>> = [];
    registerGcpFunctions(() => gcpRuntimeFromEnv({ GOOGLE_CLOUD_PROJECT: 'p' }), {
      log: (level, message, fields = {}) => void logged.push({ level, message, ...fields }),
      child() {
        return this;
      },
    });
    const srv = getTestServer(GCP_FUNCTION_NAMES.api);
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    const res = await fetch(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/projects/a`);
    srv.close();
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'the function is misconfigured; see its logs' });
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'error',
        message: 'the runtime could not be built from its environment',
        error: 'environment variable KUBEPLANE_LOCATION is not set; the deploy (@kubeplane/gcp-terraform) sets it',
      }),
    ]);
  });
});
