// The Hetzner project's core resources as the emulator keeps them (plain data, so they survive a snapshot). A leaf
// module: the families that read each other's resources (servers, networks, firewalls, primary IPs) import their
// shapes from here, not from each other.
import type { Json } from '../emulator/index.js';
import type { HetznerLocation, HetznerServerType, HetznerSystemImage } from '../catalogs/hetzner/hetzner-catalog.js';

export type Labels = Record<string, string>;

export interface Server {
  id: number;
  name: string;
  labels: Labels;
  created: number;
  runningAt: number;
  serverType: HetznerServerType;
  image: HetznerSystemImage;
  location: HetznerLocation;
  ipv4?: { id: number; ip: string };
  /** The server's IPv6 /64 network (`2001:db8:…::/64`), a primary IP of type ipv6. */
  ipv6?: { id: number; ip: string };
  privateNets: Array<{ network: number; ip: string; mac?: string }>;
  /** Whether the server is (to be) powered off, and when the last power action completes; on when unset. */
  power?: { on: boolean; at: number };
  firewalls: number[];
  placementGroup?: number;
  userDataBytes: number;
  /** Kept in memory for the simulated kubelets (it holds bootstrap tokens): never in the inventory. */
  userData: string;
}
export interface Network {
  id: number;
  name: string;
  labels: Labels;
  ipRange: string;
  subnets: Array<{ type: string; ip_range: string; network_zone: string; gateway: string }>;
  created: number;
  nextHost: number;
}
export interface Firewall {
  id: number;
  name: string;
  labels: Labels;
  rules: Json[];
  appliedTo: Json[];
  created: number;
}
export interface PrimaryIp {
  id: number;
  name: string;
  labels: Labels;
  /** An IPv4 address, or an IPv6 /64 network; absent in worlds saved before IPv6: ipv4. */
  type?: 'ipv4' | 'ipv6';
  ip: string;
  assigneeId: number | null;
  autoDelete: boolean;
  location: HetznerLocation;
  created: number;
}
export interface SshKey {
  id: number;
  name: string;
  labels: Labels;
  publicKey: string;
  fingerprint: string;
  created: number;
}
export interface PlacementGroup {
  id: number;
  name: string;
  labels: Labels;
  created: number;
}
export interface Action {
  id: number;
  command: string;
  started: number;
  finishAt: number;
  resources: Array<{ id: number; type: string }>;
}
