// The resources one Region's EC2 emulator keeps, as plain data (they go into sandbox snapshots as they are).

export type Tags = Record<string, string>;

/** The account every resource the sandbox makes belongs to. */
export const OWNER = '123456789012';
/** Canonical's account: the owner of every image the emulator serves (Ubuntu's AMIs). */
export const IMAGE_OWNER = '099720109477';
export const CLUSTER_TAG = 'kubeplane.dev/cluster-id';

export interface Instance {
  id: string;
  reservationId: string;
  type: string;
  imageId: string;
  zone: string;
  subnetId?: string;
  vpcId?: string;
  groups: string[];
  keyName?: string;
  tags: Tags;
  launchedAt: number;
  visibleAt: number;
  runningAt: number;
  terminatedAt?: number;
  terminateRequestedAt?: number;
  /** StopInstances: when it was asked and when the instance is `stopped`; StartInstances clears both. */
  stopRequestedAt?: number;
  stoppedAt?: number;
  privateIp: string;
  publicIp?: string;
  clientToken?: string;
  userDataBytes: number;
  /** Absent in snapshots taken before the emulator kept it: EC2's defaults then. */
  metadataOptions?: MetadataOptions;
  /** The spot market RunInstances asked for (InstanceMarketOptions); absent on an on-demand instance. */
  spot?: SpotMarket;
  /** Base64, as received; kept in memory for the simulated kubelets (it holds bootstrap tokens), never in the inventory. */
  userData: string;
}

/** A spot instance's market, as RunInstances asked for it (InstanceMarketOptions; market.ts); absent on an on-demand instance. */
export interface SpotMarket {
  /** The spot instance request RunInstances made for the instance (`sir-` and 8 characters, as EC2's are). */
  requestId: string;
  type: 'one-time' | 'persistent';
  interruption: 'hibernate' | 'stop' | 'terminate';
  maxPrice?: string;
}

/**
 * The instance metadata service options RunInstances takes (`MetadataOptions.*`) and DescribeInstances reports
 * (`metadataOptions`, InstanceMetadataOptionsResponse). What a request leaves out takes EC2's default: tokens
 * optional (IMDSv1 on), hop limit 1, endpoint enabled; IPv6 endpoint and instance tags disabled.
 */
export interface MetadataOptions {
  httpTokens: 'optional' | 'required';
  httpPutResponseHopLimit: number;
  httpEndpoint: 'enabled' | 'disabled';
  httpProtocolIpv6: 'enabled' | 'disabled';
  instanceMetadataTags: 'enabled' | 'disabled';
}

export const DEFAULT_METADATA_OPTIONS: MetadataOptions = {
  httpTokens: 'optional',
  httpPutResponseHopLimit: 1,
  httpEndpoint: 'enabled',
  httpProtocolIpv6: 'disabled',
  instanceMetadataTags: 'disabled',
};

/** An instance's state as EC2 reports it (InstanceState: code and name). */
export interface InstanceState {
  code: number;
  name: string;
}

export interface Vpc {
  id: string;
  cidr: string;
  tags: Tags;
  mainRouteTable: string;
  isDefault?: boolean;
}

export interface Subnet {
  id: string;
  vpcId: string;
  cidr: string;
  zone: string;
  tags: Tags;
  nextHost: number;
  defaultForAz?: boolean;
}

export interface Igw {
  id: string;
  tags: Tags;
  vpcId?: string;
  isDefault?: boolean;
}

export interface RouteTable {
  id: string;
  vpcId: string;
  main: boolean;
  routes: Array<{ cidr: string; gatewayId: string }>;
  tags: Tags;
}

export interface Permission {
  protocol: string;
  from: number;
  to: number;
  cidrs: Array<{ cidr: string; description?: string }>;
  groups: string[];
}

export interface SecurityGroup {
  id: string;
  name: string;
  description: string;
  vpcId: string;
  tags: Tags;
  ingress: Permission[];
}

export interface Address {
  allocationId: string;
  publicIp: string;
  tags: Tags;
  instanceId?: string;
  associationId?: string;
}

export interface KeyPair {
  id: string;
  name: string;
  fingerprint: string;
  tags: Tags;
  /** The OpenSSH public key imported, and when (absent in snapshots from before the emulator kept them). */
  publicKey?: string;
  createdAt?: number;
}

/** A RunInstances ClientToken seen: the hash of the request's other parameters and the instances it launched. */
export interface ClientTokenUse {
  hash: string;
  instanceIds: string[];
}

/** One taggable resource: its id, its DescribeTags `resourceType`, and its tags (mutated in place). */
export interface Taggable {
  id: string;
  type: string;
  tags: Tags;
}

/** An EBS volume made by RunInstances (volumes.ts). */
export interface Volume {
  id: string;
  size: number;
  type: string;
  zone: string;
  createdAt: number;
  tags: Tags;
  /** The instance it was launched with, at `device`; volumes here are only ever made by RunInstances. */
  instanceId: string;
  device: string;
  deleteOnTermination: boolean;
  /** The snapshot it was made from: the AMI's, for a root volume (absent in snapshots from before the emulator kept it). */
  snapshotId?: string;
}
