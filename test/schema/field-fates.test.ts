// No silent ignores: every field of the native and Claudie manifest schemas either takes effect, proven by a named
// test that exists and runs, or is answered by validation with a warning (or error) at its path. The walk fails on a
// field with neither, and on a fate for a field the schemas no longer have.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { validateManifestText } from '@kubeplane/sdk';
import { FIELD_FATES, type Proof } from './field-fates.js';
import { schemaFields } from './schema-fields.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const leaves = schemaFields().filter((f) => !f.container);

describe('every manifest field takes effect or is warned of', () => {
  it('walks both documents: the fields they share, the native $schema and Claudie status', () => {
    const paths = leaves.map((f) => f.path);
    expect(paths).toContain('nodePools.dynamic[].storageDiskSize');
    expect(paths).toContain('secretRef.name');
    expect(leaves.find((f) => f.path === '$schema')?.documents).toEqual(['native']);
    expect(leaves.find((f) => f.path === 'status')?.documents).toEqual(['claudie']);
    expect(leaves.length).toBeGreaterThan(80);
  });

  it('has a fate for every field, and none for a field the schemas lack', () => {
    const missing = leaves.map((f) => f.path).filter((p) => !(p in FIELD_FATES));
    const stale = Object.keys(FIELD_FATES).filter((p) => !leaves.some((f) => f.path === p));
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });
  });

  const proofs = Object.entries(FIELD_FATES).flatMap(([path, fate]) => ('proof' in fate ? fate.proof.map((p): [string, Proof] => [path, p]) : []));
  it.each(proofs)('%s: its effect is proven by a test that exists and is not skipped (%o)', (_path, proof) => {
    const file = `${root}${proof.file}`;
    expect(existsSync(file), `${proof.file} does not exist`).toBe(true);
    const source = readFileSync(file, 'utf8');
    const at = source.indexOf(proof.test);
    expect(at, `no test titled "${proof.test}" in ${proof.file}`).toBeGreaterThan(0);
    // The title is the first argument of it()/test() (or of it.each(...)), not a comment or a string elsewhere.
    const before = source.slice(Math.max(0, at - 300), at);
    expect(before).toMatch(/(?:\b(?:it|test)|\b(?:it|test)\.each\([^\n]*\)|\]\))\(\s*['"`]$/);
    expect(before).not.toMatch(/\b(?:it|test|describe)\.(?:skip|todo)\b/);
  });

  const warned = Object.entries(FIELD_FATES).flatMap(([path, fate]) => ('warns' in fate ? [[path, fate] as const] : []));
  it.each(warned)('%s: validation warns at the field, naming it', (_path, fate) => {
    const { example } = fate.warns;
    const doc = parseDocument(readFileSync(`${root}${example.file}`, 'utf8'));
    const tree = doc.toJS() as Record<string, unknown>;
    example.edit(tree);
    const text = JSON.stringify(tree);
    const issues = validateManifestText(text, { file: example.file }).issues;
    const found = issues.find((i) => i.path.replace(/^spec\./, '') === example.at);
    expect(found, `no issue at ${example.at}; got ${issues.map((i) => `${i.path}: ${i.message}`).join('\n')}`).toBeDefined();
    expect(found?.severity).toBe(fate.warns.severity ?? 'warning');
    if (fate.warns.says) expect(found?.message).toContain(fate.warns.says);
  });
});
