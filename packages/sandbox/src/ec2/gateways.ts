// Internet gateways and route tables: CreateInternetGateway, AttachInternetGateway, DetachInternetGateway,
// DeleteInternetGateway, DescribeInternetGateways, DescribeRouteTables and CreateRoute.
import { EmulatorError } from '../emulator/index.js';
import { el, items, t, tagsFor } from '../xml.js';
import { done, type Ec2Routes, result } from './dialect.js';
import { selectDescribed, tagAttr } from './filters.js';
import { OWNER, type Igw, type RouteTable } from './resources.js';
import { tagsXml } from './tags.js';
import type { Ec2World } from './world.js';

function igwXml(g: Igw): string {
  return (
    t('internetGatewayId', g.id) +
    t('ownerId', OWNER) +
    items('attachmentSet', g.vpcId ? [g.vpcId] : [], (v) => t('vpcId', v) + t('state', 'available')) +
    tagsXml(g.tags)
  );
}

function igwAttr(g: Igw, name: string): string[] {
  switch (name) {
    case 'internet-gateway-id':
      return [g.id];
    case 'attachment.vpc-id':
      return g.vpcId ? [g.vpcId] : [];
    case 'attachment.state':
      return g.vpcId ? ['available'] : [];
    case 'owner-id':
      return [OWNER];
    default:
      return tagAttr(g.tags, name);
  }
}

/** A route table's routes as DescribeRouteTables lists them: the VPC's local route first, then those added. */
function routesOf(w: Ec2World, r: RouteTable): Array<{ cidr: string; gatewayId: string }> {
  return [{ cidr: w.vpcs.get(r.vpcId)?.cidr ?? '', gatewayId: 'local' }, ...r.routes];
}

const mainAssociationId = (r: RouteTable): string => `rtbassoc-${r.id.slice(4)}`;

function routeTableXml(w: Ec2World, r: RouteTable): string {
  return (
    t('routeTableId', r.id) +
    t('vpcId', r.vpcId) +
    t('ownerId', OWNER) +
    items(
      'routeSet',
      routesOf(w, r),
      (x) =>
        t('destinationCidrBlock', x.cidr) +
        t('gatewayId', x.gatewayId) +
        t('state', 'active') +
        t('origin', x.gatewayId === 'local' ? 'CreateRouteTable' : 'CreateRoute'),
    ) +
    items(
      'associationSet',
      r.main ? [r] : [],
      (x) => t('main', true) + t('routeTableAssociationId', mainAssociationId(x)) + t('routeTableId', x.id) + el('associationState', t('state', 'associated')),
    ) +
    tagsXml(r.tags)
  );
}

/** A route table's values for the filters of DescribeRouteTables; the sandbox has no subnet associations, NAT or transit gateways, peering. */
function routeTableAttr(w: Ec2World, r: RouteTable, name: string): string[] {
  const routes = routesOf(w, r);
  switch (name) {
    case 'route-table-id':
      return [r.id];
    case 'vpc-id':
      return [r.vpcId];
    case 'association.main':
      return r.main ? ['true'] : [];
    case 'association.route-table-association-id':
      return r.main ? [mainAssociationId(r)] : [];
    case 'association.route-table-id':
      return r.main ? [r.id] : [];
    case 'route.destination-cidr-block':
      return routes.map((x) => x.cidr);
    case 'route.gateway-id':
      return routes.map((x) => x.gatewayId);
    case 'route.origin':
      return routes.map((x) => (x.gatewayId === 'local' ? 'CreateRouteTable' : 'CreateRoute'));
    case 'route.state':
      return ['active'];
    case 'owner-id':
      return [OWNER];
    default:
      return tagAttr(r.tags, name);
  }
}

export function gatewayRoutes(w: Ec2World): Ec2Routes {
  const gateway = (id: string | null) =>
    w.igws.require(id ?? '', () => new EmulatorError(400, 'InvalidInternetGatewayID.NotFound', `The internet gateway ID '${id ?? ''}' does not exist`));
  return [
    [
      'CreateInternetGateway',
      ({ body: p }) => {
        const g: Igw = { id: w.id('igw'), tags: tagsFor(p, 'internet-gateway') };
        w.igws.set(g.id, g);
        return result(el('internetGateway', igwXml(g)));
      },
    ],
    [
      'AttachInternetGateway',
      ({ body: p }) => {
        const g = gateway(p.get('InternetGatewayId'));
        const vpc = w.mustId('vpc', w.vpcs, p.get('VpcId'));
        if (g.vpcId && g.vpcId !== vpc.id)
          throw new EmulatorError(400, 'Resource.AlreadyAssociated', `resource ${g.id} is already attached to network ${g.vpcId}`);
        // A VPC takes one internet gateway ("You can attach only one internet gateway to a VPC":
        // https://docs.aws.amazon.com/vpc/latest/userguide/VPC_Internet_Gateway.html).
        const other = w.igws.find((x) => x.vpcId === vpc.id && x.id !== g.id);
        if (other) throw new EmulatorError(400, 'Resource.AlreadyAssociated', `resource ${vpc.id} is already associated with ${other.id}`);
        g.vpcId = vpc.id;
        return done();
      },
    ],
    [
      'DetachInternetGateway',
      ({ body: p }) => {
        const g = gateway(p.get('InternetGatewayId'));
        if (g.vpcId !== p.get('VpcId'))
          throw new EmulatorError(400, 'Gateway.NotAttached', `resource ${g.id} is not attached to network ${p.get('VpcId') ?? ''}`);
        delete g.vpcId;
        for (const rt of w.routeTables.values()) rt.routes = rt.routes.filter((r) => r.gatewayId !== g.id);
        return done();
      },
    ],
    [
      'DeleteInternetGateway',
      ({ body: p }) => {
        const g = gateway(p.get('InternetGatewayId'));
        if (g.vpcId) throw new EmulatorError(400, 'DependencyViolation', `The internetGateway '${g.id}' has dependencies and cannot be deleted.`);
        w.igws.delete(g.id);
        return done();
      },
    ],
    [
      'DescribeInternetGateways',
      ({ body: p }) =>
        result(
          items(
            'internetGatewaySet',
            selectDescribed(
              [...w.igws.values()],
              p,
              'DescribeInternetGateways',
              'InternetGatewayId',
              (g) => g.id,
              igwAttr,
              (id) => new EmulatorError(400, 'InvalidInternetGatewayID.NotFound', `The internetGateway ID '${id}' does not exist`),
            ),
            igwXml,
          ),
        ),
    ],
    [
      'DescribeRouteTables',
      ({ body: p }) =>
        result(
          items(
            'routeTableSet',
            selectDescribed(
              [...w.routeTables.values()],
              p,
              'DescribeRouteTables',
              'RouteTableId',
              (r) => r.id,
              (r, n) => routeTableAttr(w, r, n),
              (id) => new EmulatorError(400, 'InvalidRouteTableID.NotFound', `The routeTable ID '${id}' does not exist`),
            ),
            (r) => routeTableXml(w, r),
          ),
        ),
    ],
    [
      'CreateRoute',
      ({ body: p }) => {
        const id = p.get('RouteTableId') ?? '';
        const rt = w.routeTables.require(id, () => new EmulatorError(400, 'InvalidRouteTableID.NotFound', `The route table ID '${id}' does not exist`));
        const cidr = p.get('DestinationCidrBlock') ?? '';
        const gatewayId = p.get('GatewayId') ?? '';
        w.igws.require(gatewayId, () => new EmulatorError(400, 'InvalidGatewayID.NotFound', `The gateway ID '${gatewayId}' does not exist`));
        const existing = rt.routes.find((r) => r.cidr === cidr);
        if (existing && existing.gatewayId !== gatewayId) throw new EmulatorError(400, 'RouteAlreadyExists', `The route identified by ${cidr} already exists.`);
        if (!existing) rt.routes.push({ cidr, gatewayId });
        return done();
      },
    ],
  ];
}
