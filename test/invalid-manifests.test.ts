// The corpus of invalid manifests: each file holds one mistake and says, in its `# expect:` line, the path
// and the words a person must see. `kubeplane validate` must exit 1 and print exactly that, with a line number.
// test/fixtures/invalid-claudie holds one Claudie InputManifest per rule of Claudie's own validation (its CRD and
// internal/api/manifest/validate*.go), each naming that rule in a `# claudie:` line; docs/manifest.md has the table.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const root = join(import.meta.dirname, '..');
const sets = [
  { name: 'invalid', min: 40 },
  { name: 'invalid-claudie', min: 60 },
];

describe.each(sets)('invalid manifests ($name) are rejected with the path and a message a person can act on', ({ name, min }) => {
  const dir = join(import.meta.dirname, 'fixtures', name);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();

  it(`has a corpus of at least ${min} mistakes`, () => {
    expect(files.length).toBeGreaterThanOrEqual(min);
    if (name === 'invalid-claudie') {
      for (const file of files) expect(readFileSync(join(dir, file), 'utf8'), file).toMatch(/^# claudie: \S+\.(go|yaml|md) \(/m);
    }
  });

  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    const expectLine = /^# expect: (.+?) :: (.+)$/m.exec(text);
    const [, path, message] = expectLine ?? [];

    it(`${file}: ${text.split('\n')[0]?.replace(/^# /, '')}`, async () => {
      expect(path, `${file} needs an "# expect: <path> :: <message>" line`).toBeDefined();
      const shown = `test/fixtures/${name}/${file}`;
      const run = await runCli(['validate', shown], { cwd: root });
      expect(run.code).toBe(1);
      const errors = run.stdout.split('\n').filter((l) => l.length > 0 && !l.includes(': warning: '));
      expect(errors, run.stdout).toHaveLength(1);
      const [line] = errors;
      expect(line).toMatch(new RegExp(`^${escapeRegExp(shown)}:\\d+ ${escapeRegExp(path ?? '')}: `));
      expect(line).toContain(message);
    });
  }
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
