// The root of @kubeplane/sdk is a curated API: at most 150 names, types and values alike, so that what users rely on
// stays small enough to keep stable. Counted by the TypeScript compiler on the built .d.ts, as a consumer sees it.
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const dist = join(import.meta.dirname, '..', 'dist');

/** The names a module's built declarations export, as the compiler resolves them (re-exports followed). */
function exportedNames(dts: string): string[] {
  const program = ts.createProgram([dts], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(dts);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`${dts}: not a module (run tsc -b first)`);
  return checker.getExportsOfModule(symbol).map((s) => s.name);
}

describe('@kubeplane/sdk root', () => {
  const root = exportedNames(join(dist, 'index.d.ts'));

  it('exports at most 150 names', () => {
    expect(root.length).toBeGreaterThan(0);
    expect(root.length, `the root exports ${root.length} names; move what users do not need to /provider or /internal`).toBeLessThanOrEqual(150);
  });

  it('keeps what users are shown in the docs', () => {
    for (const name of ['Kubeplane', 'validateManifestText', 'validateManifestFile', 'formatIssue', 'ManifestInput', 'KubeplaneError', 'Redacted']) {
      expect(root).toContain(name);
    }
  });

  it('shares no name with /internal: each name has one home', () => {
    const internal = new Set(exportedNames(join(dist, 'internal.d.ts')));
    expect(root.filter((n) => internal.has(n))).toEqual([]);
  });
});
