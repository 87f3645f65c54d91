import { describe, expect, it } from 'vitest';
import { isKubeplaneError } from '@kubeplane/sdk';
import { withOptionalPackage } from './optional-package.js';

/** What Node throws when an import names a package that is not installed. */
const notFound = (name: string) =>
  Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/@kubeplane/handlers/dist/runtime/sandbox-clouds.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });

describe('an optional peer dependency that is not installed', () => {
  it('is named with what needs it and the npm install that adds it, as an invalid KubeplaneError', async () => {
    const e = await withOptionalPackage('the sandbox clouds (--sandbox)', () => Promise.reject(notFound('@kubeplane/sandbox'))).catch((x: unknown) => x);
    expect(isKubeplaneError(e) && e.kind).toBe('invalid');
    expect((e as Error).message).toMatch(
      /^the sandbox clouds \(--sandbox\) needs @kubeplane\/sandbox, which is not installed: npm install @kubeplane\/sandbox@\d+\.\d+\.\d+/,
    );
    const google = await withOptionalPackage('the Google runtime', () => Promise.reject(notFound('@google-cloud/firestore'))).catch((x: unknown) => x);
    expect((google as Error).message).toContain('npm install @google-cloud/firestore@^8');
  });

  it('leaves any other failure as it was: a missing package that is not optional, or an error of the module itself', async () => {
    const other = notFound('left-pad');
    await expect(withOptionalPackage('x', () => Promise.reject(other))).rejects.toBe(other);
    const own = new TypeError('boom');
    await expect(withOptionalPackage('x', () => Promise.reject(own))).rejects.toBe(own);
    await expect(withOptionalPackage('x', async () => 42)).resolves.toBe(42);
  });
});
