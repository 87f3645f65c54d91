// Every TypeScript block of the README and docs/ is code a reader will paste: each is written to a file of its own,
// compiled with tsc in strict mode against the packages' published types (dist, as an installed package gives them),
// and run from the repository's root on the sandbox clouds. A block marked `<!-- doc-test: compile (why) -->` needs
// what CI has not (a cloud account, a running `sandbox serve`) and is compiled only; `<!-- doc-test: serve -->` is an
// HTTP service, started and driven with requests. A `console.log(...) // WORD` line promises WORD in the output.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksOf, promises } from './markdown-blocks.js';

const root = join(import.meta.dirname, '..', '..');
const out = join(root, 'scratch', 'doc-blocks');

function markdownFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return ['README.md', ...docs].sort();
}

const blocks = markdownFiles().flatMap((path) => blocksOf(root, path));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');

beforeAll(() => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  // The project settings a user of the packages would have: strict, NodeNext, no source condition (dist types).
  writeFileSync(
    join(out, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      include: ['*.ts'],
    }),
  );
  for (const b of blocks) writeFileSync(join(out, b.file), b.code);
});

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the code blocks of the README and docs/', () => {
  it('are found where they are expected (a moved block is not silently dropped)', () => {
    expect(blocks.map((b) => b.where.split(':')[0])).toEqual(
      expect.arrayContaining(['README.md', 'docs/sdk.md', 'docs/provider-contract.md', 'docs/sandbox.md', 'docs/providers/crusoe.md']),
    );
    expect(blocks.filter((b) => b.mode === 'run').length).toBeGreaterThanOrEqual(2);
  });

  it('compile with tsc --strict against the published types', () => {
    const r = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', out], { cwd: root, encoding: 'utf8' });
    // Errors are named by the block's place in its markdown file, not the scratch file's.
    const named = (r.stdout + r.stderr).replace(/^(\S+\.ts)\((\d+),\d+\)/gm, (_m, file: string, line: string) => {
      const b = blocks.find((x) => relative(out, file) === x.file || file.endsWith(x.file));
      return b ? `${b.where.split(':')[0]}:${Number(b.where.split(':')[1]) + Number(line)}` : `${file}(${line})`;
    });
    expect(named, named).toBe('');
    expect(r.status).toBe(0);
  }, 180_000);

  for (const b of blocks.filter((x) => x.mode === 'run')) {
    it(`${b.where} runs as written on the sandbox clouds`, () => {
      const r = spawnSync(process.execPath, [tsx, join(out, b.file)], {
        cwd: root,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      expect(r.stderr, r.stderr).not.toMatch(/Error|error TS/);
      expect(r.status, `${b.where} exited ${r.status}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      for (const word of promises(b.code)) expect(r.stdout, `${b.where} promised "${word}"`).toContain(word);
    }, 150_000);
  }

  for (const b of blocks.filter((x) => x.mode === 'serve')) {
    it(`${b.where} serves: a manifest is taken, built to DONE, and bad input gets 400 and 404`, async () => {
      const port = await freePort();
      const child = spawn(process.execPath, [tsx, join(out, b.file)], {
        cwd: root,
        env: { ...process.env, PORT: String(port), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      try {
        for (let i = 0; i < 600 && !output.includes('listening on'); i++) await new Promise((r) => setTimeout(r, 100));
        expect(output).toContain(`listening on http://127.0.0.1:${port}`);
        const base = `http://127.0.0.1:${port}`;
        const posted = await fetch(`${base}/projects`, { method: 'POST', body: readFileSync(join(root, 'examples', 'minimal.yaml')) });
        expect(posted.status).toBe(202);
        expect(await posted.json()).toEqual([{ project: 'minimal', generation: 1, queued: ['minimal'] }]);
        let state = '';
        for (let i = 0; i < 600 && state !== 'DONE' && state !== 'ERROR'; i++) {
          state = ((await (await fetch(`${base}/projects/minimal`)).json()) as { state: string }).state;
          if (state !== 'DONE') await new Promise((r) => setTimeout(r, 100));
        }
        expect(state, output).toBe('DONE');
        const bad = await fetch(`${base}/projects`, { method: 'POST', body: readFileSync(join(root, 'test', 'fixtures', 'invalid', 'count-zero.yaml')) });
        expect(bad.status).toBe(400);
        expect(await bad.json()).toEqual({ errors: expect.arrayContaining([expect.objectContaining({ line: 33, path: 'nodePools.dynamic[1].count' })]) });
        const unknown = await fetch(`${base}/projects/nope`);
        expect(unknown.status).toBe(404);
        expect(await unknown.json()).toEqual({ error: 'no project named nope' });
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    }, 150_000);
  }
});
