// Certificates for the stand-ins, issued with the openssl CLI (node:crypto verifies X.509 but cannot sign it), the
// way kubeadm's certs phase issues them from the CAs it finds in /etc/kubernetes/pki.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface CertRequest {
  /** `/CN=kube-apiserver-etcd-client/O=system:masters` */
  subject: string;
  usages: Array<'server' | 'client'>;
  dnsNames?: string[];
  ipAddresses?: string[];
  days?: number;
}

function openssl(args: string[], input?: string): string {
  return execFileSync('openssl', args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

function extensions(request: Pick<CertRequest, 'usages' | 'dnsNames' | 'ipAddresses'>): string {
  const eku = request.usages.map((u) => (u === 'server' ? 'serverAuth' : 'clientAuth')).join(',');
  const sans = [...(request.dnsNames ?? []).map((d) => `DNS:${d}`), ...(request.ipAddresses ?? []).map((i) => `IP:${i}`)];
  return [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${eku}`,
    'authorityKeyIdentifier=keyid',
    ...(sans.length > 0 ? [`subjectAltName=${[...new Set(sans)].join(',')}`] : []),
    '',
  ].join('\n');
}

/** Signs a PEM CSR with the CA; the certificate's subject is the CSR's. */
export function signCsr(csrPem: string, ca: { cert: string; key: string }, request: Omit<CertRequest, 'subject'>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-openssl-'));
  try {
    writeFileSync(join(dir, 'req.csr'), csrPem);
    writeFileSync(join(dir, 'ext.cnf'), extensions(request));
    return openssl([
      'x509',
      '-req',
      '-in',
      join(dir, 'req.csr'),
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-days',
      String(request.days ?? 365),
      '-sha256',
      '-extfile',
      join(dir, 'ext.cnf'),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh ECDSA P-256 key (PEM, PKCS#8). */
export function newKey(): string {
  return openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']);
}

export function newCsr(keyPem: string, subject: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-openssl-'));
  try {
    writeFileSync(join(dir, 'key.pem'), keyPem, { mode: 0o600 });
    return openssl(['req', '-new', '-key', join(dir, 'key.pem'), '-subj', subject]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Issues a key and certificate from the CA files and writes them to `<base>.crt` / `<base>.key`. */
export function issueToFiles(base: string, ca: { cert: string; key: string }, request: CertRequest): { cert: string; key: string } {
  const key = newKey();
  const cert = signCsr(newCsr(key, request.subject), ca, request);
  mkdirSync(dirname(base), { recursive: true });
  writeFileSync(`${base}.key`, key, { mode: 0o600 });
  writeFileSync(`${base}.crt`, cert, { mode: 0o644 });
  return { cert, key };
}

/** The subject of a CSR as openssl prints it in RFC 2253 order-independent form: `{ CN, O[] }`. */
export function csrSubject(csrPem: string): { cn: string; o: string[] } {
  const text = openssl(['req', '-noout', '-subject', '-nameopt', 'sep_multiline,sname'], csrPem);
  const o: string[] = [];
  let cn = '';
  for (const line of text.split('\n')) {
    const m = /^\s+(CN|O)=(.*)$/.exec(line);
    if (m?.[1] === 'CN') cn = m[2] ?? '';
    if (m?.[1] === 'O') o.push(m[2] ?? '');
  }
  return { cn, o };
}
