// Instances: RunInstances (ClientToken idempotency, the default subnet, metadata options, offerings per zone),
// DescribeInstances (eventual consistency, one reservation per launch, paging), TerminateInstances, StopInstances and
// StartInstances, with the lifecycle's timings in virtual time; and the instances as machines for the kubelets.
import { createHash } from 'node:crypto';
import { EmulatorError } from '../emulator/index.js';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import { LATENCY, sample } from '../latency.js';
import { el, items, queryList, t, tagsFor } from '../xml.js';
import { detachAddress } from './addresses.js';
import { EC2_INSTANCE_TYPES, ec2ImagesIn, imageDetails, imageFor } from './catalog.js';
import { type Ec2Routes, type Query, requestLimitExceeded, result } from './dialect.js';
import { selectDescribed, tagAttr } from './filters.js';
import { requireIds } from './ids.js';
import { spotMarketOf } from './market.js';
import { DEFAULT_METADATA_OPTIONS, type Instance, type MetadataOptions, OWNER } from './resources.js';
import { tagsXml } from './tags.js';
import { defaultSubnet } from './vpcs.js';
import { attachedVolumes, blockDeviceMappingXml, createVolumes, requestedVolumes, ROOT_DEVICE } from './volumes.js';
import type { Ec2World } from './world.js';

const USER_DATA_LIMIT = 16 * 1024;

function metadataOptionsOf(p: Query): MetadataOptions {
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const value = p.get(`MetadataOptions.${name}`);
    if (value === null) return fallback;
    if (!(allowed as readonly string[]).includes(value))
      throw new EmulatorError(
        400,
        'InvalidParameterValue',
        `Value (${value}) for parameter MetadataOptions.${name} is invalid. Valid values: ${allowed.join(', ')}.`,
      );
    return value as T;
  };
  const hop = p.get('MetadataOptions.HttpPutResponseHopLimit');
  const hops = hop === null ? DEFAULT_METADATA_OPTIONS.httpPutResponseHopLimit : Number(hop);
  if (!Number.isInteger(hops) || hops < 1 || hops > 64)
    throw new EmulatorError(
      400,
      'InvalidParameterValue',
      `Value (${hop ?? ''}) for parameter MetadataOptions.HttpPutResponseHopLimit is invalid. It must be an integer from 1 to 64.`,
    );
  return {
    httpTokens: oneOf('HttpTokens', ['optional', 'required'] as const, DEFAULT_METADATA_OPTIONS.httpTokens),
    httpPutResponseHopLimit: hops,
    httpEndpoint: oneOf('HttpEndpoint', ['enabled', 'disabled'] as const, DEFAULT_METADATA_OPTIONS.httpEndpoint),
    httpProtocolIpv6: oneOf('HttpProtocolIpv6', ['enabled', 'disabled'] as const, DEFAULT_METADATA_OPTIONS.httpProtocolIpv6),
    instanceMetadataTags: oneOf('InstanceMetadataTags', ['enabled', 'disabled'] as const, DEFAULT_METADATA_OPTIONS.instanceMetadataTags),
  };
}

function instanceXml(w: Ec2World, i: Instance): string {
  const state = w.state(i);
  const publicIp = instancePublicIp(w, i);
  const mo = i.metadataOptions ?? DEFAULT_METADATA_OPTIONS;
  const reasons = stateReasons(w, i);
  return (
    t('instanceId', i.id) +
    t('imageId', i.imageId) +
    el('instanceState', t('code', state.code), t('name', state.name)) +
    t('privateDnsName', privateDnsName(w, i)) +
    t('dnsName', publicDnsName(w, i, publicIp)) +
    t('reason', reasons.reason) +
    t('keyName', i.keyName) +
    t('amiLaunchIndex', 0) +
    t('instanceType', i.type) +
    t('launchTime', new Date(i.launchedAt).toISOString()) +
    el('placement', t('availabilityZone', i.zone), t('groupName', ''), t('tenancy', 'default')) +
    el('monitoring', t('state', 'disabled')) +
    t('subnetId', i.subnetId) +
    t('vpcId', i.vpcId) +
    t('privateIpAddress', i.privateIp) +
    t('ipAddress', publicIp) +
    t('clientToken', i.clientToken) +
    items('groupSet', i.groups, (g) => t('groupId', g) + t('groupName', w.securityGroups.get(g)?.name ?? '')) +
    t('architecture', ec2ImagesIn(w.region).find((x) => x.id === i.imageId)?.arch) +
    t('rootDeviceType', 'ebs') +
    t('rootDeviceName', ROOT_DEVICE) +
    blockDeviceMappingXml(w, i) +
    t('virtualizationType', 'hvm') +
    t('hypervisor', 'xen') +
    t('sourceDestCheck', true) +
    // Every image the sandbox serves is Linux (Canonical's Ubuntu), billed as RunInstances (billing-info-fields.html).
    t('platformDetails', 'Linux/UNIX') +
    t('usageOperation', 'RunInstances') +
    (reasons.code ? el('stateReason', t('code', reasons.code), t('message', reasons.message)) : '') +
    el('hibernationOptions', t('configured', false)) +
    // Only a spot instance names its lifecycle and its spot request; an on-demand one has neither element.
    t('instanceLifecycle', i.spot ? 'spot' : undefined) +
    t('spotInstanceRequestId', i.spot?.requestId) +
    tagsXml(i.tags) +
    // EC2 reports the options `pending` until the instance can serve them, then `applied`.
    el(
      'metadataOptions',
      t('state', state.name === 'pending' ? 'pending' : 'applied'),
      t('httpTokens', mo.httpTokens),
      t('httpPutResponseHopLimit', mo.httpPutResponseHopLimit),
      t('httpEndpoint', mo.httpEndpoint),
      t('httpProtocolIpv6', mo.httpProtocolIpv6),
      t('instanceMetadataTags', mo.instanceMetadataTags),
    )
  );
}

/** The public DNS name EC2 gives an instance with a public address in a VPC with DNS hostnames (the default VPC's). */
function publicDnsName(w: Ec2World, i: Instance, publicIp: string | undefined): string {
  if (!publicIp || w.vpcs.get(i.vpcId ?? '')?.isDefault !== true) return '';
  // "ec2-<public-ipv4-address>.compute-1.amazonaws.com for us-east-1, ec2-<public-ipv4-address>.<region>.compute.amazonaws.com
  // for other Regions" (https://docs.aws.amazon.com/vpc/latest/userguide/AmazonDNS-concepts.html#vpc-dns-hostnames).
  const host = `ec2-${publicIp.replace(/\./g, '-')}`;
  return w.region === 'us-east-1' ? `${host}.compute-1.amazonaws.com` : `${host}.${w.region}.compute.amazonaws.com`;
}

/** Why the instance is in its state, as EC2 says it (StateTransitionReason, StateReason) after a user's stop or terminate. */
function stateReasons(w: Ec2World, i: Instance): { reason: string; code?: string; message?: string } {
  const name = w.state(i).name;
  const at = i.terminateRequestedAt ?? i.stopRequestedAt;
  if (name === 'pending') return { reason: '', code: 'pending', message: 'pending' };
  if (at === undefined || name === 'running') return { reason: '' };
  const when = new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' GMT');
  return { reason: `User initiated (${when})`, code: 'Client.UserInitiatedShutdown', message: 'Client.UserInitiatedShutdown: User initiated shutdown' };
}

function instancePublicIp(w: Ec2World, i: Instance): string | undefined {
  const state = w.state(i);
  return w.addressOf(i.id)?.publicIp ?? (state.name === 'running' || state.name === 'pending' ? i.publicIp : undefined);
}

function privateDnsName(w: Ec2World, i: Instance): string {
  return `ip-${i.privateIp.replace(/\./g, '-')}.${w.region}.compute.internal`;
}

/**
 * An instance's values for each filter of DescribeInstances the sandbox evaluates (filters.ts), read from what
 * DescribeInstances reports of it; a documented filter about what no sandbox instance has (a Dedicated Host, a
 * kernel, a placement group, a Windows platform, an IAM instance profile) falls through to none.
 */
function instanceAttr(w: Ec2World, i: Instance, name: string): string[] {
  const opt = (v: string | undefined): string[] => (v === undefined || v === '' ? [] : [v]);
  const mo = i.metadataOptions ?? DEFAULT_METADATA_OPTIONS;
  const volumes = attachedVolumes(w, i.id);
  const reasons = stateReasons(w, i);
  switch (name) {
    case 'instance-id':
      return [i.id];
    case 'instance-state-name':
      return [w.state(i).name];
    case 'instance-state-code':
      return [String(w.state(i).code)];
    case 'instance-type':
      return [i.type];
    case 'image-id':
      return [i.imageId];
    case 'client-token':
      return opt(i.clientToken);
    case 'subnet-id':
      return opt(i.subnetId);
    case 'vpc-id':
      return opt(i.vpcId);
    case 'availability-zone':
      return [i.zone];
    case 'private-ip-address':
      return [i.privateIp];
    case 'private-dns-name':
      return [privateDnsName(w, i)];
    case 'ip-address':
      return opt(instancePublicIp(w, i));
    case 'dns-name':
      return opt(publicDnsName(w, i, instancePublicIp(w, i)));
    case 'key-name':
      return opt(i.keyName);
    case 'group-id':
    case 'instance.group-id':
      return i.groups;
    case 'group-name':
    case 'instance.group-name':
      return i.groups.map((g) => w.securityGroups.get(g)?.name ?? '');
    case 'instance-lifecycle':
      return i.spot ? ['spot'] : [];
    case 'spot-instance-request-id':
      return opt(i.spot?.requestId);
    case 'architecture':
      return opt(ec2ImagesIn(w.region).find((x) => x.id === i.imageId)?.arch ?? EC2_INSTANCE_TYPES.find((x) => x.name === i.type)?.architecture);
    case 'block-device-mapping.attach-time':
      return volumes.map((v) => new Date(v.createdAt).toISOString());
    case 'block-device-mapping.delete-on-termination':
      return volumes.map((v) => String(v.deleteOnTermination));
    case 'block-device-mapping.device-name':
      return volumes.map((v) => v.device);
    case 'block-device-mapping.status':
      return volumes.map(() => 'attached');
    case 'block-device-mapping.volume-id':
      return volumes.map((v) => v.id);
    case 'hibernation-options.configured':
      return ['false'];
    case 'hypervisor':
      return ['xen'];
    case 'launch-index':
      return ['0'];
    case 'launch-time':
      return [new Date(i.launchedAt).toISOString()];
    case 'metadata-options.http-tokens':
      return [mo.httpTokens];
    case 'metadata-options.http-put-response-hop-limit':
      return [String(mo.httpPutResponseHopLimit)];
    case 'metadata-options.http-endpoint':
      return [mo.httpEndpoint];
    case 'monitoring-state':
      return ['disabled'];
    case 'owner-id':
      return [OWNER];
    case 'reason':
      return opt(reasons.reason);
    case 'reservation-id':
      return [i.reservationId];
    case 'root-device-name':
      return [ROOT_DEVICE];
    case 'root-device-type':
      return ['ebs'];
    case 'source-dest-check':
      return ['true'];
    case 'state-reason-code':
      return opt(reasons.code);
    case 'state-reason-message':
      return opt(reasons.message);
    case 'tenancy':
      return ['default'];
    case 'virtualization-type':
      return ['hvm'];
    default:
      return tagAttr(i.tags, name);
  }
}

/** A reservation as RunInstances and DescribeInstances answer it. */
function reservationXml(w: Ec2World, reservationId: string, instances: readonly Instance[]): string {
  return t('reservationId', reservationId) + t('ownerId', OWNER) + el('groupSet') + items('instancesSet', instances, (i) => instanceXml(w, i));
}

/** What RunInstances needs besides the world: the budget of instance launches (EC2's resource rate limit). */
export interface LaunchBudget {
  /** Takes `count` launches, or says there are not enough now. */
  take(count: number): boolean;
}

function runInstances(w: Ec2World, p: Query, launches: LaunchBudget): string {
  const min = Number(p.get('MinCount') ?? '1');
  const max = Number(p.get('MaxCount') ?? '1');
  if (!(min >= 1 && max >= min)) throw new EmulatorError(400, 'InvalidParameterValue', 'MinCount and MaxCount must be >= 1 and MinCount <= MaxCount');
  const token = p.get('ClientToken') ?? undefined;
  const hashed = [...p.entries()]
    .filter(([k]) => k !== 'ClientToken')
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const hash = createHash('sha256').update(hashed).digest('hex');
  const seen = token ? w.clientTokens.get(token) : undefined;
  if (seen) {
    if (seen.hash !== hash)
      throw new EmulatorError(
        400,
        'IdempotentParameterMismatch',
        'The client token you have provided is associated with a resource that is already deleted or was created with different parameters.',
      );
    const instances = seen.instanceIds.map((id) => w.instances.get(id)).filter((i): i is Instance => i !== undefined);
    return reservationXml(w, instances[0]?.reservationId ?? '', instances);
  }
  const type = EC2_INSTANCE_TYPES.find((x) => x.name === p.get('InstanceType'));
  if (!type) throw new EmulatorError(400, 'InvalidParameterValue', `Invalid value '${p.get('InstanceType') ?? ''}' for InstanceType.`);
  // ImageId is required unless a launch template gives it (API_RunInstances.html); the sandbox has no launch templates.
  if (!p.get('ImageId')) throw new EmulatorError(400, 'MissingParameter', 'The request must contain the parameter ImageId');
  const image = imageFor(p.get('ImageId') ?? '', type.architecture, w.region);
  if (image.arch !== type.architecture)
    throw new EmulatorError(
      400,
      'InvalidParameterValue',
      `The architecture '${type.architecture}' of the specified instance type does not match the architecture '${image.arch}' of the specified AMI.`,
    );
  const userData = p.get('UserData');
  const userDataBytes = userData ? Buffer.from(userData, 'base64').length : 0;
  if (userDataBytes > USER_DATA_LIMIT) throw new EmulatorError(400, 'InvalidParameterValue', 'User data is limited to 16384 bytes');
  const named = p.get('SubnetId') ? w.mustId('subnet', w.subnets, p.get('SubnetId')) : undefined;
  const zone = p.get('Placement.AvailabilityZone') ?? named?.zone ?? w.zones[0] ?? `${w.region}a`;
  if (named && named.zone !== zone)
    throw new EmulatorError(
      400,
      'InvalidParameterValue',
      `Value (${zone}) for parameter availabilityZone is invalid. Subnet '${named.id}' is in availability zone '${named.zone}'.`,
    );
  const subnet = named ?? defaultSubnet(w, zone);
  const given = queryList(p, 'SecurityGroupId');
  for (const g of given) {
    const sg = w.mustId('security-group', w.securityGroups, g);
    if (sg.vpcId !== subnet.vpcId)
      throw new EmulatorError(400, 'InvalidParameter', `Security group ${g} and subnet ${subnet.id} belong to different networks.`);
  }
  // "If you don't specify a security group ID, we use the default security group for the VPC" (API_RunInstances.html).
  const vpcDefaultGroup = w.securityGroups.find((g) => g.vpcId === subnet.vpcId && g.name === 'default');
  const groups = given.length > 0 ? given : vpcDefaultGroup ? [vpcDefaultGroup.id] : [];
  const metadataOptions = metadataOptionsOf(p);
  const spot = spotMarketOf(p, () => w.spotRequestId());
  const volumes = requestedVolumes(p);
  const keyName = p.get('KeyName') ?? undefined;
  if (keyName && !w.keyPairs.find((k) => k.name === keyName))
    throw new EmulatorError(400, 'InvalidKeyPair.NotFound', `The key pair '${keyName}' does not exist`);
  const offered = w.offeredZones(type.name);
  if (!offered.includes(zone)) {
    // EC2's answer for a type its zone does not offer, code and words as a user met it in sa-east-1b
    // (https://github.com/trailofbits/algo/issues/314).
    throw new EmulatorError(
      400,
      'Unsupported',
      `Your requested instance type (${type.name}) is not supported in your requested Availability Zone ` +
        `(${zone}).${offered.length ? ` Please retry your request by not specifying an Availability Zone or choosing ${offered.join(', ')}.` : ''}`,
    );
  }
  if (!launches.take(max)) throw requestLimitExceeded();
  const reservationId = w.id('r');
  const details = imageDetails(w.region, image);
  const root = { snapshotId: details.rootSnapshotId, size: details.rootSizeGiB, type: details.rootVolumeType };
  const tags = tagsFor(p, 'instance');
  const lagMax = w.options.describeLagMaxMs;
  const created: Instance[] = [];
  for (let n = 0; n < max; n++) {
    const now = w.now();
    const host = (subnet.nextHost += 1);
    const base = subnet.cidr.split('/')[0]!.split('.');
    const inst: Instance = {
      id: w.id('i'),
      reservationId,
      type: type.name,
      imageId: image.id,
      zone,
      groups,
      tags: { ...tags },
      launchedAt: now,
      visibleAt: now + Math.min(lagMax, sample({ ...LATENCY.ec2DescribeLag, maxMs: Math.max(LATENCY.ec2DescribeLag.typicalMs, lagMax) }, w.ctx.random)),
      runningAt: now + LATENCY.ec2RunInstancesCall + sample(LATENCY.ec2PendingToRunning, w.ctx.random),
      privateIp: `${base[0]}.${base[1]}.${Number(base[2]) + Math.floor(host / 250)}.${(host % 250) + 4}`,
      // Subnets map a public IP on launch, as the default VPC does.
      publicIp: w.publicAddress(),
      subnetId: subnet.id,
      vpcId: subnet.vpcId,
      ...(keyName ? { keyName } : {}),
      ...(token ? { clientToken: token } : {}),
      userDataBytes,
      userData: userData ?? '',
      metadataOptions: { ...metadataOptions },
      // One spot request per instance, as RunInstances makes them.
      ...(spot ? { spot: { ...spot, requestId: n === 0 ? spot.requestId : w.spotRequestId() } } : {}),
    };
    w.instances.set(inst.id, inst);
    createVolumes(w, inst, volumes, tagsFor(p, 'volume'), root);
    created.push(inst);
  }
  if (token) w.clientTokens.set(token, { hash, instanceIds: created.map((i) => i.id) });
  return reservationXml(w, reservationId, created);
}

function describeInstances(w: Ec2World, p: Query): string {
  const ids = queryList(p, 'InstanceId');
  requireIds('instance', ids, (id) => w.visibleInstance(id) !== undefined);
  const visible = w.instances.filter((i) => w.visible(i));
  const matched = selectDescribed(
    visible,
    p,
    'DescribeInstances',
    'InstanceId',
    (i) => i.id,
    (i, n) => instanceAttr(w, i, n),
  );
  const maxResults = p.get('MaxResults') ? Number(p.get('MaxResults')) : undefined;
  if (maxResults !== undefined && (maxResults < 5 || maxResults > 1000))
    throw new EmulatorError(400, 'InvalidParameterValue', 'Value for parameter MaxResults is invalid: must be between 5 and 1000');
  if (maxResults !== undefined && ids.length > 0)
    throw new EmulatorError(400, 'InvalidParameterCombination', 'The parameter instancesSet cannot be used with the parameter maxResults');
  const offset = p.get('NextToken') ? Number(Buffer.from(p.get('NextToken') ?? '', 'base64').toString('utf8')) : 0;
  const page = maxResults === undefined ? matched : matched.slice(offset, offset + maxResults);
  const next = maxResults !== undefined && offset + maxResults < matched.length ? Buffer.from(String(offset + maxResults)).toString('base64') : undefined;
  // One reservation per RunInstances call, holding every instance it launched (API_Reservation.html).
  const reservations = new Map<string, Instance[]>();
  for (const i of page) reservations.set(i.reservationId, [...(reservations.get(i.reservationId) ?? []), i]);
  return items('reservationSet', [...reservations.entries()], ([id, list]) => reservationXml(w, id, list)) + t('nextToken', next);
}

/** An `instancesSet` of state changes, as TerminateInstances, StopInstances and StartInstances answer. */
function stateChanges(w: Ec2World, changes: ReadonlyArray<{ instance: Instance; previous: { code: number; name: string } }>): string {
  const out = changes.map(({ instance, previous }) => {
    const current = w.state(instance);
    return (
      t('instanceId', instance.id) +
      el('currentState', t('code', current.code), t('name', current.name)) +
      el('previousState', t('code', previous.code), t('name', previous.name))
    );
  });
  return el('instancesSet', ...out.map((x) => el('item', x)));
}

function terminateInstances(w: Ec2World, p: Query): string {
  const ids = queryList(p, 'InstanceId');
  requireIds('instance', ids, (id) => w.visibleInstance(id) !== undefined);
  return stateChanges(
    w,
    ids.map((id) => {
      const i = w.instances.get(id)!;
      const previous = w.state(i);
      if (i.terminatedAt === undefined) {
        i.terminateRequestedAt = w.now();
        i.terminatedAt = w.now() + LATENCY.ec2ShuttingDownToTerminated;
      }
      for (const a of w.addresses.values()) if (a.instanceId === i.id) detachAddress(a);
      return { instance: i, previous };
    }),
  );
}

/**
 * StopInstances and StartInstances (API_StopInstances.html, API_StartInstances.html; the instance lifecycle:
 * https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-lifecycle.html): running -> stopping -> stopped
 * -> pending -> running. Asking for the state an instance is in or heading to changes nothing; an instance that
 * cannot make the move (pending, terminated, stopping when started) is IncorrectInstanceState, and then none moves.
 */
function stopOrStart(w: Ec2World, p: Query, mode: 'stop' | 'start'): string {
  const ids = queryList(p, 'InstanceId');
  if (ids.length === 0) throw new EmulatorError(400, 'MissingParameter', 'The request must contain the parameter InstanceId');
  requireIds('instance', ids, (id) => w.visibleInstance(id) !== undefined);
  const instances = ids.map((id) => w.visibleInstance(id)!);
  const allowed = mode === 'stop' ? ['running', 'stopping', 'stopped'] : ['stopped', 'pending', 'running'];
  const stuck = instances.find((i) => !allowed.includes(w.state(i).name));
  if (stuck)
    throw new EmulatorError(
      400,
      'IncorrectInstanceState',
      `This instance '${stuck.id}' is not in a state from which it can be ${mode === 'stop' ? 'stopped' : 'started'}.`,
    );
  return stateChanges(
    w,
    instances.map((i) => {
      const previous = w.state(i);
      if (mode === 'stop' && previous.name === 'running') {
        i.stopRequestedAt = w.now();
        i.stoppedAt = w.now() + LATENCY.ec2ShuttingDownToTerminated;
      }
      if (mode === 'start' && previous.name === 'stopped') {
        delete i.stopRequestedAt;
        delete i.stoppedAt;
        i.runningAt = w.now() + sample(LATENCY.ec2PendingToRunning, w.ctx.random);
      }
      return { instance: i, previous };
    }),
  );
}

export function instanceRoutes(w: Ec2World, launches: LaunchBudget): Ec2Routes {
  return [
    ['RunInstances', ({ body }) => result(runInstances(w, body, launches))],
    ['DescribeInstances', ({ body }) => result(describeInstances(w, body))],
    ['TerminateInstances', ({ body }) => result(terminateInstances(w, body))],
    ['StopInstances', ({ body }) => result(stopOrStart(w, body, 'stop'))],
    ['StartInstances', ({ body }) => result(stopOrStart(w, body, 'start'))],
  ];
}

/** An instance as a machine for the simulated kubelets (vm-source.ts). */
export function instanceVm(w: Ec2World, i: Instance): SandboxVm {
  const state = w.state(i).name;
  const vmState: SandboxVm['state'] =
    state === 'running' ? 'running' : state === 'pending' ? 'pending' : state === 'terminated' ? 'terminated' : state === 'stopped' ? 'stopped' : 'stopping';
  const address = w.addressOf(i.id);
  const stoppedAtMs = i.terminateRequestedAt ?? i.stopRequestedAt;
  const type = EC2_INSTANCE_TYPES.find((x) => x.name === i.type);
  const publicIPv4 = address?.publicIp ?? i.publicIp;
  // On Nitro an EBS volume is an NVMe disk whose serial is its id without the dash (nvme-ebs-volumes.html).
  const dataDisks = attachedVolumes(w, i.id)
    .filter((v) => v.device !== ROOT_DEVICE)
    .map((v) => ({ byId: `nvme-Amazon_Elastic_Block_Store_${v.id.replace('-', '')}`, sizeGB: v.size }));
  return {
    cloud: 'ec2',
    name: i.tags['kubeplane.dev/name'] ?? i.tags['Name'] ?? i.id,
    id: i.id,
    state: vmState,
    ...(w.now() >= i.runningAt && (stoppedAtMs === undefined || stoppedAtMs > i.runningAt) ? { runningSinceMs: i.runningAt } : {}),
    ...(stoppedAtMs !== undefined ? { stoppedAtMs } : {}),
    userData: i.userData,
    ...(type ? { machine: { vcpus: type.vcpus, memoryMiB: type.memoryMiB } } : {}),
    ...(publicIPv4 ? { publicIPv4 } : {}),
    privateIPv4: i.privateIp,
    ...(dataDisks.length ? { dataDisks } : {}),
  };
}
