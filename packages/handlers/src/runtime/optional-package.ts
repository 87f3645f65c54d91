// The packages @kubeplane/handlers declares as optional peer dependencies (the sandbox clouds, Google's clients): an
// install without them stays small, and using what needs one says which package to install instead of failing with
// Node's ERR_MODULE_NOT_FOUND deep in an import.
import { KubeplaneError } from '@kubeplane/sdk/errors';
import { SDK_VERSION } from '@kubeplane/sdk';

/** The optional peer dependencies and the range of each a user installs. */
const RANGES: Record<string, string> = {
  '@kubeplane/sandbox': SDK_VERSION,
  '@google-cloud/firestore': '^8',
  '@google-cloud/functions-framework': '^5',
  '@google-cloud/secret-manager': '^6',
  '@google-cloud/tasks': '^6',
  'google-auth-library': '^10',
};

/** Whether `e` is Node's failure to find `name` itself (not a module that `name` imports). */
function missing(e: unknown, name: string): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((e as Error).message).includes(`'${name}'`);
}

/**
 * Loads what needs an optional package; when that package is not installed, throws an 'invalid' KubeplaneError (code
 * MissingPackage) that names it, what needs it, and the `npm install` that adds it.
 */
export async function withOptionalPackage<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const name = Object.keys(RANGES).find((n) => missing(e, n));
    if (!name) throw e;
    throw new KubeplaneError('invalid', `${what} needs ${name}, which is not installed: npm install ${name}@${RANGES[name]}`, {
      code: 'MissingPackage',
      resource: name,
    });
  }
}
