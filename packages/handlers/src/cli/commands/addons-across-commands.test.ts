// Add-ons through the CLI, as a user runs it (issue 14): `kubeplane apply --sandbox` installs the declared add-ons,
// `kubeplane status --json` lists each with its installed version and state, a new version in the manifest upgrades
// it, an add-on taken out of the manifest is uninstalled — on a self-managed cluster, and on a Crusoe Managed
// Kubernetes cluster, where an add-on CMK did not install at creation is added afterwards.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../../test/helpers/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..', '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'kp-addons-cmds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface AddonState {
  name: string;
  chart: string;
  declaredVersion: string;
  installedVersion?: string;
  state: string;
  message: string;
}

async function addonsOf(state: string, project: string, cluster: string): Promise<Record<string, AddonState>> {
  const run = await runCli(['status', project, '--sandbox', '--state-dir', state, '--json'], { cwd: root });
  expect(run.code, run.stderr).toBe(0);
  const result = JSON.parse(run.stdout) as { projects: Array<{ project: string; clusters: Record<string, { state: string; addons?: AddonState[] }> }> };
  const status = result.projects.find((p) => p.project === project);
  expect(status?.clusters[cluster]?.state).toBe('DONE');
  return Object.fromEntries((status?.clusters[cluster]?.addons ?? []).map((a) => [a.name, a]));
}

async function apply(state: string, file: string, text: string): Promise<void> {
  writeFileSync(file, text);
  const run = await runCli(['apply', file, '--sandbox', '--state-dir', state], { cwd: root });
  expect(run.code, run.stderr).toBe(0);
}

describe('add-ons across commands', () => {
  it('self-managed: installs, reports, upgrades and uninstalls add-ons as the manifest says', async () => {
    const state = join(dir, 'self-managed');
    const file = join(dir, 'minimal-addons.yaml');
    const base = readFileSync(join(root, 'examples', 'minimal.yaml'), 'utf8');
    const withAddons = (lines: string) => `${base.trimEnd()}\n      addons:\n${lines}`;
    await apply(state, file, withAddons('        - { name: hcloud_csi, secretRef: { fromProvider: hetzner-1 } }\n        - name: metrics_server\n'));
    const first = await addonsOf(state, 'minimal', 'minimal');
    expect(Object.keys(first).sort()).toEqual(['cilium', 'hcloud_csi', 'metrics_server']);
    for (const a of Object.values(first)) {
      expect(a.state, a.name).toBe('installed');
      expect(a.installedVersion, a.name).toBe(a.declaredVersion);
    }
    const before = first['hcloud_csi']?.installedVersion ?? '';

    // A new version upgrades the release; metrics-server taken out is uninstalled.
    await apply(state, file, withAddons('        - { name: hcloud_csi, version: "2.18.1", secretRef: { fromProvider: hetzner-1 } }\n'));
    const second = await addonsOf(state, 'minimal', 'minimal');
    expect(Object.keys(second).sort()).toEqual(['cilium', 'hcloud_csi']);
    expect(second['hcloud_csi']).toMatchObject({ declaredVersion: '2.18.1', installedVersion: '2.18.1', state: 'installed' });
    expect(before).not.toBe('2.18.1');

    const text = await runCli(['status', 'minimal', '--sandbox', '--state-dir', state], { cwd: root });
    expect(text.stdout).toMatch(/hcloud_csi \(hcloud-csi 2\.18\.1\): installed/);
    const destroy = await runCli(['destroy', file, '--sandbox', '--state-dir', state], { cwd: root });
    expect(destroy.stdout).toContain('resources left in the sandbox clouds: 0');
  });

  it('Crusoe Managed Kubernetes: an add-on CMK did not install at creation is added, upgraded and removed afterwards through the cluster', async () => {
    const state = join(dir, 'cmk');
    const file = join(dir, 'crusoe-cmk.yaml');
    const example = readFileSync(join(root, 'examples', 'crusoe-cmk.yaml'), 'utf8');
    expect(example).toContain('        - name: nvidia_gpu_operator\n');
    const withoutGpu = example.replace('        - name: nvidia_gpu_operator\n', '');
    await apply(state, file, withoutGpu);
    const project = /metadata:\s*\n\s*name:\s*(\S+)/.exec(example)?.[1] ?? '';
    const cluster = /clusters:\s*\n\s*- name:\s*(\S+)/.exec(example)?.[1] ?? '';
    const created = await addonsOf(state, project, cluster);
    expect(created['nvidia_gpu_operator']).toBeUndefined();

    await apply(state, file, example);
    const after = await addonsOf(state, project, cluster);
    expect(after['nvidia_gpu_operator']).toMatchObject({ chart: 'gpu-operator', state: 'installed' });
    expect(after['nvidia_gpu_operator']?.installedVersion).toBe(after['nvidia_gpu_operator']?.declaredVersion);

    // Added by kubeplane, so kubeplane upgrades it and removes it.
    await apply(state, file, example.replace('        - name: nvidia_gpu_operator\n', '        - { name: nvidia_gpu_operator, version: v25.3.3 }\n'));
    expect((await addonsOf(state, project, cluster))['nvidia_gpu_operator']).toMatchObject({
      declaredVersion: 'v25.3.3',
      installedVersion: 'v25.3.3',
      state: 'installed',
    });
    await apply(state, file, withoutGpu);
    expect((await addonsOf(state, project, cluster))['nvidia_gpu_operator']).toBeUndefined();
    const destroy = await runCli(['destroy', file, '--sandbox', '--state-dir', state], { cwd: root });
    expect(destroy.stdout).toContain('resources left in the sandbox clouds: 0');
  });
});
