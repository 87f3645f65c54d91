// apply on a built Crusoe Managed Kubernetes cluster: an add-on added, upgraded or removed after creation is carried
// out by the addons step's in-cluster mechanism, no longer refused; what CMK cannot change still is.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '../manifest/validate.js';
import { buildDesiredState } from '../model/desired-state.js';
import { VirtualClock } from '../provider/clock.js';
import { MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore } from './adapters/memory.js';
import type { StepEvent } from './events.js';
import { Kubeplane } from './kubeplane.js';
import { clusterKey, emptyLedger, projectKey, RECORD_VERSION, type ClusterRecord, type ProjectRecord } from './records.js';

const manifest = (addons: string, version = '1.33.4-cmk.20') => {
  const text = readFileSync(new URL('../../../../test/fixtures/addons/cmk.yaml', import.meta.url), 'utf8').replace(
    /\$\{(\w+)\}/g,
    (_, k: string) => ({ version, addons })[k] ?? '',
  );
  const r = validateManifestText(text);
  if (!r.ok || !r.manifests[0]) throw new Error(r.issues.map((i) => `${i.path}: ${i.message}`).join('\n'));
  return r.manifests[0];
};

async function builtWith(addons: string, addonsAtCreation?: string[]): Promise<Kubeplane> {
  const clock = new VirtualClock(Date.UTC(2026, 11, 2));
  const state = new MemoryStateStore();
  const m = manifest(addons);
  const spec = buildDesiredState(m).clusters[0]!;
  const record: ClusterRecord = {
    v: RECORD_VERSION,
    project: 'lab',
    name: 'lab',
    clusterId: spec.id,
    incarnation: 'i1',
    generation: 1,
    target: 'present',
    desired: spec,
    current: spec,
    ledger: {
      ...emptyLedger(),
      ...(addonsAtCreation ? { managed: { provider: 'crusoe-1', region: 'us-east1', name: 'lab', id: 'c-1', pools: {}, addonsAtCreation } } : {}),
    },
    pki: null,
    step: { phase: 'outputs', name: 'outputs', seq: 9, since: 0, attempts: 0 },
    status: { state: 'DONE', phase: 'none', message: 'done', previous: [] },
    lastManifest: m,
  };
  const project: ProjectRecord = { v: RECORD_VERSION, project: 'lab', generation: 1, manifest: m, clusters: { lab: spec.id }, updatedAt: 0 };
  await state.put(projectKey('lab'), project, 0);
  await state.put(clusterKey(spec.id), record, 0);
  return new Kubeplane({
    state,
    secrets: new MemorySecretStore(),
    queue: new MemoryQueue<StepEvent>({ clock, visibilityTimeoutSeconds: 300 }),
    lease: new MemoryLease(clock),
    clock,
    providers: () => Promise.reject(new Error('no provider in this test')),
    kubernetes: () => {
      throw new Error('no cluster in this test');
    },
  });
}

describe('add-on changes on a managed cluster', () => {
  it('queues an add-on added after creation instead of refusing it', async () => {
    const kp = await builtWith('        - name: crusoe_csi');
    const result = await kp.apply(manifest('        - name: crusoe_csi\n        - name: nvidia_gpu_operator'));
    expect(result.queued).toEqual(['lab']);
    expect(result.plan.operations.map((o) => o.kind)).toContain('update-addons');
  });

  it('queues an add-on removed or upgraded after creation', async () => {
    const kp = await builtWith('        - name: crusoe_csi\n        - name: nvidia_gpu_operator', ['nvidia_gpu_operator']);
    expect((await kp.apply(manifest('        - { name: crusoe_csi, version: "0.10.4" }\n        - name: nvidia_gpu_operator'))).queued).toEqual(['lab']);
    expect((await kp.apply(manifest('        - name: nvidia_gpu_operator'))).queued).toEqual(['lab']);
  });

  it("refuses to remove an add-on CMK installed at creation, which is its Helm release, not kubeplane's", async () => {
    const kp = await builtWith('        - name: crusoe_csi\n        - name: nvidia_gpu_operator', ['nvidia_gpu_operator']);
    await expect(kp.apply(manifest('        - name: crusoe_csi'))).rejects.toThrow(
      /kubeplane cannot remove nvidia_gpu_operator, which it installed; uninstall its Helm release yourself/,
    );
  });

  it("queues an upgrade of an add-on CMK installed, through the manifest's version", async () => {
    const kp = await builtWith('        - name: crusoe_csi\n        - name: nvidia_gpu_operator', ['nvidia_gpu_operator']);
    expect((await kp.apply(manifest('        - name: crusoe_csi\n        - { name: nvidia_gpu_operator, version: v25.3.3 }'))).queued).toEqual(['lab']);
  });

  it('queues a newer control-plane version, which the control-plane step records only if the provider already runs it', async () => {
    const kp = await builtWith('        - name: crusoe_csi');
    expect((await kp.apply(manifest('        - name: crusoe_csi\n        - name: metrics_server', '1.33.4-cmk.22'))).queued).toEqual(['lab']);
  });
});
