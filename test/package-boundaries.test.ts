// Dependencies point one way (docs/DESIGN "Layout"): handlers -> sandbox -> providers -> sdk. The real clouds' clients
// never import the sandbox, or every program that embeds them would carry the emulators and msw with them. Checked on
// the source: every file a package holds but its tests (benchmarks included: a bench beside the providers that imported
// the sandbox was such an arrow), by the @kubeplane packages it imports. Tests may import the sandbox from anywhere:
// the providers' tests are the conformance suite run against it, and the sandbox is only their devDependency.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** The @kubeplane packages each package's own (non-test) files may import. */
const ALLOWED: Record<string, readonly string[]> = {
  sdk: [],
  providers: ['sdk'],
  sandbox: ['sdk', 'providers'],
  handlers: ['sdk', 'providers', 'sandbox'],
};

/** Every `from '@kubeplane/x'`, `import '@kubeplane/x'` and `import('@kubeplane/x')` in a file, as the package name x. */
function kubeplaneImports(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)['"]@kubeplane\/([a-z-]+)(?:\/[^'"]*)?['"]/g)].map((m) => m[1] ?? '');
}

function ownFiles(pkg: string): string[] {
  const src = join(root, 'packages', pkg, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.test-d.ts'))
    .map((f) => join(src, f));
}

describe('imports between the packages', () => {
  it('finds every form of import of a @kubeplane package', () => {
    const text = [
      "import { Sandbox } from '@kubeplane/sandbox';",
      "import type { X } from '@kubeplane/sandbox/testing';",
      "export { y } from '@kubeplane/sdk';",
      "const m = await import('@kubeplane/handlers');",
      "import '@kubeplane/providers';",
      '// the sandbox clouds are @kubeplane/sandbox (a comment, no import)',
    ].join('\n');
    expect(kubeplaneImports(text)).toEqual(['sandbox', 'sandbox', 'sdk', 'handlers', 'providers']);
  });

  it.each(Object.keys(ALLOWED))('%s imports only the packages below it', (pkg) => {
    const files = ownFiles(pkg);
    expect(files.length).toBeGreaterThan(5);
    const wrong = files.flatMap((file) =>
      kubeplaneImports(readFileSync(file, 'utf8'))
        .filter((to) => to !== pkg && !ALLOWED[pkg]?.includes(to))
        .map((to) => `${relative(root, file)} imports @kubeplane/${to}`),
    );
    expect(wrong).toEqual([]);
  });
});
