// Re-issuing a machine's certificates inside a transform (synchronously, with the sdk's own issuer).
import { createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { Redacted } from '@kubeplane/sdk';
import { leafCertificate, seededRandomSource } from '@kubeplane/sdk/internal';
import type { UserDataFile } from '@kubeplane/sandbox';

const random = seededRandomSource('kubeplane-defects');

/** The names a certificate holds, as `DNS:x` / `IP Address:y` entries. */
export function sansOf(pem: string): { dnsNames: string[]; ips: string[] } {
  const entries = (new X509Certificate(pem).subjectAltName ?? '').split(', ');
  return {
    dnsNames: entries.filter((e) => e.startsWith('DNS:')).map((e) => e.slice(4)),
    ips: entries.filter((e) => e.startsWith('IP Address:')).map((e) => e.slice(11)),
  };
}

/** The API server's serving certificate at `paths.cert` issued again with `names`, by the CA at `paths.caCert`. */
export function reissue(
  files: UserDataFile[],
  paths: { cert: string; key: string; caCert: string; caKey: string },
  names: (current: { dnsNames: string[]; ips: string[] }) => { dnsNames: string[]; ips: string[] },
): UserDataFile[] {
  const read = (path: string): string | undefined => files.find((f) => f.path === path)?.content;
  const cert = read(paths.cert);
  const key = read(paths.key);
  const caCert = read(paths.caCert);
  const caKey = read(paths.caKey);
  if (!cert || !key || !caCert || !caKey) return files;
  const publicKeyPem = createPublicKey(createPrivateKey(key)).export({ type: 'spki', format: 'pem' }).toString();
  const ca = { certificatePem: caCert, key: Redacted.of(caKey) };
  const wanted = names(sansOf(cert));
  const issued = leafCertificate(
    {
      subject: 'CN=kube-apiserver',
      usage: 'server',
      dnsNames: wanted.dnsNames,
      ipAddresses: wanted.ips,
      key: { publicKeyPem, privateKeyPem: Redacted.of(key) },
      ca,
    },
    { random, now: new Date('2026-01-01T00:00:00Z') },
  );
  return files.map((f) => (f.path === paths.cert ? { ...f, content: issued.certificatePem } : f));
}

/**
 * A certificate issued by the CA at `caPaths` (with a fresh key), written as new files at `out` (cert, key). For a user
 * who ships a certificate kubeadm would otherwise make.
 */
export function issueNew(
  files: UserDataFile[],
  caPaths: { caCert: string; caKey: string },
  out: { cert: string; key: string },
  request: { subject: string; usage: 'server' | 'client'; dnsNames: string[]; ips: string[] },
): UserDataFile[] {
  const caCert = files.find((f) => f.path === caPaths.caCert)?.content;
  const caKey = files.find((f) => f.path === caPaths.caKey)?.content;
  if (!caCert || !caKey) return files;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const issued = leafCertificate(
    {
      subject: request.subject,
      usage: request.usage,
      dnsNames: request.dnsNames,
      ipAddresses: request.ips,
      key: { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKeyPem: Redacted.of(privateKeyPem) },
      ca: { certificatePem: caCert, key: Redacted.of(caKey) },
    },
    { random, now: new Date('2026-01-01T00:00:00Z') },
  );
  const file = (path: string, content: string): UserDataFile => ({ path, content, owner: 'root:root', permissions: '0600' });
  return [...files, file(out.cert, issued.certificatePem), file(out.key, privateKeyPem)];
}
