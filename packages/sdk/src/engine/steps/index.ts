// The step registry: every step by name, and the order the apply and delete flows run them in.
import { addons } from './addons.js';
import { awaitApi } from './await-api.js';
import { awaitMachines } from './await-machines.js';
import { awaitNodes } from './await-nodes.js';
import { controlPlane } from './control-plane.js';
import { createNodes } from './create-nodes.js';
import { deleteDns } from './delete-dns.js';
import { deleteOutputs } from './delete-outputs.js';
export { DELETION_CEILING_SECONDS } from './deletion.js';
import { dns } from './dns.js';
import { forget } from './forget.js';
import { mesh } from './mesh.js';
import { networks } from './networks.js';
import { nodeMetadata } from './node-metadata.js';
import { outputs } from './outputs.js';
import { preflight } from './preflight.js';
import { prepare } from './prepare.js';
import { removeNodes } from './remove-nodes.js';
import { teardown } from './teardown.js';
import { upgrade } from './upgrade.js';
import type { ClusterSpec } from '../../model/types.js';
import { APPLY_FLOW, DELETE_FLOW, type StepDefinition, type StepName } from './types.js';

/** Every step of the apply and delete flows, by name. */
export const STEPS: Record<StepName, StepDefinition> = {
  preflight,
  prepare,
  networks,
  'control-plane': controlPlane,
  'create-nodes': createNodes,
  'await-machines': awaitMachines,
  dns,
  'await-api': awaitApi,
  'await-nodes': awaitNodes,
  'node-metadata': nodeMetadata,
  mesh,
  upgrade,
  'remove-nodes': removeNodes,
  addons,
  outputs,
  'delete-outputs': deleteOutputs,
  'delete-dns': deleteDns,
  teardown,
  forget,
};

export function isStepName(name: string): name is StepName {
  return name in STEPS;
}

/** The step after `step` in its flow that applies to `spec` (every step, without one), or null at the end. */
export function followingStep(step: StepName, spec?: ClusterSpec): StepName | null {
  const flow: readonly StepName[] = (APPLY_FLOW as readonly string[]).includes(step) ? APPLY_FLOW : DELETE_FLOW;
  for (const candidate of flow.slice(flow.indexOf(step) + 1)) {
    const appliesTo = STEPS[candidate].appliesTo;
    if (!spec || !appliesTo || appliesTo(spec)) return candidate;
  }
  return null;
}

export {
  type AddonCredentialResolver,
  APPLY_FLOW,
  DELETE_FLOW,
  type EmitInput,
  next,
  type ProviderFactory,
  type StepContext,
  type StepDefinition,
  type StepName,
  type StepResult,
  wait,
} from './types.js';
