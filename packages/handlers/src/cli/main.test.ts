import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');

describe('kubeplane CLI', () => {
  it("validate accepts the examples, printing the Claudie guide's version warning with its line", async () => {
    const run = await runCli(
      [
        'validate',
        'examples/claudie-bursting.yaml',
        'examples/hybrid-aws-hetzner.yaml',
        'examples/static-and-dynamic.yaml',
        'examples/autoscaled.yaml',
        'examples/minimal.yaml',
      ],
      { cwd: root },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('examples/claudie-bursting.yaml:51 spec.kubernetes.clusters[0].version: warning: Kubernetes 1.27 is past its support window');
    expect(run.stdout.match(/: ok \(/g)).toHaveLength(5);
  });

  it('validate exits 1 and names file, line and path of each error', async () => {
    const run = await runCli(['validate', 'test/fixtures/invalid/count-zero.yaml'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^test\/fixtures\/invalid\/count-zero\.yaml:\d+ nodePools\.dynamic\[1\]\.count: count must be at least 1\n$/);
  });

  it('validate - reads the manifest from standard input, and names it <stdin> with the line', async () => {
    const typed = readFileSync(join(root, 'test', 'fixtures', 'invalid', 'count-zero.yaml'), 'utf8');
    const run = await runCli(['validate', '-'], { cwd: root, stdin: { tty: false, typed } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('<stdin>:33 nodePools.dynamic[1].count: count must be at least 1\n');
    expect(run.stderr).toBe('<stdin>: 1 error\n');
    const json = await runCli(['validate', '-', '--json'], { cwd: root, stdin: { tty: false, typed } });
    expect(JSON.parse(json.stdout)).toMatchObject({ files: [{ file: '<stdin>', ok: false, issues: [{ file: '<stdin>', line: 33 }] }] });
    const twice = await runCli(['validate', '-', '-'], { cwd: root, stdin: { tty: false, typed } });
    expect(twice.code).toBe(2);
  });

  it('validate reports a missing file as an error, not a crash', async () => {
    const run = await runCli(['validate', 'nope.yaml'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('cannot read');
  });

  it('plan prints each operation with its reason, and --json the same plan as data', async () => {
    const text = await runCli(['plan', 'examples/minimal.yaml'], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('create-node minimal-');
    expect(text.stdout).toContain('plan: 1 create-cluster');
    const json = await runCli(['plan', 'examples/minimal.yaml', '--json'], { cwd: root });
    const result = JSON.parse(json.stdout) as { type: string; plans: Array<{ operations: Array<{ kind: string }> }> };
    expect(result.type).toBe('result');
    const plan = result.plans[0];
    expect(plan?.operations.filter((o) => o.kind === 'create-node')).toHaveLength(3);
  });

  it('plan refuses an invalid manifest before planning anything', async () => {
    const run = await runCli(['plan', 'test/fixtures/invalid/network-too-small.yaml'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('create-');
  });

  it('schema prints the native JSON Schema by default, the one in docs/schema/kubeplane.schema.json', async () => {
    const run = await runCli(['schema'], { cwd: root });
    expect(run.code).toBe(0);
    const schema = JSON.parse(run.stdout) as { $id: string; title: string; properties: Record<string, unknown> };
    expect(schema.$id).toBe('https://kubeplane.dev/schemas/kubeplane.schema.json');
    expect(schema.title).toBe('kubeplane manifest (kubeplane.dev/v1 Manifest)');
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['apiVersion', 'providers', 'nodePools', 'kubernetes', 'loadBalancers']));
    expect(run.stdout).toBe(readFileSync(join(root, 'docs', 'schema', 'kubeplane.schema.json'), 'utf8'));
  });

  it('schema --format claudie prints the InputManifest schema, the one in docs/schema/claudie.schema.json', async () => {
    const run = await runCli(['schema', '--format', 'claudie'], { cwd: root });
    expect(run.code).toBe(0);
    const schema = JSON.parse(run.stdout) as { $id: string; title: string; properties: Record<string, { const?: string }> };
    expect(schema.$id).toBe('https://kubeplane.dev/schemas/claudie.schema.json');
    expect(schema.title).toContain('Claudie InputManifest (claudie.io/v1beta1 InputManifest)');
    expect(schema.properties.apiVersion?.const).toBe('claudie.io/v1beta1');
    expect(Object.keys(schema.properties)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(run.stdout).toBe(readFileSync(join(root, 'docs', 'schema', 'claudie.schema.json'), 'utf8'));
  });

  it('schema --out writes the schema to a file instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-schema-'));
    try {
      const run = await runCli(['schema', '--format', 'claudie', '--out', 'sub/claudie.json'], { cwd: dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('wrote the claudie manifest schema to sub/claudie.json');
      expect(readFileSync(join(dir, 'sub', 'claudie.json'), 'utf8')).toBe(readFileSync(join(root, 'docs', 'schema', 'claudie.schema.json'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('schema with an unknown --format is a usage error naming the formats', async () => {
    const run = await runCli(['schema', '--format', 'crd'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'kubeplane schema: unknown --format "crd"; use native (kubeplane.dev/v1 Manifest) or claudie (claudie.io/v1beta1 InputManifest)\nusage: kubeplane schema [--format native|claudie] [--out <file>]\n',
    );
  });

  it('usage errors exit 2 with the usage line', async () => {
    const run = await runCli(['validate'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: kubeplane validate');
    expect((await runCli(['frobnicate'])).code).toBe(2);
  });

  it("--version and -V print the version in the package's package.json and exit 0", async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'packages', 'handlers', 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      expect(await runCli([flag])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    }
  });
});

describe('the installed kubeplane binary', () => {
  it('runs from the repository root through the bin script', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { stdout } = await promisify(execFile)(process.execPath, ['packages/handlers/bin/kubeplane.js', 'validate', 'examples/minimal.yaml'], { cwd: root });
    expect(stdout).toBe('examples/minimal.yaml: ok (1 manifest, 1 cluster)\n');
  });

  it('validates a manifest piped into validate -', async () => {
    const { spawnSync } = await import('node:child_process');
    const input = readFileSync(join(root, 'examples', 'minimal.yaml'));
    const run = spawnSync(process.execPath, ['packages/handlers/bin/kubeplane.js', 'validate', '-'], { cwd: root, input, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('<stdin>: ok (1 manifest, 1 cluster)\n');
    expect(run.status).toBe(0);
  });
});
