// Adapts a Sandbox to the conformance suite's ConformanceSandbox for one cloud: maps contract operations
// to that cloud's wire operations and reads the inventory for one cluster.
import type { ConformanceSandbox, FaultKind, FaultTarget } from '@kubeplane/sdk/conformance';
import type { CloudName } from './faults.js';
import { Sandbox, type SandboxOptions } from './sandbox.js';

const WIRE_OPERATIONS: Record<'hetzner' | 'aws', Record<Exclude<FaultTarget, 'any'>, { cloud: CloudName; operation: string }>> = {
  hetzner: {
    'create-node': { cloud: 'hetzner', operation: 'POST /servers' },
    'list-nodes': { cloud: 'hetzner', operation: 'GET /servers' },
    'delete-node': { cloud: 'hetzner', operation: 'DELETE /servers/{id}' },
  },
  aws: {
    'create-node': { cloud: 'ec2', operation: 'RunInstances' },
    'list-nodes': { cloud: 'ec2', operation: 'DescribeInstances' },
    'delete-node': { cloud: 'ec2', operation: 'TerminateInstances' },
  },
};

export interface ConformanceHarness extends ConformanceSandbox {
  readonly sandbox: Sandbox;
}

export function conformanceHarness(provider: 'hetzner' | 'aws', options: SandboxOptions = {}): ConformanceHarness {
  const sandbox = new Sandbox(options).listen();
  const clouds: CloudName[] = provider === 'hetzner' ? ['hetzner'] : ['ec2', 'route53'];
  return {
    sandbox,
    clock: sandbox.clock,
    injectFault(target: FaultTarget, kind: FaultKind, times = 1) {
      if (target === 'any') {
        for (const cloud of clouds) sandbox.injectFault({ cloud, operation: '*', kind, times });
        return;
      }
      const wire = WIRE_OPERATIONS[provider][target];
      sandbox.injectFault({ ...wire, kind, times });
    },
    liveResources(clusterId: string) {
      return sandbox
        .inventory()
        .filter((item) => clouds.includes(item.cloud) && item.clusterId === clusterId)
        .map((item) => ({ kind: item.kind, id: item.id, ...(item.name !== undefined ? { name: item.name } : {}) }));
    },
    inventoryDump: () => JSON.stringify(sandbox.inventory()),
    requestCount: () => sandbox.totalCalls((key) => clouds.some((c) => key.startsWith(`${c} `))),
    stop: () => sandbox.close(),
  };
}
