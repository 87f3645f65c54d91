import { spawnSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Redacted } from '../redacted.js';
import { renderBootstrapTokenSecret } from './bootstrap-token.js';
import { generateBootstrapToken } from './pki.js';
import { seededRandomSource, systemRandomSource } from './random.js';
import { packUserData, userDataRule } from './user-data.js';
import { bootstrapIssues } from './validate.js';
import { generateWireguardKeyPair, wireguardPublicKey } from './wireguard-keys.js';

describe('random sources', () => {
  it('repeat the same bytes for the same seed and differ across seeds', () => {
    expect(seededRandomSource('a').bytes(40)).toEqual(seededRandomSource('a').bytes(40));
    expect(seededRandomSource('a').bytes(40)).not.toEqual(seededRandomSource('b').bytes(40));
    expect(systemRandomSource().bytes(16)).not.toEqual(systemRandomSource().bytes(16));
  });
});

describe('bootstrap tokens', () => {
  it('have the kubeadm form [a-z0-9]{6}.[a-z0-9]{16}', () => {
    const random = seededRandomSource('tokens');
    for (let i = 0; i < 200; i++) expect(generateBootstrapToken(random).reveal()).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  });

  it('print as [redacted]', () => {
    const token = generateBootstrapToken(seededRandomSource('x'));
    expect(`${token}`).toBe('[redacted]');
    expect(JSON.stringify({ token })).toBe('{"token":"[redacted]"}');
  });

  it('become a bootstrap-token Secret for nodes that join later', () => {
    const secret = renderBootstrapTokenSecret(Redacted.of('abcdef.0123456789abcdef'), new Date('2026-01-02T03:04:05.678Z')).reveal();
    expect(secret).toContain('name: bootstrap-token-abcdef');
    expect(secret).toContain('token-secret: 0123456789abcdef');
    // Quoted, so a YAML 1.1 reader keeps it a string rather than a timestamp; the API server wants RFC 3339 text.
    expect(secret).toContain('expiration: "2026-01-02T03:04:05Z"');
    expect(() => renderBootstrapTokenSecret(Redacted.of('nope'), new Date())).toThrow(/must match/);
  });
});

describe('WireGuard keys', () => {
  it('derive the public key `wg pubkey` prints', () => {
    const found = spawnSync('sh', ['-c', 'command -v wg'], { encoding: 'utf8' });
    if (found.status !== 0) throw new Error("validator 'wg' is not installed; install 'wireguard-tools'");
    const random = seededRandomSource('wg');
    for (let i = 0; i < 5; i++) {
      const pair = generateWireguardKeyPair(random);
      const out = spawnSync('wg', ['pubkey'], { input: `${pair.privateKey.reveal()}\n`, encoding: 'utf8' });
      expect(out.status).toBe(0);
      expect(out.stdout.trim()).toBe(pair.publicKey);
      expect(wireguardPublicKey(pair.privateKey.reveal())).toBe(pair.publicKey);
    }
  });
});

describe('user-data packing', () => {
  it('keeps small user-data plain and gzips what does not fit only where the API carries bytes (EC2)', () => {
    const small = packUserData(Redacted.of('#cloud-config\n'), 'aws', 'n');
    expect(small.compressed).toBe(false);
    expect(small.encoding).toBe('plain');
    const text = `#cloud-config\n# ${'x'.repeat(20_000)}\n`;
    const big = packUserData(Redacted.of(text), 'aws', 'n');
    expect(big.compressed).toBe(true);
    expect(big.encoding).toBe('gzip');
    expect(gunzipSync(Buffer.from(big.bytes.reveal())).toString()).toBe(text);
    expect(packUserData(Redacted.of(text), 'hetzner', 'n').compressed).toBe(false);
  });

  it('never hands gzip to a text-only provider: compacted files inside the text, or an invalid error naming node and limit', () => {
    const text = `#cloud-config\n# ${'x'.repeat(40_000)}\n`;
    for (const provider of ['hetzner', 'crusoe', 'some-new-cloud']) {
      const limit = userDataRule(provider).limit;
      expect(userDataRule(provider).binary, provider).toBe(false);
      expect(() => packUserData(Redacted.of(text), provider, 'cp-1')).toThrow(
        new RegExp(`user-data of cp-1 is 40017 bytes, over ${provider}'s limit of ${limit} bytes`),
      );
      const compact = Redacted.of('#cloud-config\nwrite_files: []\n');
      const packed = packUserData(Redacted.of(text), provider, 'cp-1', () => compact);
      expect(packed.encoding, provider).toBe('gzip-files');
      expect(packed.compressed).toBe(false);
      expect(Buffer.from(packed.bytes.reveal()).toString('utf8')).toBe(compact.reveal());
      expect(packed.text.reveal()).toBe(compact.reveal());
      expect(packed.uncompressedSize).toBe(40_017);
    }
  });

  it('fails with an invalid error naming the node when even gzip does not fit', () => {
    const noise = Buffer.from(seededRandomSource('noise').bytes(20_000)).toString('base64');
    expect(() => packUserData(Redacted.of(noise), 'aws', 'big-node')).toThrow(/user-data of big-node .* over aws's limit of 16384/);
  });
});

describe('bootstrap input checks', () => {
  it('name every problem with its path', () => {
    const issues = bootstrapIssues({
      name: 'x',
      clusterId: 'x',
      kubernetesVersion: { major: 1, minor: 31, patch: 0 },
      apiEndpoint: { host: 'not-an-ip', port: 6443, kind: 'reserved-ip' },
      network: '192.168.2.0/24',
      podCidr: '10.244.0.0/16',
      serviceCidr: 'nope',
      secretsAtRest: false,
      nodes: [
        { name: 'w1', role: 'compute', pool: 'p', overlayIp: '10.0.0.1', labels: {}, taints: [], os: 'ubuntu-24.04', arch: 'amd64', provider: 'aws' },
        { name: 'w1', role: 'loadbalancer', pool: 'lb', overlayIp: '192.168.2.9', labels: {}, taints: [], os: 'ubuntu-24.04', arch: 'amd64', provider: 'aws' },
      ],
      loadBalancers: [],
    });
    expect(issues.map((i) => i.path)).toEqual(['serviceCidr', 'apiEndpoint.host', 'nodes', 'nodes[0].overlayIp', 'nodes[1].name', 'nodes[1].pool']);
  });
});
