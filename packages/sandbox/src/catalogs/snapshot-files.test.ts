// Every catalog snapshot the sandbox's emulators answer from names its public sources, the day it describes and the
// choices made (issue 31's Done-when: no catalog entry without a source), and ships in the npm package.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { snapshotHeaderProblem } from './snapshot-file.js';

const catalogs = fileURLToPath(new URL('.', import.meta.url));
const packageJson = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { files: string[] };
const snapshots = readdirSync(catalogs, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(catalogs, d.name))
      .filter((f) => f.endsWith('.json'))
      .map((f) => `${d.name}/${f}`),
  );

describe('catalog snapshot files', () => {
  it('exist for every cloud the sandbox serves a catalog of', () => {
    expect(snapshots.sort()).toEqual([
      'aws/instance-types.json',
      'aws/regions.json',
      'aws/ubuntu-images.json',
      'cloudflare/cloudflare-api.json',
      'crusoe/crusoe-cloud.json',
      'hetzner/hetzner-cloud.json',
    ]);
  });

  it.each(snapshots)('%s opens with its public sources (URLs), its date and notes on the choices made', (file) => {
    expect(snapshotHeaderProblem(JSON.parse(readFileSync(join(catalogs, file), 'utf8')))).toBeUndefined();
  });

  it('refuses a snapshot without a source, without a date, or without notes, saying what is missing', () => {
    const good = { source: ['https://docs.aws.amazon.com/x'], date: '2026-01-02', notes: ['n'], regions: [] };
    expect(snapshotHeaderProblem(good)).toBeUndefined();
    expect(snapshotHeaderProblem({ regions: [] })).toMatch(/must open with "source", "date" and "notes" \(it opens with "regions"\)/);
    expect(snapshotHeaderProblem({ ...good, source: [] })).toMatch(/"source" must list/);
    expect(snapshotHeaderProblem({ ...good, source: ['a blog'] })).toMatch(/"source" must list/);
    expect(snapshotHeaderProblem({ ...good, date: '2026-13-45' })).toMatch(/"date"/);
    expect(snapshotHeaderProblem({ ...good, date: 'December 2026' })).toMatch(/"date"/);
    expect(snapshotHeaderProblem({ ...good, notes: [] })).toMatch(/"notes"/);
  });

  it('ship in the npm package, where the built emulators read them', () => {
    expect(packageJson.files).toContain('src/catalogs/*/*.json');
  });
});
