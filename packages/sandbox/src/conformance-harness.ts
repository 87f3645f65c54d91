// Adapts a Sandbox to the conformance suite's ConformanceSandbox for one provider type: maps contract operations to
// the wire operations of the type's sandbox cloud, and reads the inventory of the type's clouds for one cluster (each
// cloud's descriptor says both: `provider.contract`, `provider.owns`).
import type { ConformanceSandbox, FaultKind, FaultTarget } from '@kubeplane/sdk/conformance';
import { providerCloudOf, SANDBOX_PROVIDER_TYPES, sandboxCloudsOf } from './clouds/index.js';
import type { CloudName } from './faults.js';
import type { InventoryItem } from './inventory.js';
import { Sandbox, type SandboxOptions } from './sandbox.js';

export interface ConformanceHarness extends ConformanceSandbox {
  readonly sandbox: Sandbox;
}

/** A listening Sandbox (of `options`) as the conformance suite's sandbox for the clouds of provider type `provider`. */
export function conformanceHarness(provider: string, options: SandboxOptions = {}): ConformanceHarness {
  const primary = providerCloudOf(provider);
  if (!primary) throw new RangeError(`the sandbox has no ${provider} cloud; sandbox clouds: ${SANDBOX_PROVIDER_TYPES.join(', ')}`);
  // Every cloud of the type takes `any` faults and counts its resources and requests (AWS: EC2 and Route 53).
  const clouds = sandboxCloudsOf(provider).map((c) => c.name as CloudName);
  const owns = primary.provider.owns ?? ((item: InventoryItem, clusterId: string) => item.clusterId === clusterId);
  const sandbox = new Sandbox(options).listen();
  return {
    sandbox,
    clock: sandbox.clock,
    injectFault(target: FaultTarget, kind: FaultKind, times = 1) {
      const operation = target === 'any' ? undefined : primary.provider.contract?.[target];
      if (operation === undefined) {
        // `any`, or a cloud without machine operations (DNS): any call of the type's clouds.
        for (const cloud of clouds) sandbox.injectFault({ cloud, operation: '*', kind, times });
        return;
      }
      sandbox.injectFault({ cloud: primary.name as CloudName, operation, kind, times });
    },
    liveResources(clusterId: string) {
      return sandbox
        .inventory()
        .filter((item) => clouds.includes(item.cloud) && owns(item, clusterId))
        .map((item) => ({ kind: item.kind, id: item.id, ...(item.name !== undefined ? { name: item.name } : {}) }));
    },
    inventoryDump: () => JSON.stringify(sandbox.inventory()),
    requestCount: () => sandbox.totalCalls((key) => clouds.some((c) => key.startsWith(`${c} `))),
    stop: () => sandbox.close(),
  };
}
