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
// - An endpoint that is not the peer's address and the port it listens on (`ListenPort`; without one WireGuard picks
//   a random port, which no peer is told) reaches nobody.
// - Each side must hold a valid `PrivateKey` (wg-quick brings up no interface without one), and a responder that
//   lists the initiator must route the initiator's address to the initiator's key (cryptokey routing drops packets
//   from an address that belongs to another peer).
// - Not modelled: the mesh agent replacing first-boot peers with the engine's list (kubeplane-mesh-sync), which on a
//   real machine heals a wrong peer key, endpoint or AllowedIPs in one machine's first-boot wg0.conf. So a peer entry
//   is taken as written, and the fast mode refuses first-boot peer entries a real machine would outgrow (docs/netns.md,
//   known gaps).
import { wireguardPublicKey } from '@kubeplane/sdk/internal';

export interface WireguardPeerConfig {
  /** The peer's overlay address (its AllowedIPs /32). */
  overlayIp: string;
  /** Its PublicKey (base64). */
  publicKey?: string;
  endpoint?: string;
  keepalive: boolean;
}

export interface WireguardConfig {
  /** This machine's overlay address (Address = ip/prefix). */
  overlayIp: string;
  /** The UDP port it listens on (ListenPort); absent: a random one. */
  listenPort?: number;
  /** The public key of its PrivateKey (base64); absent when it has none or it is not a Curve25519 key. */
  publicKey?: string;
  peers: WireguardPeerConfig[];
}

/** Parses a wg-quick configuration (the subset kubeplane renders: Address, and per peer AllowedIPs, Endpoint, PersistentKeepalive). */
export function parseWireguardConfig(text: string): WireguardConfig | undefined {
  let overlayIp: string | undefined;
  let listenPort: number | undefined;
  let publicKey: string | undefined;
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
    if (section === '[interface]' && key === 'listenport' && /^\d+$/.test(value)) listenPort = Number(value);
    if (section === '[interface]' && key === 'privatekey') publicKey = publicKeyOf(value);
    if (section === '[peer]' && peer) {
      if (key === 'publickey') peer.publicKey = value;
      if (key === 'allowedips') peer.overlayIp = value.split(',')[0]?.split('/')[0]?.trim() ?? '';
      if (key === 'endpoint') peer.endpoint = value;
      if (key === 'persistentkeepalive') peer.keepalive = value !== 'off' && Number(value) > 0;
    }
  }
  if (!overlayIp) return undefined;
  return {
    overlayIp,
    ...(listenPort !== undefined ? { listenPort } : {}),
    ...(publicKey !== undefined ? { publicKey } : {}),
    peers: peers.filter((p) => p.overlayIp),
  };
}

const publicKeys = new Map<string, string | undefined>();

/** The public key of a WireGuard private key, as `wg pubkey` prints it; undefined for one that is not 32 bytes of base64. */
export function publicKeyOf(privateKey: string): string | undefined {
  if (!publicKeys.has(privateKey)) {
    const raw = Buffer.from(privateKey, 'base64');
    publicKeys.set(privateKey, raw.length === 32 && raw.toString('base64') === privateKey ? wireguardPublicKey(privateKey) : undefined);
  }
  return publicKeys.get(privateKey);
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

/**
 * Whether `a` reaches `b`: both hold a PrivateKey, `a` lists `b` at the address and port `b` listens on and sends
 * first; and `b`, if it lists `a`, routes `a`'s address to `a` (a `b` that does not list `a` yet is taken to learn it
 * from the mesh agent).
 */
function knowsAndSends(a: OverlayMember, b: OverlayMember, roles: (m: OverlayMember) => string): boolean {
  const peer = a.config.peers.find((p) => p.overlayIp === b.config.overlayIp);
  if (!peer?.endpoint || !b.publicIPv4 || b.config.listenPort === undefined) return false;
  if (a.config.publicKey === undefined || b.config.publicKey === undefined) return false;
  // b knows a by its key; a's packets must come from the address b routes to that key (cryptokey routing).
  const back = b.config.peers.find((p) => p.publicKey === a.config.publicKey) ?? b.config.peers.find((p) => p.overlayIp === a.config.overlayIp);
  if (back && back.overlayIp !== a.config.overlayIp) return false;
  return peer.endpoint === `${b.publicIPv4}:${b.config.listenPort}` && sendsFirst(a, b, roles, peer);
}

/** Whether `a` and `b` can form a WireGuard session (see the rules above). */
export function overlayPairForms(a: OverlayMember, b: OverlayMember, roles: (m: OverlayMember) => string): boolean {
  return knowsAndSends(a, b, roles) || knowsAndSends(b, a, roles);
}

/** Why a pair cannot form, in the words of someone reading `wg show` on both machines. */
export function overlayPairProblem(a: OverlayMember, b: OverlayMember): string {
  const aPeer = a.config.peers.find((p) => p.overlayIp === b.config.overlayIp);
  const bPeer = b.config.peers.find((p) => p.overlayIp === a.config.overlayIp);
  const none = `no WireGuard handshake between ${a.name} and ${b.name}`;
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const) {
    const byKey = y.config.peers.find((p) => p.publicKey !== undefined && p.publicKey === x.config.publicKey);
    if (byKey && byKey.overlayIp !== x.config.overlayIp)
      return `${none}: ${y.name} routes ${byKey.overlayIp} to ${x.name}'s key, but ${x.name}'s address is ${x.config.overlayIp}`;
  }
  if (!aPeer && !bPeer) return `${a.name} and ${b.name} are not WireGuard peers of each other`;
  for (const [x, y, peer] of [
    [a, b, aPeer],
    [b, a, bPeer],
  ] as const) {
    if (!peer) continue;
    if (x.config.publicKey === undefined || y.config.publicKey === undefined)
      return `${none}: ${(x.config.publicKey === undefined ? x : y).name}'s wg0 has no valid PrivateKey`;
  }
  const at = (m: OverlayMember): string => `${m.publicIPv4 ?? 'none'}:${m.config.listenPort ?? 'a random port'}`;
  const known = [
    aPeer?.endpoint ? `${a.name} has ${aPeer.endpoint} for ${b.name} (it listens at ${at(b)})` : '',
    bPeer?.endpoint ? `${b.name} has ${bPeer.endpoint} for ${a.name} (it listens at ${at(a)})` : '',
  ].filter(Boolean);
  const right = (peer: WireguardPeerConfig | undefined, m: OverlayMember): boolean => peer?.endpoint === `${m.publicIPv4}:${m.config.listenPort}`;
  if (known.length === 0) return `no WireGuard handshake between ${a.name} and ${b.name}: neither knows the other's endpoint`;
  return right(aPeer, b) || right(bPeer, a)
    ? `no WireGuard handshake between ${a.name} and ${b.name}: ${known.join('; ')}, and the side that knows does not send first`
    : `no WireGuard handshake between ${a.name} and ${b.name}: ${known.join('; ')}: no endpoint is where its peer listens`;
}
