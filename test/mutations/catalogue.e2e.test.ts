// Every defect of the catalogue in the fast mode, and a sample of them with --netns (real WireGuard, nginx, etcd and
// TLS; needs root and network namespaces, as test/netns/): each mode must end as docs/netns.md's table says, with
// the defect's family of message when it catches it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue, documentedRows, expectedOf, outcomeOf, ROOT, sampleOf, tryDefect } from './catalogue.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const defects = await catalogue();
const rows = documentedRows(readFileSync(join(ROOT, 'docs', 'netns.md'), 'utf8'));

describe('the defect catalogue, in the fast mode', () => {
  for (const d of defects) {
    it(`${d.id}: ${rows.get(d.id)?.fast ?? '?'}`, async () => {
      const trial = await tryDefect(d, 'fast');
      expect(outcomeOf(trial, d), trial.output).toBe(expectedOf(d, 'fast'));
      expect(outcomeOf(trial, d)).toBe(rows.get(d.id)?.fast);
    });
  }
});

describe('the defect catalogue, with --netns (a sample each run)', () => {
  // The hybrid example boots ten machines: its defects cost about 90 s each with --netns, the others about 25 s. One
  // defect the engine finishes but the overlay check fails (wireguard-listen-port) is always among them: such a stage
  // must be printed as failed, never DONE.
  const light = defects.filter((d) => (d.example ?? 'minimal.yaml') === 'minimal.yaml');
  for (const d of sampleOf(light, 3, 'test/mutations/catalogue.e2e.test.ts', ['wireguard-listen-port'])) {
    it(
      `${d.id}: ${rows.get(d.id)?.netns ?? '?'}`,
      async () => {
        const trial = await tryDefect(d, 'netns');
        expect(outcomeOf(trial, d), trial.output).toBe(expectedOf(d, 'netns'));
        expect(outcomeOf(trial, d)).toBe(rows.get(d.id)?.netns);
        if (!trial.meshWhole) expect(trial.create, 'a stage whose overlay check failed').not.toBe('DONE');
      },
      10 * 60_000,
    );
  }
});
