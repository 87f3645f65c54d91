// The step registry: every step by name, and the order the apply and delete flows run them in.
import { addons } from './addons.js';
import { outputs } from './outputs.js';
import { deleteDns, deleteOutputs, forget, teardown } from './delete.js';
export { DELETION_CEILING_SECONDS } from './delete.js';
import { dns } from './dns.js';
import { awaitMachines, createNodes, networks, prepare } from './infrastructure.js';
import { controlPlane } from './managed.js';
import { preflight } from './preflight.js';
import { awaitApi, awaitNodes, mesh, nodeMetadata, removeNodes, upgrade } from './kubernetes.js';
import type { ClusterSpec } from '../../model/types.js';
import { APPLY_FLOW, DELETE_FLOW, type StepDefinition, type StepName } from './types.js';

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
