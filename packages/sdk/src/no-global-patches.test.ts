// Importing the sdk changes nothing global: no Reflect extension (the X.509 stack that needs one is loaded only when a
// certificate is first issued), no new global names but zod's own. Checked in a fresh process, on the built package a user imports.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('importing @kubeplane/sdk leaves Reflect and globalThis as they were', () => {
  const script = `
    const reflect = Object.getOwnPropertyNames(Reflect).sort().join(',');
    const globals = Object.getOwnPropertyNames(globalThis).sort().join(',');
    const sdk = await import('@kubeplane/sdk');
    console.log(JSON.stringify({
      reflect: Object.getOwnPropertyNames(Reflect).sort().join(',') === reflect,
      // zod 4 keeps its schema registry and config on globalThis (__zod_globalRegistry, __zod_globalConfig), shared by
      // every copy of zod in a process: the library's own design, not a patch of anything there was.
      globals: Object.getOwnPropertyNames(globalThis).filter((n) => !globals.split(',').includes(n) && !n.startsWith('__zod_')),
      validates: typeof sdk.validateManifestText,
    }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '..', '..', '..'), encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ reflect: true, globals: [], validates: 'function' });
});
