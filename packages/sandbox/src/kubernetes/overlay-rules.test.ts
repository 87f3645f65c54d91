// WireGuard's rules for a pair of overlay members, read from their wg0.conf: ports, keys and endpoints.
import { describe, expect, it } from 'vitest';
import { generateWireguardKeyPair, seededRandomSource } from '@kubeplane/sdk/internal';
import { overlayPairForms, overlayPairProblem, parseWireguardConfig, publicKeyOf, type OverlayMember } from './overlay-rules.js';

const random = seededRandomSource('overlay-rules');

function pair(options: { bListenPort?: string; aPeerKeyForB?: string; bPrivateKey?: string } = {}): [OverlayMember, OverlayMember] {
  const a = generateWireguardKeyPair(random);
  const b = generateWireguardKeyPair(random);
  const conf = (self: string, port: string | undefined, priv: string, peerIp: string, peerKey: string, peerAt: string) =>
    [
      '[Interface]',
      `Address = ${self}/24`,
      ...(port ? [`ListenPort = ${port}`] : []),
      `PrivateKey = ${priv}`,
      '',
      '[Peer]',
      `PublicKey = ${peerKey}`,
      `AllowedIPs = ${peerIp}/32`,
      `Endpoint = ${peerAt}:51820`,
      'PersistentKeepalive = 25',
    ].join('\n');
  const aText = conf('192.168.2.1', '51820', a.privateKey.reveal(), '192.168.2.2', options.aPeerKeyForB ?? b.publicKey, '198.18.0.2');
  const bText = conf('192.168.2.2', options.bListenPort ?? '51820', options.bPrivateKey ?? b.privateKey.reveal(), '192.168.2.1', a.publicKey, '198.18.0.1');
  const member = (name: string, text: string, ip: string): OverlayMember => ({
    name,
    config: parseWireguardConfig(text) ?? { overlayIp: '', peers: [] },
    publicIPv4: ip,
  });
  return [member('a', aText, '198.18.0.1'), member('b', bText, '198.18.0.2')];
}

const roles = () => 'control';

describe('the overlay rules', () => {
  it('derive the public key of a PrivateKey as wg pubkey does', () => {
    const k = generateWireguardKeyPair(random);
    expect(publicKeyOf(k.privateKey.reveal())).toBe(k.publicKey);
    expect(publicKeyOf('not-a-key')).toBeUndefined();
  });

  it('form a pair whose endpoints, ports and keys agree', () => {
    const [a, b] = pair();
    expect(overlayPairForms(a, b, roles)).toBe(true);
  });

  it('form none when a side listens on another port than its peers are told, or on a random one', () => {
    for (const port of ['51821', undefined]) {
      const [a, b] = pair(port ? { bListenPort: port } : { bListenPort: '' });
      // b still reaches a (a listens where b was told), so b must not be the one that knows: make it not send first.
      const quiet = { ...b, config: { ...b.config, peers: b.config.peers.map((p) => ({ ...p, endpoint: undefined })) } } as OverlayMember;
      expect(overlayPairForms(a, quiet, roles)).toBe(false);
      expect(overlayPairProblem(a, quiet)).toContain(`it listens at 198.18.0.2:${port ?? 'a random port'}`);
    }
  });

  it('form none when a side has no valid PrivateKey', () => {
    const [c, d] = pair({ bPrivateKey: 'garbage' });
    expect(overlayPairForms(c, d, roles)).toBe(false);
    expect(overlayPairProblem(c, d)).toContain("b's wg0 has no valid PrivateKey");
  });
});
