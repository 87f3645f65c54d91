import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');

describe('kubeplane CLI', () => {
  it('validate accepts the examples, printing the Claudie guide\'s version warning with its line', async () => {
    const run = await runCli(['validate', 'examples/claudie-bursting.yaml', 'examples/hybrid-aws-hetzner.yaml', 'examples/static-and-dynamic.yaml', 'examples/autoscaled.yaml', 'examples/minimal.yaml'], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('examples/claudie-bursting.yaml:51 spec.kubernetes.clusters[0].version: warning: Kubernetes 1.27 is past its support window');
    expect(run.stdout.match(/: ok \(/g)).toHaveLength(5);
  });

  it('validate exits 1 and names file, line and path of each error', async () => {
    const run = await runCli(['validate', 'test/fixtures/invalid/count-zero.yaml'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^test\/fixtures\/invalid\/count-zero\.yaml:\d+ nodePools\.dynamic\[1\]\.count: count must be at least 1\n$/);
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
    const plan = JSON.parse(json.stdout) as { operations: Array<{ kind: string }> };
    expect(plan.operations.filter((o) => o.kind === 'create-node')).toHaveLength(3);
  });

  it('plan refuses an invalid manifest before planning anything', async () => {
    const run = await runCli(['plan', 'test/fixtures/invalid/network-too-small.yaml'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('create-');
  });

  it('schema prints the JSON Schema, and docs/manifest.schema.json is the current one', async () => {
    const run = await runCli(['schema'], { cwd: root });
    expect(run.code).toBe(0);
    const schema = JSON.parse(run.stdout) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['apiVersion', 'providers', 'nodePools', 'kubernetes', 'loadBalancers']));
    expect(JSON.parse(readFileSync(join(root, 'docs', 'manifest.schema.json'), 'utf8'))).toEqual(schema);
  });

  it('usage errors exit 2 with the usage line', async () => {
    const run = await runCli(['validate'], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: kubeplane validate');
    expect((await runCli(['frobnicate'])).code).toBe(2);
  });
});

describe('the installed kubeplane binary', () => {
  it('runs from the repository root through the bin script', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { stdout } = await promisify(execFile)(process.execPath, ['packages/handlers/bin/kubeplane.js', 'validate', 'examples/minimal.yaml'], { cwd: root });
    expect(stdout).toBe('examples/minimal.yaml: ok (1 manifest, 1 cluster)\n');
  });
});
