import { createPublicKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshKeyPairs, generateClusterKeys, generateRsaKeyPair, reusedRsaKeyPairs, type KeyPairSource, type PemKeyPair } from './pki.js';

// The fast tier's setup hands its clusters reused RSA keys (test/setup/reused-rsa-keys.ts); this file proves the real source.
beforeAll(() => {
  freshKeyPairs.rsa = generateRsaKeyPair;
});

const details = (pair: PemKeyPair) => createPublicKey(pair.publicKeyPem).asymmetricKeyDetails;

describe('key pair sources', () => {
  it('freshKeyPairs makes a new RSA-2048 or P-256 pair on every call', async () => {
    const [a, b] = [await freshKeyPairs.rsa(), await freshKeyPairs.rsa()];
    expect(a.publicKeyPem).not.toBe(b.publicKeyPem);
    expect(details(a)?.modulusLength).toBe(2048);
    expect(details(await freshKeyPairs.ec())?.namedCurve).toBe('prime256v1');
  });

  it('reusedRsaKeyPairs hands out its few RSA pairs in turn, and fresh ECDSA pairs', async () => {
    const source = reusedRsaKeyPairs(2);
    const rsa = [await source.rsa(), await source.rsa(), await source.rsa()].map((p) => p.publicKeyPem);
    expect(rsa[0]).not.toBe(rsa[1]);
    expect(rsa[2]).toBe(rsa[0]);
    expect((await source.ec()).publicKeyPem).not.toBe((await source.ec()).publicKeyPem);
  });

  it('generateClusterKeys takes every key of the cluster from its source', async () => {
    const calls = { rsa: 0, ec: 0 };
    const counted: KeyPairSource = {
      rsa: () => ((calls.rsa += 1), freshKeyPairs.rsa()),
      ec: () => ((calls.ec += 1), freshKeyPairs.ec()),
    };
    const keys = await generateClusterKeys(
      {
        nodes: [
          { name: 'cp-1', role: 'control' },
          { name: 'cp-2', role: 'control' },
          { name: 'lb-1', role: 'loadbalancer' },
          { name: 'w-1', role: 'compute' },
        ],
      },
      counted,
    );
    // Three CAs (cluster, front proxy, etcd); the service-account and admin keys, two API servers, one mesh reader.
    expect(calls).toEqual({ rsa: 3, ec: 5 });
    expect(Object.keys(keys.apiServer)).toEqual(['cp-1', 'cp-2']);
    expect(Object.keys(keys.meshReader)).toEqual(['lb-1']);
  });
});
