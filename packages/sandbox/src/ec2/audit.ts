// What an audit listener (an IAM policy test) learns of each signed EC2 request: the action, its parameters less the
// user-data, who signed it, and the resources it names with their tags before the call changes anything.
import type { AwsCall, AwsCallResource } from '../aws-calls.js';
import type { WireCall } from '../emulator/index.js';
import { queryList, tagsFor } from '../xml.js';
import { paramsOf, type Query } from './dialect.js';
import { type Address, IMAGE_OWNER, type Tags } from './resources.js';
import type { Ec2World } from './world.js';

/** The audit record of one request (built only when someone listens). */
export function auditRecord(w: Ec2World, call: WireCall): AwsCall {
  const params = paramsOf(call);
  const keyring = w.options.keyring;
  return {
    service: 'ec2',
    action: call.operation,
    region: w.region,
    params: Object.fromEntries([...params.entries()].filter(([k]) => k !== 'UserData')),
    resources: resourcesOf(w, call.operation, params),
    ...(keyring ? { caller: keyring.callerOf(call.request) } : {}),
  };
}

/**
 * The resources a request names, by the resource types the Service Authorization Reference lists for its action
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html), with their tags now.
 * RunInstances: the instance, its volume and network interface (created), the subnet, security groups, key pair and
 * image. Describe calls name none (EC2 has no resource-level permissions for them).
 */
function resourcesOf(w: Ec2World, action: string, p: Query): AwsCallResource[] {
  const had = (type: string, id: string, found: { tags: Tags } | undefined): AwsCallResource =>
    found ? { type, id, tags: { ...found.tags }, created: false } : { type, id, tags: {}, created: false, missing: true };
  const creates = (type: string, id = '*'): AwsCallResource => ({ type, id, tags: tagsFor(p, type), created: true });
  const vpc = () => had('vpc', p.get('VpcId') ?? '', w.vpcs.get(p.get('VpcId') ?? ''));
  const group = (id: string) => had('security-group', id, w.securityGroups.get(id));
  const keyPair = (name: string | null, id: string | null) => {
    const k = w.keyPairs.find((x) => x.name === name || x.id === id);
    return had('key-pair', k?.name ?? name ?? id ?? '', k);
  };
  const address = (a: Address | undefined, id: string) => had('elastic-ip', a?.allocationId ?? id, a);
  const instance = (id: string) => had('instance', id, w.instances.get(id));
  const gateway = () => had('internet-gateway', p.get('InternetGatewayId') ?? '', w.igws.get(p.get('InternetGatewayId') ?? ''));
  switch (action) {
    case 'RunInstances': {
      const subnet = p.get('SubnetId');
      const image = p.get('ImageId') ?? '';
      return [
        creates('instance'),
        creates('volume'),
        creates('network-interface'),
        ...(subnet ? [had('subnet', subnet, w.subnets.get(subnet))] : []),
        ...queryList(p, 'SecurityGroupId').map(group),
        ...(p.get('KeyName') ? [keyPair(p.get('KeyName'), null)] : []),
        { type: 'image', id: image, tags: {}, created: false, owner: IMAGE_OWNER },
      ];
    }
    case 'TerminateInstances':
    case 'StopInstances':
    case 'StartInstances':
      return queryList(p, 'InstanceId').map(instance);
    // Tagging is authorized on the resources tagged (the Service Authorization Reference lists every taggable type).
    case 'CreateTags':
    case 'DeleteTags':
      return queryList(p, 'ResourceId').map((id) => {
        const found = w.taggables().find((r) => r.id === id);
        return had(found?.type ?? 'unknown', id, found);
      });
    case 'CreateVpc':
      return [creates('vpc')];
    case 'DeleteVpc':
      return [vpc()];
    case 'CreateSubnet':
      return [creates('subnet'), vpc()];
    case 'DeleteSubnet':
      return [had('subnet', p.get('SubnetId') ?? '', w.subnets.get(p.get('SubnetId') ?? ''))];
    case 'CreateInternetGateway':
      return [creates('internet-gateway')];
    case 'AttachInternetGateway':
    case 'DetachInternetGateway':
      return [gateway(), vpc()];
    case 'DeleteInternetGateway':
      return [gateway()];
    case 'CreateRoute':
      return [had('route-table', p.get('RouteTableId') ?? '', w.routeTables.get(p.get('RouteTableId') ?? ''))];
    case 'CreateSecurityGroup':
      return [creates('security-group'), vpc()];
    case 'AuthorizeSecurityGroupIngress':
    case 'RevokeSecurityGroupIngress':
    case 'DeleteSecurityGroup':
      return [group(p.get('GroupId') ?? '')];
    case 'AllocateAddress':
      return [creates('elastic-ip')];
    case 'AssociateAddress':
      return [address(w.addresses.get(p.get('AllocationId') ?? ''), p.get('AllocationId') ?? ''), instance(p.get('InstanceId') ?? '')];
    case 'DisassociateAddress':
      return [
        address(
          w.addresses.find((a) => a.associationId === p.get('AssociationId')),
          p.get('AssociationId') ?? '',
        ),
      ];
    case 'ReleaseAddress':
      return [address(w.addresses.get(p.get('AllocationId') ?? ''), p.get('AllocationId') ?? '')];
    // A key pair's ARN ends in its name, which the request gives.
    case 'ImportKeyPair':
      return [creates('key-pair', p.get('KeyName') ?? '')];
    case 'DeleteKeyPair':
      return [keyPair(p.get('KeyName'), p.get('KeyPairId'))];
    default:
      return [];
  }
}
