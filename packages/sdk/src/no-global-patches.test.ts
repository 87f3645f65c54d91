// Importing the sdk, and issuing a cluster's certificates with it, changes nothing global: no Reflect extension (the
// X.509 library kubeplane used before needed a Reflect metadata shim; certificates are now DER on node:crypto), no
// new global names but zod's own. Checked in a fresh process, on the built package a user imports.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('importing @kubeplane/sdk (root and /internal) and issuing certificates leave Reflect and globalThis as they were', () => {
  const script = `
    const reflect = Object.getOwnPropertyNames(Reflect).sort().join(',');
    const globals = Object.getOwnPropertyNames(globalThis).sort().join(',');
    const sdk = { ...(await import('@kubeplane/sdk')), ...(await import('@kubeplane/sdk/internal')) };
    const imported = Object.getOwnPropertyNames(Reflect).sort().join(',') === reflect;
    // The golden hybrid cluster's PKI: three CAs, serving and client certificates.
    const cluster = JSON.parse(await (await import('node:fs/promises')).readFile('test/golden/hybrid/cluster.json', 'utf8'));
    const pki = await sdk.issueClusterPki(cluster, await sdk.generateClusterKeys(cluster), { random: sdk.seededRandomSource('no-global-patches'), now: new Date() });
    console.log(JSON.stringify({
      imported,
      issued: Object.getOwnPropertyNames(Reflect).sort().join(',') === reflect,
      certificate: pki.public.adminCertificate.startsWith('-----BEGIN CERTIFICATE-----'),
      // zod 4 keeps its schema registry and config on globalThis (__zod_globalRegistry, __zod_globalConfig), shared by
      // every copy of zod in a process: the library's own design, not a patch of anything there was.
      globals: Object.getOwnPropertyNames(globalThis).filter((n) => !globals.split(',').includes(n) && !n.startsWith('__zod_')),
      validates: typeof sdk.validateManifestText,
    }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '..', '..', '..'), encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ imported: true, issued: true, certificate: true, globals: [], validates: 'function' });
});
