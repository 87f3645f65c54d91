// The corpus of invalid manifests: each file holds one mistake and says, in its `# expect:` line, the path
// and the words a person must see. `kubeplane validate` must exit 1 and print exactly that, with a line number.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const dir = join(import.meta.dirname, 'fixtures', 'invalid');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
const root = join(import.meta.dirname, '..');

describe('invalid manifests are rejected with the path and a message a person can act on', () => {
  it('has a corpus of at least 40 mistakes', () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
  });

  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    const expectLine = /^# expect: (.+?) :: (.+)$/m.exec(text);
    const [, path, message] = expectLine ?? [];

    it(`${file}: ${text.split('\n')[0]?.replace(/^# /, '')}`, async () => {
      expect(path, `${file} needs an "# expect: <path> :: <message>" line`).toBeDefined();
      const shown = `test/fixtures/invalid/${file}`;
      const run = await runCli(['validate', shown], { cwd: root });
      expect(run.code).toBe(1);
      const errors = run.stdout.split('\n').filter((l) => l.length > 0 && !l.includes(': warning: '));
      expect(errors, run.stdout).toHaveLength(1);
      const [line] = errors;
      expect(line).toMatch(new RegExp(`^${escape(shown)}:\\d+ ${escape(path ?? '')}: `));
      expect(line).toContain(message);
    });
  }
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
