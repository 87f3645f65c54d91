// Elastic IPs: AllocateAddress, AssociateAddress, DisassociateAddress, ReleaseAddress and DescribeAddresses.
import { EmulatorError } from '../emulator/index.js';
import { items, t, tagsFor } from '../xml.js';
import { done, type Ec2Routes, result } from './dialect.js';
import { selectDescribed, tagAttr } from './filters.js';
import { requireIds } from './ids.js';
import type { Address } from './resources.js';
import { tagsXml } from './tags.js';
import type { Ec2World } from './world.js';

/** The address leaves the instance it was associated with (DisassociateAddress, or the instance terminating). */
export function detachAddress(a: Address): void {
  delete a.instanceId;
  delete a.associationId;
}

function addressXml(w: Ec2World, a: Address): string {
  return (
    t('publicIp', a.publicIp) +
    t('allocationId', a.allocationId) +
    t('domain', 'vpc') +
    t('instanceId', a.instanceId) +
    t('associationId', a.associationId) +
    t('privateIpAddress', a.instanceId ? w.instances.get(a.instanceId)?.privateIp : undefined) +
    t('publicIpv4Pool', 'amazon') +
    t('networkBorderGroup', w.region) +
    tagsXml(a.tags)
  );
}

/** An address's values for the filters of DescribeAddresses (the sandbox reports no network interface ids). */
function addressAttr(w: Ec2World, a: Address, name: string): string[] {
  switch (name) {
    case 'allocation-id':
      return [a.allocationId];
    case 'association-id':
      return a.associationId ? [a.associationId] : [];
    case 'instance-id':
      return a.instanceId ? [a.instanceId] : [];
    case 'public-ip':
      return [a.publicIp];
    case 'domain':
      return ['vpc'];
    case 'network-border-group':
      return [w.region];
    case 'private-ip-address': {
      const ip = a.instanceId ? w.instances.get(a.instanceId)?.privateIp : undefined;
      return ip ? [ip] : [];
    }
    default:
      return tagAttr(a.tags, name);
  }
}

const allocationNotFound = (id: string) => new EmulatorError(400, 'InvalidAllocationID.NotFound', `The allocation ID '${id}' does not exist`);

export function addressRoutes(w: Ec2World): Ec2Routes {
  const allocation = (id: string | null): Address => {
    const a = w.addresses.get(id ?? '');
    if (!a) throw allocationNotFound(id ?? '');
    return a;
  };
  return [
    [
      'AllocateAddress',
      ({ body: p }) => {
        const a: Address = { allocationId: w.id('eipalloc'), publicIp: w.publicAddress(), tags: tagsFor(p, 'elastic-ip') };
        w.addresses.set(a.allocationId, a);
        return result(t('publicIp', a.publicIp) + t('domain', 'vpc') + t('allocationId', a.allocationId));
      },
    ],
    [
      'AssociateAddress',
      ({ body: p }) => {
        const a = allocation(p.get('AllocationId'));
        requireIds('instance', [p.get('InstanceId') ?? ''], (id) => w.visibleInstance(id) !== undefined);
        const i = w.visibleInstance(p.get('InstanceId') ?? '')!;
        if (w.state(i).name !== 'running')
          throw new EmulatorError(400, 'IncorrectInstanceState', `The instance '${i.id}' is not in a valid state for this operation.`);
        if (a.instanceId && a.instanceId !== i.id && p.get('AllowReassociation') !== 'true')
          throw new EmulatorError(
            400,
            'Resource.AlreadyAssociated',
            `resource ${a.allocationId} is already associated with associate-id ${a.associationId ?? ''}`,
          );
        if (a.instanceId !== i.id) {
          a.instanceId = i.id;
          a.associationId = `eipassoc-${a.allocationId.slice(9)}`;
        }
        return result(t('return', true) + t('associationId', a.associationId));
      },
    ],
    [
      'DisassociateAddress',
      ({ body: p }) => {
        const a = w.addresses.find((x) => x.associationId === p.get('AssociationId'));
        if (!a) throw new EmulatorError(400, 'InvalidAssociationID.NotFound', `The association ID '${p.get('AssociationId') ?? ''}' does not exist`);
        detachAddress(a);
        return done();
      },
    ],
    [
      'ReleaseAddress',
      ({ body: p }) => {
        const a = allocation(p.get('AllocationId'));
        if (a.associationId) throw new EmulatorError(400, 'InvalidIPAddress.InUse', `Address ${a.publicIp} is in use.`);
        w.addresses.delete(a.allocationId);
        return done();
      },
    ],
    [
      'DescribeAddresses',
      ({ body: p }) =>
        result(
          items(
            'addressesSet',
            selectDescribed(
              [...w.addresses.values()],
              p,
              'DescribeAddresses',
              'AllocationId',
              (a) => a.allocationId,
              (a, n) => addressAttr(w, a, n),
              allocationNotFound,
            ),
            (a) => addressXml(w, a),
          ),
        ),
    ],
  ];
}
