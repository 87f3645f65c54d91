// The inventory: every live resource in every sandbox cloud, read directly from the emulators' state
// (not through a provider), so tests can prove that nothing leaked.
import type { CloudName } from './faults.js';

/** A sandbox cloud's name (the registry's, clouds/index.ts). */
export type InventoryCloud = Exclude<CloudName, 'kubernetes'>;

/** One resource. A cloud's items may carry more fields than these (a Crusoe item has `owner`, the name that says whose it is). */
export interface InventoryItem {
  cloud: InventoryCloud;
  kind: string;
  id: string;
  name?: string;
  /** The `kubeplane.dev/cluster-id` tag or label, when the resource has one. */
  clusterId?: string;
  state?: string;
}
