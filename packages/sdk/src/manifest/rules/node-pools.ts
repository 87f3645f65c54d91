// nodePools: dynamic pools (names, provider, count or autoscaler, machine spec, what their provider type asks) and
// static pools (endpoints, SSH keys), each with its labels, annotations and taints; and pools nothing uses.
import type { IssueCollector, Path } from '../issues.js';
import { checkDns1123Label } from '../names.js';
import { PROVIDER_TYPE_INFO, providerTypesWith } from '../provider-types.js';
import type { DynamicPoolDef } from '../schema.js';
import { parseIPv4 } from '../../model/ipv4.js';
import type { PoolEntry, RulesContext } from './context.js';
import { NAME_LIMITS } from './limits.js';
import { checkName, listOf } from './names.js';
import { checkNodeMeta } from './node-meta.js';
import { checkSecretRef } from './secret-ref.js';

/** Pool names are unique across dynamic and static pools. */
function addPool({ out, pools }: RulesContext, name: string, entry: PoolEntry): void {
  if (pools.has(name)) out.error([...entry.path, 'name'], `pool name "${name}" is used twice; pool names must be unique across dynamic and static pools`);
  else pools.set(name, entry);
}

export function checkDynamicPools(ctx: RulesContext): void {
  const { m, out, at, claudie, providers, providerKnown } = ctx;
  m.nodePools.dynamic.forEach((pool, i) => {
    const path = at('dynamic', i);
    checkPoolName(out, [...path, 'name'], pool.name, claudie);
    addPool(ctx, pool.name, { kind: 'dynamic', def: pool, path });
    const type = providers.get(pool.providerSpec.name);
    if (!providerKnown(pool.providerSpec.name)) {
      out.error([...path, 'providerSpec', 'name'], `provider "${pool.providerSpec.name}" is not defined in providers[]${listOf(providers.keys())}`);
    } else if (type && !PROVIDER_TYPE_INFO[type].compute) {
      out.error([...path, 'providerSpec', 'name'], `provider "${pool.providerSpec.name}" is of type ${type}, which offers DNS only, not machines`);
    }
    if (pool.providerSpec.region.trim() === '') out.error([...path, 'providerSpec', 'region'], 'providerSpec.region must not be empty');
    if (pool.count === undefined && pool.autoscaler === undefined) {
      out.error(path, `pool "${pool.name}" needs either count (1–255) or autoscaler {min, max}`);
    } else if (pool.count !== undefined && pool.autoscaler !== undefined) {
      out.error([...path, 'autoscaler'], 'count and autoscaler are mutually exclusive; keep one');
    }
    if (pool.autoscaler && pool.autoscaler.min > pool.autoscaler.max) {
      out.error([...path, 'autoscaler', 'min'], `autoscaler.min (${pool.autoscaler.min}) is larger than autoscaler.max (${pool.autoscaler.max})`);
    }
    if (pool.storageDiskSize !== undefined && pool.storageDiskSize !== 0 && pool.storageDiskSize < 50) {
      out.error([...path, 'storageDiskSize'], `storageDiskSize must be 0 (no storage disk) or at least 50 GB, not ${pool.storageDiskSize}`);
    }
    const spec = pool.machineSpec;
    if (spec && (spec.cpuCount === undefined) !== (spec.memory === undefined)) {
      out.error([...path, 'machineSpec'], 'machineSpec.cpuCount and machineSpec.memory must be given together');
    }
    if (spec && type === 'gcp' && (spec.nvidiaGpuCount ?? spec.nvidiaGpu ?? 0) > 0 && !spec.nvidiaGpuType) {
      out.error([...path, 'machineSpec', 'nvidiaGpuType'], 'GCP pools with GPUs need machineSpec.nvidiaGpuType, e.g. nvidia-tesla-t4');
    }
    if (type === 'vastai') checkVastAiPool(out, path, pool);
    // Claudie: ProviderSpec.ExternalNetworkName `validate:"external_net"`, which requires it when providerSpec.name is
    // "openstack" (berops/claudie internal/api/manifest/validate_node_pool.go, validateExternalNet). kubeplane asks it of
    // every pool of an OpenStack provider too: the machines get their public addresses from that network.
    if (!pool.providerSpec.externalNetworkName && (type === 'openstack' || pool.providerSpec.name === 'openstack')) {
      out.error(
        [...path, 'providerSpec', 'externalNetworkName'],
        `OpenStack pools need providerSpec.externalNetworkName, the external network that gives the machines their public addresses (Claudie requires it too)`,
      );
    }
    // Fields one cloud reads, written on another's pool: said, not silently dropped.
    if (pool.providerSpec.externalNetworkName !== undefined && type && type !== 'openstack' && pool.providerSpec.name !== 'openstack') {
      out.warning(
        [...path, 'providerSpec', 'externalNetworkName'],
        `externalNetworkName is OpenStack's (the network of the public addresses); a ${type} pool does not use it`,
      );
    }
    if (spec?.vram !== undefined && type && type !== 'vastai') {
      out.warning([...path, 'machineSpec', 'vram'], `vram is VastAI's, to match offers; a ${type} pool's GPU memory is its server type's, so it is not used`);
    }
    if (pool.spot && type && !PROVIDER_TYPE_INFO[type].spot) {
      const why = PROVIDER_TYPE_INFO[type].noSpotReason;
      out.error(
        [...path, 'spot'],
        `provider type ${type} has no spot machines${why ? ` (${why})` : ''}; spot is offered by ${providerTypesWith('spot').join(', ')}`,
      );
    }
    if (pool.providerSpec.subnet !== undefined && type && type !== 'crusoe') {
      out.error(
        [...path, 'providerSpec', 'subnet'],
        `providerSpec.subnet names an existing Crusoe subnet; provider "${pool.providerSpec.name}" is of type ${type}, ` +
          'whose pools get a network kubeplane makes',
      );
    }
    checkNodeMeta(out, path, pool);
  });
  // One network per provider region: its pools all name the same existing subnet, or none does.
  const subnets = new Map<string, { subnet: string | undefined; pool: string }>();
  m.nodePools.dynamic.forEach((pool, i) => {
    const key = `${pool.providerSpec.name}/${pool.providerSpec.region}`;
    const first = subnets.get(key);
    if (!first) subnets.set(key, { subnet: pool.providerSpec.subnet, pool: pool.name });
    else if (first.subnet !== pool.providerSpec.subnet)
      out.error(
        [...at('dynamic', i), 'providerSpec', 'subnet'],
        `pool "${pool.name}" names subnet ${pool.providerSpec.subnet ?? '(none)'}, pool "${first.pool}" of the same provider and region ` +
          `${first.subnet ?? '(none)'}; the pools of a provider region share one network, so name the same subnet on each`,
      );
  });
}

export function checkStaticPools(ctx: RulesContext): void {
  const { m, out, at, claudie } = ctx;
  const endpoints = new Map<string, Path>();
  m.nodePools.static.forEach((pool, i) => {
    const path = at('static', i);
    checkPoolName(out, [...path, 'name'], pool.name, claudie);
    addPool(ctx, pool.name, { kind: 'static', def: pool, path });
    pool.nodes.forEach((node, j) => {
      const nodePath = [...path, 'nodes', j];
      if (parseIPv4(node.endpoint) === null) {
        out.error([...nodePath, 'endpoint'], `endpoint "${node.endpoint}" must be an IPv4 address such as 192.0.2.10`);
      } else if (endpoints.has(node.endpoint)) {
        out.error([...nodePath, 'endpoint'], `endpoint ${node.endpoint} is listed twice; a machine can belong to one pool once`);
      } else endpoints.set(node.endpoint, nodePath);
      checkSecretRef(out, [...nodePath, 'secretRef'], node.secretRef, [{ key: 'privatekey', required: true }]);
      if (node.username !== undefined && node.username.trim() === '') out.error([...nodePath, 'username'], 'username must not be empty (default: root)');
    });
    checkNodeMeta(out, path, pool);
  });
}

export function checkUnusedPools({ parsed, out, pools, usedPools }: RulesContext): void {
  for (const [name, pool] of pools) {
    if (!usedPools.has(name) && !parsed.poolsReferencedByBroken.has(name)) {
      out.error(pool.path, `pool "${name}" is not used by any cluster or load balancer; remove it or list it in a cluster's pools`);
    }
  }
}

/**
 * Claudie refuses pool names over 14 characters today (DynamicNodePool.Name `validate:"max=14"`), but the e2e sets of
 * its older releases use longer ones (`hetzner-control`). For Claudie documents a name up to 20 characters is a
 * warning: a node name (cluster id, pool, worker suffix `-w`, index) still fits a 63-character hostname.
 */
const CLAUDIE_LEGACY_POOL_NAME = 20;

/** VastAI's predefined regions (berops/claudie docs/input-manifest/providers/vastai.md, "Region mapping"). */
const VASTAI_REGIONS = ['europe', 'asia', 'africa', 'north-america', 'south-america', 'oceania'];

/**
 * VastAI rents by offer, found from what the pool asks for (berops/claudie docs/input-manifest/providers/vastai.md):
 * every machineSpec field must be given, the region is a predefined region or two-letter country codes (at most 63
 * characters: it becomes a node label value), and the Ubuntu VM image needs 130 GB of disk.
 */
function checkVastAiPool(out: IssueCollector, path: Path, pool: DynamicPoolDef): void {
  const spec = pool.machineSpec ?? {};
  const missing = (['cpuCount', 'memory', 'nvidiaGpuCount', 'nvidiaGpuType', 'vram'] as const).filter(
    (k) => spec[k] === undefined && !(k === 'nvidiaGpuCount' && spec.nvidiaGpu !== undefined),
  );
  if (missing.length > 0) {
    out.error(
      [...path, 'machineSpec'],
      `VastAI pools need every machineSpec field (cpuCount, memory, nvidiaGpuCount, nvidiaGpuType, ` +
        `vram): VastAI rents the offer that matches them; missing ${missing.join(', ')}`,
    );
  }
  const region = pool.providerSpec.region.trim();
  if (region !== '' && !VASTAI_REGIONS.includes(region)) {
    const codes = region.split(/\s+/);
    if (region.length > 63)
      out.error([...path, 'providerSpec', 'region'], `a VastAI region list is at most 63 characters (it becomes a node label value), not ${region.length}`);
    else if (!codes.every((c) => /^[A-Z]{2}$/.test(c))) {
      out.error(
        [...path, 'providerSpec', 'region'],
        `VastAI regions are one of ${VASTAI_REGIONS.join(', ')}, or two-letter country codes separated by spaces (e.g. "DE US GB"), not "${region}"`,
      );
    }
  }
  if (pool.storageDiskSize !== undefined && pool.storageDiskSize < 130) {
    out.warning([...path, 'storageDiskSize'], `VastAI's Ubuntu VM image needs at least 130 GB of storage; ${pool.storageDiskSize} GB will not boot it`);
  } else if (pool.storageDiskSize === undefined) {
    out.warning([...path, 'storageDiskSize'], "VastAI's Ubuntu VM image needs at least 130 GB of storage; set storageDiskSize to 130 or more");
  }
}

function checkPoolName(out: IssueCollector, path: Path, name: string, claudie: boolean): void {
  if (
    claudie &&
    name.length > NAME_LIMITS.pool &&
    name.length <= CLAUDIE_LEGACY_POOL_NAME &&
    checkDns1123Label(name, 'pool name', CLAUDIE_LEGACY_POOL_NAME) === null
  ) {
    out.warning(
      path,
      `pool name "${name}" is ${name.length} characters; Claudie allows at most ${NAME_LIMITS.pool} ` +
        `today (kubeplane accepts up to ${CLAUDIE_LEGACY_POOL_NAME} in Claudie documents)`,
    );
    return;
  }
  checkName(out, path, name, 'pool name', NAME_LIMITS.pool);
}
