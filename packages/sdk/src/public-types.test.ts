// The sdk's public types guide their callers: results narrow on `ok`, an issue with a file always has its line, events
// name their step and error kind, and a manifest can be written in TypeScript with its defaults left out. The type
// assertions are checked by `tsc -p tsconfig.check.json`; the runtime ones prove the values match the types.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type EngineEvent,
  type ErrorEvent,
  type ErrorKind,
  formatIssue,
  type LocatedIssue,
  type Manifest,
  type ManifestInput,
  type PhaseStartedEvent,
  type PoolGrowthRefusedEvent,
  type StepDoneEvent,
  type StepName,
  type UnlocatedIssue,
  type ValidationFailure,
  type ValidationIssue,
  type ValidationResult,
  type ValidationSuccess,
  type WaitingEvent,
  validateManifestFile,
  validateManifestObject,
  validateManifestText,
} from './index.js';

const minimalText = readFileSync(join(import.meta.dirname, '..', '..', '..', 'examples', 'minimal.yaml'), 'utf8');

describe('ValidationResult', () => {
  it('narrows on ok: no errors when true, at least one when false', () => {
    expectTypeOf<ValidationResult>().toEqualTypeOf<ValidationSuccess | ValidationFailure>();
    expectTypeOf<ValidationSuccess['errors']>().toEqualTypeOf<[]>();
    expectTypeOf<ValidationFailure['errors']>().toEqualTypeOf<[ValidationIssue, ...ValidationIssue[]]>();
    const result = validateManifestText('apiVersion: kubeplane.dev/v1\nkind: Manifest\nmetadata: {}\n', { file: 'bad.yaml' });
    if (result.ok) {
      // @ts-expect-error a valid result has no error to read
      void result.errors[0].message;
      throw new Error('a manifest without a name validated');
    }
    // No `?.` and no check: a failure has a first error.
    expect(result.errors[0].path).toBe('metadata.name');
  });

  it('is ok with an empty errors list for a valid manifest, and not ok with every error for an invalid one', () => {
    const good = validateManifestText(minimalText);
    expect(good.ok && good.errors).toEqual([]);
    const bad = validateManifestText(minimalText.replace('count: 1', 'count: 0').replace('count: 2', 'count: 300'));
    expect(bad.ok).toBe(false);
    expect(bad.errors.map((e) => e.path)).toEqual(['nodePools.dynamic[0].count', 'nodePools.dynamic[1].count']);
  });
});

describe('ValidationIssue', () => {
  it('has a line and column wherever it has a file, and neither file nor line when it has no place in a text', () => {
    expectTypeOf<ValidationIssue>().toEqualTypeOf<LocatedIssue | UnlocatedIssue>();
    expectTypeOf<LocatedIssue['line']>().toEqualTypeOf<number>();
    expectTypeOf<UnlocatedIssue['file']>().toEqualTypeOf<undefined>();
    const issue = {} as ValidationIssue;
    if (issue.file !== undefined) {
      expectTypeOf(issue.line).toEqualTypeOf<number>();
      expectTypeOf(issue.column).toEqualTypeOf<number>();
    }
    // @ts-expect-error a file without its line is not a ValidationIssue
    const fileOnly: ValidationIssue = { severity: 'error', path: '(document)', message: 'x', file: 'a.yaml' };
    void fileOnly;
  });

  // Each of these once gave `file` without `line` (docs printed `a.yaml:undefined`).
  const wholeText: Array<[string, string, Parameters<typeof validateManifestText>[1]]> = [
    ['a text over the size limit', minimalText, { limits: { bytes: 100 } }],
    ['a text over the keys limit', minimalText, { limits: { keys: 10 } }],
    ['a text with no document', '# nothing here\n', {}],
    ['a text that is not YAML', 'a: [1, 2\n', {}],
    ['two documents of the same name', `${minimalText}\n---\n${minimalText}`, {}],
    ['an object written with no name', 'apiVersion: kubeplane.dev/v1\nkind: Manifest\nmetadata: {}\n', {}],
  ];
  it.each(wholeText)('gives %s a file with its line and column, and prints file:line', (_what, text, options) => {
    const result = validateManifestText(text, { ...options, file: 'a.yaml' });
    expect(result.ok).toBe(false);
    for (const issue of result.errors) {
      expect(issue).toMatchObject({ file: 'a.yaml', line: expect.any(Number), column: expect.any(Number) });
      expect(formatIssue(issue)).toMatch(/^a\.yaml:\d+ /);
    }
  });

  it('places two documents of one name at the second name', () => {
    const result = validateManifestText(`${minimalText}---\n${minimalText}`, { file: 'two.yaml' });
    const lines = minimalText.split('\n');
    const nameLine = lines.findIndex((l) => l.startsWith('  name: minimal')) + 1;
    expect(result.errors.map((e) => [e.path, e.line])).toEqual([['metadata.name', lines.length + nameLine]]);
  });

  it('gives issues of an object no file, line or column, whatever file the caller names', () => {
    const doc = { apiVersion: 'kubeplane.dev/v1', kind: 'Manifest', metadata: {} };
    const result = validateManifestObject(doc, { file: 'named.yaml' });
    expect(result.errors.length).toBeGreaterThan(0);
    for (const issue of result.errors) {
      expect(issue).toEqual({ severity: 'error', path: 'metadata.name', message: expect.any(String) });
      expect(formatIssue(issue)).toMatch(/^metadata\.name: /);
    }
  });

  it('names a file that cannot be read in the message, with no file:line to point at', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'kubeplane-types-')), 'missing.yaml');
    const result = await validateManifestFile(missing, { file: 'missing.yaml' });
    expect(result.errors).toEqual([{ severity: 'error', path: '(document)', message: expect.stringMatching(/^cannot read missing\.yaml: ENOENT/) }]);
    expect(formatIssue(result.errors[0] as ValidationIssue)).not.toContain('undefined');
  });
});

describe('EngineEvent', () => {
  it('is the union of named event types, discriminated on type', () => {
    expectTypeOf<Extract<EngineEvent, { type: 'phase-started' }>>().toEqualTypeOf<PhaseStartedEvent>();
    expectTypeOf<Extract<EngineEvent, { type: 'step-done' }>>().toEqualTypeOf<StepDoneEvent>();
    expectTypeOf<Extract<EngineEvent, { type: 'waiting' }>>().toEqualTypeOf<WaitingEvent>();
    expectTypeOf<Extract<EngineEvent, { type: 'error' }>>().toEqualTypeOf<ErrorEvent>();
    expectTypeOf<Extract<EngineEvent, { type: 'pool-growth-refused' }>>().toEqualTypeOf<PoolGrowthRefusedEvent>();
  });

  it('names steps as StepName and error kinds as ErrorKind', () => {
    expectTypeOf<StepDoneEvent['step']>().toEqualTypeOf<StepName>();
    expectTypeOf<WaitingEvent['step']>().toEqualTypeOf<StepName>();
    expectTypeOf<ErrorEvent['step']>().toEqualTypeOf<StepName>();
    expectTypeOf<ErrorEvent['kind']>().toEqualTypeOf<ErrorKind | 'undeliverable'>();
    expectTypeOf<PoolGrowthRefusedEvent['kind']>().toEqualTypeOf<ErrorKind>();
    const event = {
      type: 'error',
      at: 0,
      project: 'p',
      cluster: 'c',
      phase: 'infrastructure',
      step: 'create-nodes',
      message: 'm',
      kind: 'quota',
    } as EngineEvent;
    if (event.type === 'error' && event.kind !== 'undeliverable') expectTypeOf(event.kind).toEqualTypeOf<ErrorKind>();
    // @ts-expect-error a step that does not exist
    const typo: StepDoneEvent = { type: 'step-done', at: 0, project: 'p', cluster: 'c', phase: 'dns', step: 'create-node', message: 'm' };
    void typo;
  });
});

describe('ManifestInput', () => {
  it('is the native document as written, with every defaulted field optional', () => {
    const written: ManifestInput = {
      apiVersion: 'kubeplane.dev/v1',
      kind: 'Manifest',
      metadata: { name: 'typed' },
      providers: [{ name: 'hetzner-1', providerType: 'hetzner', secretRef: { env: { credentials: 'HCLOUD_TOKEN' } } }],
      nodePools: {
        dynamic: [
          { name: 'control', providerSpec: { name: 'hetzner-1', region: 'fsn1' }, count: 1, serverType: 'cpx22', image: 'ubuntu-24.04' },
          // autoscaler.min defaults to 0; labels, taints, storageDiskSize and static pools are left out.
          { name: 'workers', providerSpec: { name: 'hetzner-1', region: 'fsn1' }, autoscaler: { max: 3 }, serverType: 'cpx32', image: 'ubuntu-24.04' },
        ],
      },
      kubernetes: {
        clusters: [
          {
            name: 'typed',
            version: '1.34.2',
            network: '10.0.0.0/24',
            pools: { control: ['control'], compute: ['workers'] },
          },
        ],
      },
    };
    // @ts-expect-error providerType is checked as it is written
    const wrong: ManifestInput['providers'] = [{ name: 'a', providerType: 'hetznr', secretRef: {} }];
    void wrong;
    const result = validateManifestObject(written);
    // Valid; its one warning is that no cluster autoscaler grows the autoscaled pool.
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.path)).toEqual(['nodePools.dynamic[1].autoscaler']);
    const manifest = result.manifests[0] as Manifest;
    expect(manifest.labels).toEqual({});
    expect(manifest.nodePools.static).toEqual([]);
    expect(manifest.loadBalancers).toEqual({ roles: [], clusters: [] });
    expect(manifest.nodePools.dynamic[1]?.autoscaler).toEqual({ min: 0, max: 3 });
  });
});
