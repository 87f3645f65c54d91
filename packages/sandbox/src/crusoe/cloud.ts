// Crusoe Cloud as a sandbox cloud (clouds/descriptor.ts): one project with VMs, VPC networking, InfiniBand, and CMK
// clusters and node pools whose control planes it runs itself; its API served on a port of its own, checked against
// Crusoe's Swagger document.
import { randomBytes } from 'node:crypto';
import { SANDBOX_CREDENTIALS } from '../accounts.js';
import type { NodeGpus, SandboxCloud, ServedAs } from '../clouds/descriptor.js';
import type { InventoryItem } from '../inventory.js';
import { apiTarget, type ServedApi } from '../serve/routes.js';
import { CRUSOE_TYPES } from './catalog.js';
import { CRUSOE_DOCUMENT } from './document.js';
import { CRUSOE_API, CRUSOE_CLOUD, CrusoeEmulator, type CrusoeEmulatorOptions, type CrusoeEmulatorState, type CrusoeInventoryItem } from './emulator.js';

/** The Sandbox's options for its Crusoe project (default: SANDBOX_CREDENTIALS' key and project). */
export interface CrusoeCloudOptions {
  crusoe?: Partial<CrusoeEmulatorOptions>;
}

const SERVED: ServedApi = {
  name: 'Crusoe Cloud',
  base: CRUSOE_API,
  error: (status, message) => JSON.stringify({ code: status === 404 ? 'not_found' : 'bad_request', message, error_id: randomBytes(8).toString('hex') }),
};

const NO_GPUS: NodeGpus = { count: 0, model: '' };

/** What CMK made for a cluster is named after the CMK cluster, which kubeplane names after its cluster id. */
function owns(item: InventoryItem, clusterId: string): boolean {
  const owner = (item as CrusoeInventoryItem).owner;
  return owner === clusterId || owner.startsWith(`${clusterId}-`);
}

export const CRUSOE_SANDBOX_CLOUD: SandboxCloud<
  typeof CRUSOE_CLOUD,
  CrusoeEmulator,
  CrusoeEmulatorState,
  CrusoeCloudOptions,
  { readonly crusoe: CrusoeEmulator }
> &
  ServedAs<typeof CRUSOE_CLOUD> = {
  name: CRUSOE_CLOUD,
  title: 'Crusoe Cloud',
  providerType: 'crusoe',
  build: ({ context, options, saved }) => {
    const emulator = new CrusoeEmulator(context, {
      keys: { [SANDBOX_CREDENTIALS.crusoeAccessKeyId]: SANDBOX_CREDENTIALS.crusoeSecretKey },
      projectId: SANDBOX_CREDENTIALS.crusoeProjectId,
      ...options.crusoe,
      // A saved world is of its own project.
      ...(saved ? { projectId: saved.projectId } : {}),
    });
    if (saved) emulator.restore(saved);
    return emulator;
  },
  state: (emulator) => emulator.state(),
  fields: (emulator) => ({
    /** One Crusoe project: VMs, VPC networking, InfiniBand, CMK clusters and node pools. */
    crusoe: emulator,
  }),
  handlers: (emulator) => emulator.handlers(),
  document: CRUSOE_DOCUMENT,
  inventory: (emulator) => emulator.inventory(),
  listVms: (emulator) => emulator.listVms(),
  // A deleted VM leaves the inventory; STATE_DELETED is the API's name for one, should it stay.
  unbilledStates: ['STATE_DELETING', 'STATE_DELETED'],
  listManagedClusters: (emulator) => emulator.listManagedClusters(),
  provider: {
    credentials: (emulator) => ({
      accesskey: SANDBOX_CREDENTIALS.crusoeAccessKeyId,
      secretkey: SANDBOX_CREDENTIALS.crusoeSecretKey,
      project: emulator.projectId,
    }),
    addonCredentials: {
      accesskey: SANDBOX_CREDENTIALS.crusoeAccessKeyId,
      secretkey: SANDBOX_CREDENTIALS.crusoeSecretKey,
      project: SANDBOX_CREDENTIALS.crusoeProjectId,
    },
    contract: {
      'create-node': 'POST /compute/vms/instances',
      'list-nodes': 'GET /compute/vms/instances',
      'delete-node': 'DELETE /compute/vms/instances/{id}',
    },
    capacityOperation: '*',
    owns,
  },
  serve: {
    key: CRUSOE_CLOUD,
    port: 2,
    // Clients sign the path with its `/v1`, as against the real API.
    path: new URL(CRUSOE_API).pathname,
    title: () => 'Crusoe Cloud API',
    route: (_emulator, request) => apiTarget(SERVED, request.url),
    env: (_emulator, url, secret) => [
      ['CRUSOE_API_ENDPOINT', url],
      ['CRUSOE_ACCESS_KEY_ID', SANDBOX_CREDENTIALS.crusoeAccessKeyId],
      ['CRUSOE_SECRET_KEY', secret(SANDBOX_CREDENTIALS.crusoeSecretKey)],
      ['CRUSOE_PROJECT_ID', SANDBOX_CREDENTIALS.crusoeProjectId],
    ],
    // Real Crusoe clients sign with the machine's clock, not the world's.
    start: (emulator) => emulator.checkTimestampsAgainst({ now: () => Date.now() }),
  },
  publicAddressOwners: [CRUSOE_CLOUD],
  gpus: (machineType) => {
    const type = CRUSOE_TYPES.find((t) => t.product_name === machineType);
    return type && type.num_gpu > 0 ? { count: type.num_gpu, model: type.gpu_type } : NO_GPUS;
  },
  managedNodeLabelPrefix: 'crusoe.ai/',
};
