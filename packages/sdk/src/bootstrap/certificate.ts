// X.509 v3 certificates (RFC 5280) for the cluster PKI, on node:crypto: it makes the keys, their SubjectPublicKeyInfo
// and the signatures; der.ts lays out the TBSCertificate around them. The profile is kubeadm's (cmd/kubeadm/app/util/
// pkiutil): CAs with basicConstraints cA and keyCertSign, leaves with serverAuth or clientAuth and their SANs.
import { createHash, createPublicKey, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import type { Redacted } from '../redacted.js';
import * as der from './der.js';

/** A key pair as PEM (PKCS#8 private, SPKI public), RSA or ECDSA P-256; the form the SecretStore keeps. */
export interface PemKeyPair {
  publicKeyPem: string;
  privateKeyPem: Redacted<string>;
}

const OID = {
  sha256WithRsa: '1.2.840.113549.1.1.11',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** The attribute types a subject may name (RFC 4519). */
const ATTRIBUTES: Record<string, string> = { CN: '2.5.4.3', O: '2.5.4.10', OU: '2.5.4.11', C: '2.5.4.6', L: '2.5.4.7', ST: '2.5.4.8' };

/** KeyUsage's named bits (RFC 5280 4.2.1.3). */
export const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5 } as const;

/** `CN=kubeplane-admin, O=kubeadm:cluster-admins` as a Name: one RDN per attribute, in the order written. */
export function distinguishedName(text: string): Buffer {
  const parts = text
    .split(/,\s*(?=[A-Za-z]+=)/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('a certificate subject needs at least one attribute');
  return der.sequence(
    ...parts.map((part) => {
      const eq = part.indexOf('=');
      const type = ATTRIBUTES[part.slice(0, eq).toUpperCase()];
      if (eq < 1 || !type) throw new Error(`unsupported subject attribute "${part}" (use ${Object.keys(ATTRIBUTES).join(', ')})`);
      return der.set(der.sequence(der.oid(type), der.directoryString(part.slice(eq + 1))));
    }),
  );
}

/** RFC 5280 4.2.1.2 method 1: the SHA-1 of the subjectPublicKey BIT STRING's bits. */
export function keyIdentifier(spki: Buffer): Buffer {
  const [, key] = der.elements(der.only(spki, 0x30).contents);
  if (key?.tag !== 0x03) throw new Error('not a SubjectPublicKeyInfo');
  return createHash('sha1').update(key.contents.subarray(1)).digest();
}

/** A public key (PEM, SPKI or PKCS#1) as DER SubjectPublicKeyInfo. */
export function spkiOf(publicKeyPem: string): Buffer {
  return createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
}

/** What a leaf needs of its CA's certificate: the subject (as the leaf's issuer, byte for byte) and the public key. */
export function issuerOf(certificatePem: string): { name: Buffer; spki: Buffer } {
  const cert = new X509Certificate(certificatePem);
  const tbs = der.elements(der.only(cert.raw, 0x30).contents)[0];
  if (!tbs) throw new Error('not a certificate');
  const fields = der.elements(tbs.contents);
  // version [0] (present in v3), serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo …
  const subject = fields[fields[0]?.tag === 0xa0 ? 5 : 4];
  if (subject?.tag !== 0x30) throw new Error('a certificate without a subject');
  return { name: Buffer.from(subject.der), spki: cert.publicKey.export({ type: 'spki', format: 'der' }) };
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return der.sequence(der.oid(id), ...(critical ? [der.booleanTrue()] : []), der.octetString(value));
}

export const basicConstraints = (ca: boolean): Buffer => extension(OID.basicConstraints, true, ca ? der.sequence(der.booleanTrue()) : der.sequence());
export const keyUsage = (bits: readonly number[]): Buffer => extension(OID.keyUsage, true, der.namedBits(bits));
export const extendedKeyUsage = (usage: 'server' | 'client'): Buffer =>
  extension(OID.extKeyUsage, false, der.sequence(der.oid(usage === 'server' ? OID.serverAuth : OID.clientAuth)));
export const subjectKeyIdentifier = (spki: Buffer): Buffer => extension(OID.subjectKeyIdentifier, false, der.octetString(keyIdentifier(spki)));
export const authorityKeyIdentifier = (issuerSpki: Buffer): Buffer =>
  extension(OID.authorityKeyIdentifier, false, der.sequence(der.implicit(0, keyIdentifier(issuerSpki))));

/** subjectAltName: dNSName [2] for each name, iPAddress [7] (4 or 16 octets) for each address. */
export function subjectAltName(dnsNames: readonly string[], ipAddresses: readonly string[]): Buffer {
  return extension(
    OID.subjectAltName,
    false,
    der.sequence(...dnsNames.map((d) => der.implicit(2, Buffer.from(d, 'ascii'))), ...ipAddresses.map((ip) => der.implicit(7, ipBytes(ip)))),
  );
}

function ipBytes(ip: string): Buffer {
  const family = isIP(ip);
  if (family === 4) return Buffer.from(ip.split('.').map(Number));
  if (family !== 6) throw new Error(`"${ip}" is not an IP address`);
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  // A dotted IPv4 tail (RFC 4291 2.2, e.g. ::ffff:192.0.2.1) is the last two groups.
  const groups = (s: string) => (s ? s.split(':') : []).flatMap((g) => (g.includes('.') ? (ipBytes(g).toString('hex').match(/.{4}/g) ?? []) : [g]));
  const left = groups(head);
  const right = groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return Buffer.concat(all.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

export interface CertificateFields {
  /** Unsigned big-endian; kubeplane's are 16 random bytes with the top bit clear. */
  serialNumber: Buffer;
  issuer: Buffer;
  subject: Buffer;
  notBefore: Date;
  notAfter: Date;
  spki: Buffer;
  extensions: Buffer[];
  /** An RSA key: its PKCS#1 v1.5 signatures are deterministic, so the same inputs give the same certificate. */
  signingKey: KeyObject;
}

/** The signed certificate as PEM (64-column base64, one trailing newline). */
export function certificatePem(fields: CertificateFields): string {
  if (fields.signingKey.asymmetricKeyType !== 'rsa')
    throw new Error(`certificates are signed with RSA keys here, not ${String(fields.signingKey.asymmetricKeyType)}`);
  const algorithm = der.sequence(der.oid(OID.sha256WithRsa), der.nullValue());
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)),
    der.unsignedInteger(fields.serialNumber),
    algorithm,
    fields.issuer,
    der.sequence(der.time(fields.notBefore), der.time(fields.notAfter)),
    fields.subject,
    fields.spki,
    der.explicit(3, der.sequence(...fields.extensions)),
  );
  const signature = sign('sha256', tbs, fields.signingKey);
  const body = der.sequence(tbs, algorithm, der.bitString(signature)).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${body.replace(/.{64}(?=.)/g, '$&\n')}\n-----END CERTIFICATE-----\n`;
}
