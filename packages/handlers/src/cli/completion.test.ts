// `kubeplane completion bash|zsh` proven in the shells themselves: the bash script is sourced in bash and asked for
// completions the way bash asks (COMP_WORDS, COMP_CWORD, COMPREPLY); the zsh script is loaded by compinit in zsh.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');

let dir = '';
let bashScript = '';
let zshScript = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeplane-completion-'));
  const bash = await runCli(['completion', 'bash']);
  const zsh = await runCli(['completion', 'zsh']);
  expect([bash.code, zsh.code, bash.stderr, zsh.stderr]).toEqual([0, 0, '', '']);
  bashScript = join(dir, 'kubeplane.bash');
  zshScript = join(dir, '_kubeplane');
  await writeFile(bashScript, bash.stdout);
  await writeFile(zshScript, zsh.stdout);
  await mkdir(join(dir, 'work', 'state-here'), { recursive: true });
  await writeFile(join(dir, 'work', 'cluster.yaml'), 'x');
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What bash offers after typing `words` (the last one being completed), in cwd: COMPREPLY, sorted. */
function bashCompletes(words: string[], cwd = root): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const script = `source '${bashScript}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _kubeplane; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['--norc', '--noprofile', '-c', script], { cwd, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
}

/** Every flag of every command, as its help lists them: `kubeplane <command> --help`'s options section. */
async function flagsOf(words: string[]): Promise<string[]> {
  const help = (await runCli([...words, '--help'])).stdout;
  const options = help.slice(help.indexOf('\noptions:\n'));
  return [...options.matchAll(/^ {2}(-[^\s,]+)(?:, (--\S+))?/gm)].flatMap((m) => [m[1], m[2]]).filter((f): f is string => f !== undefined);
}

const COMMANDS = [
  ['validate'],
  ['plan'],
  ['apply'],
  ['status'],
  ['destroy'],
  ['kubeconfig'],
  ['ssh-key'],
  ['metadata'],
  ['sandbox', 'lifecycle'],
  ['sandbox', 'serve'],
  ['render'],
  ['schema'],
  ['autoscaler-adapter'],
  ['completion'],
];

describe('kubeplane completion bash, sourced in bash', () => {
  it('passes bash -n', () => {
    expect(spawnSync('bash', ['-n', bashScript]).status).toBe(0);
  });

  it('completes a command from its first letters, and every command from nothing', () => {
    expect(bashCompletes(['kubeplane', 'va'])).toEqual(['validate']);
    expect(bashCompletes(['kubeplane', 's'])).toEqual(['sandbox', 'schema', 'ssh-key', 'status']);
    expect(bashCompletes(['kubeplane', ''])).toEqual(expect.arrayContaining([...new Set(COMMANDS.map((c) => c[0] as string)), 'help', '--help']));
  });

  it("completes the sandbox group's commands, and help's command names", () => {
    expect(bashCompletes(['kubeplane', 'sandbox', 'l'])).toEqual(['lifecycle']);
    expect(bashCompletes(['kubeplane', 'help', 'sc'])).toEqual(['schema']);
    expect(bashCompletes(['kubeplane', 'help', 'sandbox', 's'])).toEqual(['serve']);
  });

  it('completes an option of a command, and offers every option its help lists', async () => {
    expect(bashCompletes(['kubeplane', 'apply', 'x.yaml', '--state'])).toEqual(['--state-dir']);
    expect(bashCompletes(['kubeplane', 'sandbox', 'lifecycle', '--s'])).toEqual(['--sandbox-date', '--seed']);
    expect(bashCompletes(['kubeplane', 'sandbox', 'lifecycle', '--se'])).toEqual(['--seed']);
    for (const words of COMMANDS) {
      const flags = await flagsOf(words);
      expect(flags.length, words.join(' ')).toBeGreaterThan(0);
      expect(bashCompletes(['kubeplane', ...words, '-']), words.join(' ')).toEqual([...flags].sort());
    }
  });

  it("completes an option's value: the formats of --format, folders for --state-dir, the shells of completion", () => {
    expect(bashCompletes(['kubeplane', 'schema', '--format', ''])).toEqual(['claudie', 'native']);
    expect(bashCompletes(['kubeplane', 'apply', 'cluster.yaml', '--state-dir', ''], join(dir, 'work'))).toEqual(['state-here']);
    expect(bashCompletes(['kubeplane', 'completion', ''])).toEqual(['bash', 'zsh']);
  });

  it("completes a manifest argument with the folder's files", () => {
    expect(bashCompletes(['kubeplane', 'validate', 'examples/mini'])).toEqual(['examples/minimal.yaml']);
    expect(bashCompletes(['kubeplane', 'apply', 'c'], join(dir, 'work'))).toEqual(['cluster.yaml']);
  });
});

// zsh is one of the test machine's packages (scripts/setup-test-machine.sh), as bash is.
describe('kubeplane completion zsh, in zsh', () => {
  /** Runs `_kubeplane` for `words` with _describe and _arguments replaced by functions that print what they are given. */
  function zshOffers(words: string[]): string {
    const quoted = words.map((w) => `'${w}'`).join(' ');
    const script = [
      'compdef() { : }',
      `source '${zshScript}'`,
      '_describe() { print -rl -- ${(P)2} }',
      '_arguments() { print -rl -- "$@" }',
      `words=(${quoted}); CURRENT=${words.length}`,
      '_kubeplane',
    ].join('\n');
    return execFileSync('zsh', ['-f', '-c', script], { cwd: root, encoding: 'utf8' });
  }

  it('passes zsh -n and registers _kubeplane for kubeplane through compinit', () => {
    expect(spawnSync('zsh', ['-n', zshScript]).status).toBe(0);
    const registered = execFileSync(
      'zsh',
      ['-f', '-c', `fpath=('${dir}' $fpath); autoload -Uz compinit; compinit -u -d '${join(dir, 'zcompdump')}'; print -r -- $_comps[kubeplane]`],
      { encoding: 'utf8' },
    );
    expect(registered.trim()).toBe('_kubeplane');
  });

  it('describes the commands, the sandbox group, and each command with its options', () => {
    expect(zshOffers(['kubeplane', ''])).toMatch(/^validate:check manifests; one line per problem, file\\:line path\\: message$/m);
    expect(zshOffers(['kubeplane', 'sandbox', ''])).toMatch(/^lifecycle:create, scale/m);
    const lifecycle = zshOffers(['kubeplane', 'sandbox', 'lifecycle', '--s']);
    expect(lifecycle).toMatch(/^--seed\[.*\]:seed: $/m);
    expect(lifecycle).toMatch(/^\*:file:_files$/m);
    expect(zshOffers(['kubeplane', 'schema', '--format', ''])).toMatch(/^--format\[.*\]:format:\(native claudie\)$/m);
    expect(zshOffers(['kubeplane', 'apply', ''])).toMatch(/^--state-dir\[.*\]:state-dir:_files -\/$/m);
  });
});

describe('kubeplane completion', () => {
  it('names the shells when none or another is asked for, exit 2', async () => {
    const none = await runCli(['completion']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^kubeplane completion: completion needs a shell: bash or zsh\nusage: kubeplane completion bash\|zsh\n$/);
    const fish = await runCli(['completion', 'fish']);
    expect(fish.code).toBe(2);
    expect(fish.stderr).toContain('unknown shell "fish"; use bash or zsh');
  });
});
