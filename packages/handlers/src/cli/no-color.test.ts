// NO_COLOR (https://no-color.org) asks a command that colours its output by default not to. kubeplane colours nothing,
// on a terminal either, so there is nothing for NO_COLOR to take away: proven here on streams that say they are
// terminals, where a colouring tool would colour, through help, validation errors and warnings, and apply's progress.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A stream that says it is a terminal (as process.stdout on one does), collecting what is written. */
function terminal(tty: boolean): PassThrough & { isTTY: boolean; columns: number; text(): string } {
  const chunks: Buffer[] = [];
  const stream = Object.assign(new PassThrough(), { isTTY: tty, columns: 100, text: () => Buffer.concat(chunks).toString('utf8') });
  stream.on('data', (c: Buffer) => chunks.push(c));
  return stream;
}

async function run(argv: string[], tty: boolean): Promise<string> {
  const stdout = terminal(tty);
  const stderr = terminal(tty);
  await main(argv, { stdout, stderr, cwd: root, env: { TERM: 'xterm-256color', PATH: process.env.PATH ?? '' } });
  return stdout.text() + stderr.text();
}

/** SGR, the escape sequence that sets colours and styles: ESC [ parameters m. */
const SGR = /\x1b\[[0-9;:]*m/;

describe('colour', () => {
  it('kubeplane prints no colour on a terminal, so NO_COLOR has nothing to take away', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubeplane-no-color-'));
    dirs.push(dir);
    const outputs = {
      help: await run(['--help'], true),
      'help apply': await run(['help', 'apply'], true),
      usage: await run(['apply'], true),
      errors: await run(['validate', 'test/fixtures/invalid/count-zero.yaml'], true),
      warnings: await run(['validate', 'examples/claudie-bursting.yaml'], true),
      progress: await run(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir], true),
    };
    expect(outputs.errors).toContain('count must be at least 1');
    expect(outputs.warnings).toContain('warning: Kubernetes 1.27');
    // The terminal was taken for one: apply drew its live status line, cleared with ESC [2K (a cursor control).
    expect(outputs.progress).toContain('\r\x1b[2K');
    for (const [name, text] of Object.entries(outputs)) expect(text.match(SGR)?.[0], name).toBeUndefined();
  });

  it('off a terminal (a pipe, a CI log) nothing but text is printed: no escape sequence at all', async () => {
    // apply's progress off a terminal: progress.test.ts ('prints each wait whose reason changed, ..., and no control codes').
    for (const argv of [['--help'], ['validate', 'test/fixtures/invalid/count-zero.yaml'], ['validate', 'examples/claudie-bursting.yaml']]) {
      const text = await run(argv, false);
      expect(text.length, argv.join(' ')).toBeGreaterThan(0);
      expect(text, argv.join(' ')).not.toContain('\x1b');
    }
  });
});
