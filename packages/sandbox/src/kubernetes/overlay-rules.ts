// When two sandbox machines can talk over the WireGuard overlay, by WireGuard's own rules, read from the wg0.conf
// each machine's user-data writes. The fast simulation uses this where a real node would need the overlay at first
// boot (a load balancer forwarding to the first control plane, etcd between control planes, the API server and
// Cilium reaching a worker); the netns mode runs the real wireguard-go instead and must agree with it.
//
// The rules, from WireGuard's protocol and wg(8) (https://www.wireguard.com/protocol/, "Built-in Roaming" on
// https://www.wireguard.com/, and wg(8) on `endpoint` and `persistent-keepalive`):
// - A peer is sent to only at its endpoint. A peer without an endpoint cannot be sent to until it has sent an
//   authenticated packet itself, whose source address then becomes its endpoint (roaming).
// - So a pair forms only if at least one side knows the other's current public address AND sends first: because
//   it has traffic for the peer, or because `PersistentKeepalive` makes it send a keepalive as soon as it is set.
// - An endpoint that is not the peer's address (a stale address, a private address across clouds) reaches nobody.
import { WIREGUARD_PORT } from '@kubeplane/sdk/internal';

export interface WireguardPeerConfig {
  /** The peer's overlay address (its AllowedIPs /32). */
  overlayIp: string;
  endpoint?: string;
  keepalive: boolean;
}

export interface WireguardConfig {
  /** This machine's overlay address (Address = ip/prefix). */
  overlayIp: string;
  peers: WireguardPeerConfig[];
}

/** Parses a wg-quick configuration (the subset kubeplane renders: Address, and per peer AllowedIPs, Endpoint, PersistentKeepalive). */
export function parseWireguardConfig(text: string): WireguardConfig | undefined {
  let overlayIp: string | undefined;
  const peers: WireguardPeerConfig[] = [];
  let peer: WireguardPeerConfig | undefined;
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    if (line.startsWith('[')) {
      section = line.toLowerCase();
      if (section === '[peer]') {
        peer = { overlayIp: '', keepalive: false };
        peers.push(peer);
      }
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq).trim().toLowerCase();
    const value = line.slice(eq + 1).trim();
    if (section === '[interface]' && key === 'address') overlayIp = value.split(',')[0]?.split('/')[0]?.trim();
    if (section === '[peer]' && peer) {
      if (key === 'allowedips') peer.overlayIp = value.split(',')[0]?.split('/')[0]?.trim() ?? '';
      if (key === 'endpoint') peer.endpoint = value;
      if (key === 'persistentkeepalive') peer.keepalive = value !== 'off' && Number(value) > 0;
    }
  }
  return overlayIp ? { overlayIp, peers: peers.filter((p) => p.overlayIp) } : undefined;
}

/** A machine as the overlay sees it: its configuration and the public address packets reach it at. */
export interface OverlayMember {
  name: string;
  config: WireguardConfig;
  publicIPv4?: string;
}

/**
 * Whether `from` starts the conversation with `to`: it has traffic for it at boot (every role talks to control
 * planes: etcd, the API server's kubelet calls, Cilium; load balancers forward to their targets) — except a control
 * plane towards a load balancer, which it never sends to over the overlay — or it keeps the session alive anyway.
 */
function sendsFirst(from: OverlayMember, to: OverlayMember, roles: (m: OverlayMember) => string, peer: WireguardPeerConfig): boolean {
  if (peer.keepalive) return true;
  return !(roles(from) === 'control' && roles(to) === 'loadbalancer');
}

function knowsAndSends(a: OverlayMember, b: OverlayMember, roles: (m: OverlayMember) => string): boolean {
  const peer = a.config.peers.find((p) => p.overlayIp === b.config.overlayIp);
  if (!peer?.endpoint || !b.publicIPv4) return false;
  return peer.endpoint === `${b.publicIPv4}:${WIREGUARD_PORT}` && sendsFirst(a, b, roles, peer);
}

/** Whether `a` and `b` can form a WireGuard session (see the rules above). */
export function overlayPairForms(a: OverlayMember, b: OverlayMember, roles: (m: OverlayMember) => string): boolean {
  return knowsAndSends(a, b, roles) || knowsAndSends(b, a, roles);
}

/** Why a pair cannot form, in the words of someone reading `wg show` on both machines. */
export function overlayPairProblem(a: OverlayMember, b: OverlayMember): string {
  const aPeer = a.config.peers.find((p) => p.overlayIp === b.config.overlayIp);
  const bPeer = b.config.peers.find((p) => p.overlayIp === a.config.overlayIp);
  if (!aPeer && !bPeer) return `${a.name} and ${b.name} are not WireGuard peers of each other`;
  const known = [
    aPeer?.endpoint ? `${a.name} has ${aPeer.endpoint} for ${b.name} (its address is ${b.publicIPv4 ?? 'none'})` : '',
    bPeer?.endpoint ? `${b.name} has ${bPeer.endpoint} for ${a.name} (its address is ${a.publicIPv4 ?? 'none'})` : '',
  ].filter(Boolean);
  return known.length === 0
    ? `no WireGuard handshake between ${a.name} and ${b.name}: neither knows the other's endpoint`
    : `no WireGuard handshake between ${a.name} and ${b.name}: ${known.join('; ')}, and the side that knows does not send first`;
}
