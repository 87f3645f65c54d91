// The certificates kubeplane writes itself, read back by node:crypto's X509Certificate (OpenSSL's parser) and by the
// openssl CLI: the cases the golden cluster does not reach (IPv6 addresses, long names, non-ASCII subjects, dates past
// 2049, a serial whose top bit is set, lengths in long form). The golden files pin the common case byte for byte.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as der from './der.js';
import { basicConstraints, certificatePem, distinguishedName, issuerOf, KEY_USAGE, keyUsage, spkiOf, subjectKeyIdentifier } from './certificate.js';
import { generateEcKeyPair, generateRsaKeyPair, issueLeafCertificate, type PemKeyPair } from './pki.js';
import { seededRandomSource } from './random.js';

/** What OpenSSL prints of a certificate. */
const opensslText = (pem: string): string => execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem, encoding: 'utf8' });

async function ca(name: string, key: PemKeyPair, notAfter = new Date('2035-01-01T00:00:00Z')): Promise<string> {
  const spki = spkiOf(key.publicKeyPem);
  return certificatePem({
    serialNumber: Buffer.from('ff00000000000000000000000000000001', 'hex'),
    issuer: distinguishedName(`CN=${name}`),
    subject: distinguishedName(`CN=${name}`),
    notBefore: new Date('2026-01-01T00:00:00.750Z'),
    notAfter,
    spki,
    extensions: [basicConstraints(true), keyUsage([KEY_USAGE.keyCertSign, KEY_USAGE.digitalSignature]), subjectKeyIdentifier(spki)],
    signingKey: createPrivateKey(key.privateKeyPem.reveal()),
  });
}

describe('certificates on node:crypto', () => {
  it('a CA and a leaf that OpenSSL reads, verifies and matches by name, address and usage', async () => {
    const caKey = await generateRsaKeyPair();
    const caPem = await ca('Zürich CA', caKey, new Date('2051-06-01T12:00:00Z'));
    const longName = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example`;
    const { certificatePem: leafPem } = await issueLeafCertificate(
      {
        subject: 'CN=kube-apiserver, O=system:masters',
        usage: 'server',
        dnsNames: ['kubernetes', longName],
        ipAddresses: ['10.96.0.1', 'fd00:10:96::1', '::1', '::ffff:192.0.2.1'],
        key: await generateEcKeyPair(),
        ca: { certificatePem: caPem, key: caKey.privateKeyPem },
      },
      { random: seededRandomSource('certificate-test'), now: new Date('2026-03-01T10:20:30Z') },
    );
    const root = new X509Certificate(caPem);
    const leaf = new X509Certificate(leafPem);
    expect(root.ca).toBe(true);
    expect(root.subject).toBe('CN=Zürich CA');
    expect(root.serialNumber).toBe('FF00000000000000000000000000000001');
    expect(root.validTo).toBe('Jun  1 12:00:00 2051 GMT');
    expect(root.validFrom).toBe('Jan  1 00:00:00 2026 GMT');
    expect(root.verify(root.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.issuer).toBe(root.subject);
    expect(leaf.subject).toBe('CN=kube-apiserver\nO=system:masters');
    expect(leaf.checkHost(longName)).toBe(longName);
    expect(leaf.checkIP('fd00:10:96::1')).toBe('fd00:10:96::1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.checkIP('10.96.0.1')).toBe('10.96.0.1');
    expect(opensslText(leafPem)).toMatch(/IP Address:0:0:0:0:0:FFFF:C000:201/i);
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    const text = opensslText(leafPem);
    expect(text).toContain('Digital Signature, Key Encipherment');
    expect(text).toContain('CA:FALSE');
    expect(text).toMatch(/IP Address:FD00:10:96:0:0:0:0:1/i);
    const issuer = issuerOf(leafPem);
    expect(issuer.name.equals(distinguishedName('CN=kube-apiserver, O=system:masters'))).toBe(true);
  });

  it('encodes DER as X.690 says: shortest lengths, integers with a sign byte, named bits without trailing zeros', () => {
    expect(der.tlv(0x04, Buffer.alloc(127)).subarray(0, 2)).toEqual(Buffer.from([0x04, 0x7f]));
    expect(der.tlv(0x04, Buffer.alloc(128)).subarray(0, 3)).toEqual(Buffer.from([0x04, 0x81, 0x80]));
    expect(der.tlv(0x04, Buffer.alloc(256)).subarray(0, 4)).toEqual(Buffer.from([0x04, 0x82, 0x01, 0x00]));
    expect(der.unsignedInteger(Buffer.from([0x00, 0x00, 0x7f]))).toEqual(Buffer.from([0x02, 0x01, 0x7f]));
    expect(der.unsignedInteger(Buffer.from([0x80]))).toEqual(Buffer.from([0x02, 0x02, 0x00, 0x80]));
    expect(der.oid('1.2.840.113549.1.1.11')).toEqual(Buffer.from('06092a864886f70d01010b', 'hex'));
    expect(der.namedBits([KEY_USAGE.keyCertSign, KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment])).toEqual(Buffer.from('030202a4', 'hex'));
    expect(der.namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment])).toEqual(Buffer.from('030205a0', 'hex'));
    expect(der.time(new Date('2049-12-31T23:59:59Z'))).toEqual(der.tlv(0x17, Buffer.from('491231235959Z')));
    expect(der.time(new Date('2050-01-01T00:00:00Z'))).toEqual(der.tlv(0x18, Buffer.from('20500101000000Z')));
    expect(() => distinguishedName('CN=x, SERIALNUMBER=1')).toThrow(/unsupported subject attribute "SERIALNUMBER=1"/);
    expect(() => der.only(Buffer.from([0x30, 0x05, 0x00]), 0x30)).toThrow(/runs past/);
  });
});
