// A state directory (or an --out folder) the file system will not have, as a person at the terminal sees it: one
// line naming the folder or file, the kind, and what to do; at once, never a hang. Full and read-only disks are
// small tmpfs mounts made for the test (root only; CI runs as root).
import { execFileSync } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';
import { httpLeftIntercepted } from '../../../../test/helpers/http-intercepted.js';

// Every command closes what it opened, failing ones too: a sandbox left listening would serve the next test's requests.
afterEach(async () => {
  expect(await httpLeftIntercepted()).toBeNull();
});

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const repo = join(import.meta.dirname, '..', '..', '..', '..');
const root = process.getuid?.() === 0;
/** PROC_SUPER_MAGIC (statfs(2)): under /proc, mkdir fails with ENOENT below folders that exist. */
const procfs = (() => {
  try {
    return statfsSync('/proc').type === 0x9fa0;
  } catch {
    return false;
  }
})();
/** A folder under /proc that is not there and cannot be made. */
const procPath = `/proc/kubeplane-test-${process.pid}`;

const dirs: string[] = [];
const mounts: string[] = [];
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kubeplane-state-dir-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of mounts) execFileSync('umount', [dir]);
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!procfs)('a folder the file system does not allow (/proc)', () => {
  // Node 20's mkdir(dir, {recursive: true}) loops for ever there: the old command never returned.
  it('as --state-dir ends apply at once, naming the folder that refused', { timeout: 10_000 }, async () => {
    const run = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', `${procPath}/x`], { cwd: repo });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `kubeplane apply: invalid: cannot create the state directory ${procPath}/x: /proc does not allow new folders (ENOENT); pass another --state-dir\n`,
    );
  });

  it('as the folder of schema --out ends the command at once', { timeout: 10_000 }, async () => {
    const run = await runCli(['schema', '--out', `${procPath}/schema.json`], { cwd: repo });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `kubeplane schema: invalid: cannot create the folder of --out ${procPath}: /proc does not allow new folders (ENOENT); pass another --out\n`,
    );
  });

  it('as render --out ends the command at once', { timeout: 10_000 }, async () => {
    const run = await runCli(['render', 'examples/minimal.yaml', '--api-host', '203.0.113.10', '--out', procPath], { cwd: repo });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^kubeplane render: invalid: cannot create the folder ${procPath}/minimal/\\S+: /proc does not allow new folders \\(ENOENT\\); pass another --out\\n$`,
      ),
    );
  });
});

describe('a state directory whose files the disk refuses', () => {
  it('names a folder standing where a state file goes (EISDIR), with the kind', async () => {
    const dir = await fresh();
    await mkdir(join(dir, 'queues', 'steps.json'), { recursive: true });
    const run = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir], { cwd: repo });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `kubeplane apply: invalid: cannot read ${join(dir, 'queues', 'steps.json')}: it is a folder where kubeplane keeps a file (EISDIR); move that folder away\n`,
    );
    const json = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', dir, '--json'], { cwd: repo });
    expect(JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({
      error: { kind: 'invalid', resource: join(dir, 'queues', 'steps.json') },
    });
  });

  describe.skipIf(!root)('on a disk mounted for the test (root)', () => {
    let full = '';
    let readOnly = '';
    beforeAll(async () => {
      full = await fresh();
      readOnly = await fresh();
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', full]);
      mounts.push(full);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', readOnly]);
      mounts.push(readOnly);
      await writeFile(join(full, 'filler'), Buffer.alloc(128 * 1024)).catch((e: NodeJS.ErrnoException) => expect(e.code).toBe('ENOSPC'));
    });

    it('names the file and the fix when the disk is full (ENOSPC)', async () => {
      const run = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', full], { cwd: repo });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^kubeplane apply: invalid: cannot [a-z ]+ ${full}/\\S+: the disk holding it is full \\(ENOSPC\\); free space and run the command again; everything written before is kept\\n$`,
        ),
      );
    });

    it('names the file and the fix on a read-only file system (EROFS)', async () => {
      const run = await runCli(['apply', 'examples/minimal.yaml', '--sandbox', '--state-dir', readOnly], { cwd: repo });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^kubeplane apply: invalid: cannot [a-z ]+ ${readOnly}/\\S+: (it|${readOnly}) is on a read-only file system \\(EROFS\\); remount that file system read-write, or use a state directory on a writable one\\n$`,
        ),
      );
    });
  });
});
