// The order of the apply flow: each step follows the one before it unless it does not apply to the cluster, and the
// flow, not the step before, passes over it. A step added after `networks` or `node-metadata` is therefore run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDesiredState } from '../../model/desired-state.js';
import { validateManifestText } from '../../manifest/validate.js';
import type { ClusterSpec } from '../../model/types.js';
import { followingStep, STEPS } from './index.js';
import { APPLY_FLOW, DELETE_FLOW, type StepName } from './types.js';

function specOf(example: string): ClusterSpec {
  const text = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', '..', 'examples', example), 'utf8');
  const result = validateManifestText(text);
  const [manifest] = result.manifests;
  if (!result.ok || !manifest) throw new Error(`${example}: ${result.issues.map((i) => i.message).join('; ')}`);
  const [spec] = buildDesiredState(manifest).clusters;
  if (!spec) throw new Error(`${example} has no cluster`);
  return spec;
}

/** The steps a cluster goes through when every step hands to the flow. */
function walk(spec: ClusterSpec): StepName[] {
  const out: StepName[] = [APPLY_FLOW[0]];
  for (let s = followingStep(APPLY_FLOW[0], spec); s; s = followingStep(s, spec)) out.push(s);
  return out;
}

describe('the apply flow', () => {
  it('runs kubeadm clusters through the mesh and the upgrade step, and never the managed control plane', () => {
    const steps = walk(specOf('minimal.yaml'));
    expect(steps).toEqual(APPLY_FLOW.filter((s) => s !== 'control-plane'));
  });

  it('runs managed clusters through the control plane, and passes over the mesh and the upgrade step', () => {
    const steps = walk(specOf('crusoe-cmk.yaml'));
    expect(steps).toEqual(APPLY_FLOW.filter((s) => s !== 'mesh' && s !== 'upgrade'));
  });

  it('without a spec (a record from before its desired state), every step follows the one before', () => {
    expect(followingStep('networks')).toBe('control-plane');
    expect(followingStep('outputs')).toBeNull();
    expect(followingStep('teardown')).toBe('delete-outputs');
  });

  it('has no step that does not apply in the delete flow: deletion runs every step', () => {
    expect(DELETE_FLOW.filter((s) => STEPS[s].appliesTo)).toEqual([]);
  });
});
