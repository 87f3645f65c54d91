// What the delete flow's steps share: how long a deletion keeps trying, what is left when it gives up, and every spec
// the cluster had (DNS names and regions are swept from all of them).
import { isKubeplaneError, NO_PROVIDER_FOR_TYPE } from '../../errors.js';
import type { ClusterSpec } from '../../model/types.js';
import type { Provider } from '../../provider/types.js';
import type { Ledger } from '../records.js';
import type { StepContext } from './types.js';

/**
 * How long a deletion step (DNS removal, teardown) keeps trying before it ends in ERROR with what it could not delete,
 * for destroy to be asked again: a cloud that answers 5xx or throttles for four hours is not going to get better by
 * itself. Not one hour: in a storm of throttling a teardown spends most attempts backing off (up to five minutes
 * each), and one hour of that is a dozen attempts, too few for one to get through while the cloud is still working.
 */
export const DELETION_CEILING_SECONDS = 4 * 3600;

/** What the ledger still holds of a cluster being deleted, for the message of a deletion that gave up. */
export function leftInLedger(r: { ledger: Ledger }): string {
  const l = r.ledger;
  const parts = [
    ...Object.keys(l.nodes).map((n) => `machine ${n}`),
    ...Object.values(l.networks).map((n) => `network ${n.name}`),
    ...Object.values(l.firewalls).map((f) => `firewall ${f.name}`),
    ...Object.values(l.sshKeys).map((k) => `SSH key ${k.name}`),
    ...(l.reservedIp ? [`address ${l.reservedIp.ip}`] : []),
    ...(l.managed ? [`managed cluster ${l.managed.name}`] : []),
    ...Object.keys(l.dns).map((n) => `DNS record ${n}`),
  ];
  if (parts.length === 0) return '';
  return `; left, as last recorded: ${parts.slice(0, 12).join(', ')}${parts.length > 12 ? ` and ${parts.length - 12} more` : ''}`;
}

/** Every spec the cluster had: DNS names and regions are swept from all of them. */
export function specs(ctx: { record: { desired: ClusterSpec | null; current: ClusterSpec | null } }): ClusterSpec[] {
  return [ctx.record.desired, ctx.record.current].filter((s): s is ClusterSpec => s !== null);
}

/**
 * The provider that deletes what the cluster has through it, or null when the runtime has no provider of its type
 * (NO_PROVIDER_FOR_TYPE: a type kubeplane cannot create on, or a sandbox without that cloud). Nothing of the cluster
 * can be there, whatever the records say: a create refused for such a type leaves a cluster that deletes cleanly.
 */
export async function providerToSweep(ctx: StepContext, name: string, region?: string): Promise<Provider | null> {
  try {
    return await ctx.provider(name, region);
  } catch (e) {
    if (isKubeplaneError(e) && e.details.code === NO_PROVIDER_FOR_TYPE) return null;
    throw e;
  }
}
