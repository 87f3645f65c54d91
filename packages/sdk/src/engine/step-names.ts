// The names of the steps of a cluster's two flows, apart from the steps themselves, so the event types can name them
// without importing the steps (which import the events).

/** The steps of applying a cluster, in order. */
export const APPLY_FLOW = [
  'preflight',
  'prepare',
  'networks',
  'control-plane',
  'create-nodes',
  'await-machines',
  'dns',
  'await-api',
  'await-nodes',
  'node-metadata',
  'mesh',
  'upgrade',
  'remove-nodes',
  'addons',
  'outputs',
] as const;
/**
 * Outputs (the kubeconfig) go only after everything in the clouds is: a teardown that fails leaves the user the
 * credentials of what is still running.
 */
export const DELETE_FLOW = ['delete-dns', 'teardown', 'delete-outputs', 'forget'] as const;
/** The name of a step of the apply or delete flow. */
export type StepName = (typeof APPLY_FLOW)[number] | (typeof DELETE_FLOW)[number];
