// The cluster PKI, issued up front so every node's configuration can be rendered before any machine exists:
// the three CAs, the service-account key, per-node serving and client certificates, the bootstrap token and
// the CA discovery hash. Keys are inputs (stored in the SecretStore and reused), so issuance is reproducible.
import { createHash, createPrivateKey, generateKeyPair as generateNodeKeyPair, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { Redacted } from '../redacted.js';
import {
  authorityKeyIdentifier,
  type PemKeyPair,
  basicConstraints,
  certificatePem,
  distinguishedName,
  extendedKeyUsage,
  issuerOf,
  KEY_USAGE,
  keyUsage,
  spkiOf,
  subjectAltName,
  subjectKeyIdentifier,
} from './certificate.js';
import { generateMeshSigningKeyPair } from './mesh-bundle.js';
import type { BootstrapCluster, BootstrapNode } from './input.js';
import { firstServiceIp, isIpv4 } from './network.js';
import { randomLowerAlnum, randomSerialNumber, type RandomSource } from './random.js';

const generateKeyPairAsync = promisify(generateNodeKeyPair);

export type { PemKeyPair } from './certificate.js';

/**
 * Every long-lived key of a cluster. The CAs are RSA because they sign here, and PKCS#1 v1.5 signatures are
 * deterministic (ECDSA's are not), so a render from the same keys and seed is byte-identical. Keys that never
 * sign here (service accounts, serving and client certificates) are ECDSA P-256: a fifth of the size, which
 * keeps control-plane user-data inside EC2's 16 KB.
 */
export interface ClusterKeys {
  clusterCa: PemKeyPair;
  frontProxyCa: PemKeyPair;
  etcdCa: PemKeyPair;
  serviceAccount: PemKeyPair;
  admin: PemKeyPair;
  /** Per control-plane node: the API server's serving key. */
  apiServer: Record<string, PemKeyPair>;
  /** Per load-balancer node: the client key it reads the mesh peer list with. */
  meshReader: Record<string, PemKeyPair>;
  /**
   * Ed25519: signs the mesh bundle the nodes' sync agents act on (mesh-bundle.ts). Its public half is in every node's
   * user-data; the private half never leaves the SecretStore.
   */
  meshSigning: PemKeyPair;
}

/** A fresh 2048-bit RSA key pair in PEM. */
export async function generateRsaKeyPair(): Promise<PemKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: Redacted.of(privateKey) };
}

/** A fresh ECDSA P-256 key pair in PEM (for certificates). */
export async function generateEcKeyPair(): Promise<PemKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKeyPem: publicKey, privateKeyPem: Redacted.of(privateKey) };
}

/** Makes the key pairs of a cluster's PKI: RSA-2048 for its CAs (kubeadm's default), ECDSA P-256 for the rest. */
export interface KeyPairSource {
  /** A fresh RSA key pair. */
  rsa(): Promise<PemKeyPair>;
  /** A fresh ECDSA P-256 key pair. */
  ec(): Promise<PemKeyPair>;
}

/** A new key pair for every call: what every real cluster gets. */
export const freshKeyPairs: KeyPairSource = { rsa: generateRsaKeyPair, ec: generateEcKeyPair };

/**
 * For test harnesses that make hundreds of throwaway sandbox clusters in one process, never for a real one: `count` RSA
 * pairs made on first use and handed out in turn, so those clusters share CA keys. One RSA-2048 key costs 0.2-0.8 s of
 * CPU on a 2-core machine, a third of a chaos seed's time (5.5 keys a seed). ECDSA keys stay fresh; they cost little.
 */
export function reusedRsaKeyPairs(count = 3): KeyPairSource {
  const made: Array<Promise<PemKeyPair>> = [];
  let next = 0;
  return {
    rsa: () => {
      const i = next++ % count;
      made[i] ??= generateRsaKeyPair();
      return made[i];
    },
    ec: generateEcKeyPair,
  };
}

/** New keys for every CA and for every control-plane and load-balancer node of the cluster (not deterministic). */
export async function generateClusterKeys(
  cluster: { nodes: ReadonlyArray<Pick<BootstrapNode, 'name' | 'role'>> },
  source: KeyPairSource = freshKeyPairs,
): Promise<ClusterKeys> {
  const perNode = async (role: BootstrapNode['role']): Promise<Record<string, PemKeyPair>> => {
    const out: Record<string, PemKeyPair> = {};
    for (const node of cluster.nodes.filter((n) => n.role === role)) out[node.name] = await source.ec();
    return out;
  };
  return {
    clusterCa: await source.rsa(),
    frontProxyCa: await source.rsa(),
    etcdCa: await source.rsa(),
    serviceAccount: await source.ec(),
    admin: await source.ec(),
    apiServer: await perNode('control'),
    meshReader: await perNode('loadbalancer'),
    meshSigning: generateMeshSigningKeyPair(),
  };
}

/** A certificate as PEM. */
export interface IssuedCertificate {
  certificatePem: string;
}

/** What may be stored in state and shown to anyone: certificates, public keys, the discovery hash. */
export interface ClusterPkiPublic {
  clusterCaCertificate: string;
  frontProxyCaCertificate: string;
  etcdCaCertificate: string;
  serviceAccountPublicKey: string;
  adminCertificate: string;
  /** `sha256:<hex>` of the cluster CA's SubjectPublicKeyInfo, for `kubeadm join --discovery-token-ca-cert-hash`. */
  discoveryHash: string;
}

/** What only the SecretStore may hold. */
export interface ClusterPkiSecret {
  clusterCaKey: Redacted<string>;
  frontProxyCaKey: Redacted<string>;
  etcdCaKey: Redacted<string>;
  serviceAccountKey: Redacted<string>;
  /** `[a-z0-9]{6}.[a-z0-9]{16}`: the kubeadm bootstrap token workers and control planes join with. */
  bootstrapToken: Redacted<string>;
  /** The kube-apiserver EncryptionConfiguration (secretbox), when secrets are encrypted at rest. */
  encryptionConfiguration?: Redacted<string>;
  /** A kubeconfig with the admin client certificate and key embedded. */
  adminKubeconfig: Redacted<string>;
}

/** A cluster's PKI: the certificates nodes may see and the keys only control planes get. */
export interface ClusterPki {
  public: ClusterPkiPublic;
  secret: ClusterPkiSecret;
}

/** What issuing a certificate depends on: the randomness for serials and the current time. */
export interface IssueOptions {
  random: RandomSource;
  now: Date;
}

const CA_DAYS = 3650;
const LEAF_DAYS = 365;
// A little backdating so a node whose clock runs slightly behind still accepts fresh certificates.
const BACKDATE_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

function validity(now: Date, days: number): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(now.getTime() - BACKDATE_MS), notAfter: new Date(now.getTime() + days * DAY_MS) };
}

function serial(random: RandomSource): Buffer {
  return Buffer.from(randomSerialNumber(random), 'hex');
}

/** A self-signed CA certificate (ten years) for the key pair. */
export async function issueCaCertificate(commonName: string, pair: PemKeyPair, options: IssueOptions): Promise<string> {
  const spki = spkiOf(pair.publicKeyPem);
  const name = distinguishedName(`CN=${commonName}`);
  return certificatePem({
    serialNumber: serial(options.random),
    issuer: name,
    subject: name,
    ...validity(options.now, CA_DAYS),
    spki,
    extensions: [basicConstraints(true), keyUsage([KEY_USAGE.keyCertSign, KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment]), subjectKeyIdentifier(spki)],
    signingKey: createPrivateKey(pair.privateKeyPem.reveal()),
  });
}

/** A request for a leaf certificate: subject, usage, SANs, its key and the CA that signs it. */
export interface LeafRequest {
  subject: string;
  usage: 'server' | 'client';
  dnsNames?: string[];
  ipAddresses?: string[];
  key: PemKeyPair;
  ca: { certificatePem: string; key: Redacted<string> };
}

/** A leaf certificate signed by `ca`: serving (serverAuth) or client (clientAuth), with the given SANs. */
export async function issueLeafCertificate(request: LeafRequest, options: IssueOptions): Promise<IssuedCertificate> {
  return leafCertificate(request, options);
}

/** The same, synchronously (a sandbox user-data transform re-issuing a certificate runs inside a synchronous read). */
export function leafCertificate(request: LeafRequest, options: IssueOptions): IssuedCertificate {
  const issuer = issuerOf(request.ca.certificatePem);
  const dnsNames = request.dnsNames ?? [];
  const ipAddresses = request.ipAddresses ?? [];
  const certificate = certificatePem({
    serialNumber: serial(options.random),
    issuer: issuer.name,
    subject: distinguishedName(request.subject),
    ...validity(options.now, LEAF_DAYS),
    spki: spkiOf(request.key.publicKeyPem),
    extensions: [
      basicConstraints(false),
      keyUsage([KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment]),
      extendedKeyUsage(request.usage),
      authorityKeyIdentifier(issuer.spki),
      ...(dnsNames.length + ipAddresses.length > 0 ? [subjectAltName(dnsNames, ipAddresses)] : []),
    ],
    signingKey: createPrivateKey(request.ca.key.reveal()),
  });
  return { certificatePem: certificate };
}

/** `sha256:<hex>` of a certificate's DER SubjectPublicKeyInfo: what `kubeadm join` pins the CA with. */
export function discoveryHash(caCertificatePem: string): string {
  const spki = new X509Certificate(caCertificatePem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/** A fresh kubeadm bootstrap token (`abcdef.0123456789abcdef`). */
export function generateBootstrapToken(random: RandomSource): Redacted<string> {
  return Redacted.of(`${randomLowerAlnum(random, 6)}.${randomLowerAlnum(random, 16)}`);
}

/** A kube-apiserver EncryptionConfiguration encrypting Secrets with secretbox (XSalsa20-Poly1305), reading plain ones. */
export function renderEncryptionConfiguration(random: RandomSource): Redacted<string> {
  const key = Buffer.from(random.bytes(32)).toString('base64');
  return Redacted.of(
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: EncryptionConfiguration',
      'resources:',
      '  - resources:',
      '      - secrets',
      '    providers:',
      '      - secretbox:',
      '          keys:',
      '            - name: key1',
      `              secret: ${key}`,
      '      - identity: {}',
      '',
    ].join('\n'),
  );
}

/** The group the admin certificate carries: kubeadm binds `kubeadm:cluster-admins` from 1.29 on. */
export function adminGroup(cluster: Pick<BootstrapCluster, 'kubernetesVersion'>): string {
  const { major, minor } = cluster.kubernetesVersion;
  return major > 1 || minor >= 29 ? 'kubeadm:cluster-admins' : 'system:masters';
}

/** The API server's `https://` URL. */
export function apiServerUrl(cluster: Pick<BootstrapCluster, 'apiEndpoint'>): string {
  return `https://${cluster.apiEndpoint.host}:${cluster.apiEndpoint.port}`;
}

/** What a kubeconfig is rendered from: the cluster, its CA and a client certificate and key. */
export interface KubeconfigInput {
  clusterName: string;
  server: string;
  caCertificatePem: string;
  user: string;
  clientCertificatePem: string;
  clientKeyPem: Redacted<string>;
}

/** A kubeconfig for the cluster with the client certificate and key embedded. */
export function renderKubeconfig(input: KubeconfigInput): Redacted<string> {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const context = `${input.user}@${input.clusterName}`;
  return Redacted.of(
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `  - name: ${input.clusterName}`,
      '    cluster:',
      `      server: ${input.server}`,
      `      certificate-authority-data: ${b64(input.caCertificatePem)}`,
      'users:',
      `  - name: ${input.user}`,
      '    user:',
      `      client-certificate-data: ${b64(input.clientCertificatePem)}`,
      `      client-key-data: ${b64(input.clientKeyPem.reveal())}`,
      'contexts:',
      `  - name: ${context}`,
      '    context:',
      `      cluster: ${input.clusterName}`,
      `      user: ${input.user}`,
      `current-context: ${context}`,
      '',
    ].join('\n'),
  );
}

/** Issues the cluster-wide PKI. Per-node certificates come from `issueApiServerCertificate` / `issueMeshReaderCertificate`. */
export async function issueClusterPki(cluster: BootstrapCluster, keys: Omit<ClusterKeys, 'meshSigning'>, options: IssueOptions): Promise<ClusterPki> {
  const clusterCaCertificate = await issueCaCertificate('kubernetes', keys.clusterCa, options);
  const frontProxyCaCertificate = await issueCaCertificate('front-proxy-ca', keys.frontProxyCa, options);
  const etcdCaCertificate = await issueCaCertificate('etcd-ca', keys.etcdCa, options);
  const admin = await issueLeafCertificate(
    {
      subject: `CN=kubeplane-admin, O=${adminGroup(cluster)}`,
      usage: 'client',
      key: keys.admin,
      ca: { certificatePem: clusterCaCertificate, key: keys.clusterCa.privateKeyPem },
    },
    options,
  );
  const bootstrapToken = generateBootstrapToken(options.random);
  const encryptionConfiguration = cluster.secretsAtRest ? renderEncryptionConfiguration(options.random) : undefined;
  return {
    public: {
      clusterCaCertificate,
      frontProxyCaCertificate,
      etcdCaCertificate,
      serviceAccountPublicKey: keys.serviceAccount.publicKeyPem,
      adminCertificate: admin.certificatePem,
      discoveryHash: discoveryHash(clusterCaCertificate),
    },
    secret: {
      clusterCaKey: keys.clusterCa.privateKeyPem,
      frontProxyCaKey: keys.frontProxyCa.privateKeyPem,
      etcdCaKey: keys.etcdCa.privateKeyPem,
      serviceAccountKey: keys.serviceAccount.privateKeyPem,
      bootstrapToken,
      ...(encryptionConfiguration ? { encryptionConfiguration } : {}),
      adminKubeconfig: renderKubeconfig({
        clusterName: cluster.name,
        server: apiServerUrl(cluster),
        caCertificatePem: clusterCaCertificate,
        user: 'kubeplane-admin',
        clientCertificatePem: admin.certificatePem,
        clientKeyPem: keys.admin.privateKeyPem,
      }),
    },
  };
}

/**
 * The SANs kubeadm requires of an API server certificate it finds on disk (it refuses one that lacks any):
 * the node name, the in-cluster names, the first service IP, the advertise address, the control-plane
 * endpoint; plus every control-plane overlay IP known now, so any member can be addressed directly.
 */
export function apiServerSans(cluster: BootstrapCluster, node: BootstrapNode): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames = [node.name, 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  const ipAddresses = [firstServiceIp(cluster.serviceCidr), node.overlayIp];
  if (isIpv4(cluster.apiEndpoint.host)) ipAddresses.push(cluster.apiEndpoint.host);
  else dnsNames.push(cluster.apiEndpoint.host);
  for (const other of cluster.nodes) if (other.role === 'control') ipAddresses.push(other.overlayIp);
  return { dnsNames: [...new Set(dnsNames)], ipAddresses: [...new Set(ipAddresses)] };
}

/** The API server's serving certificate, with the SANs of every address it is reached at. */
export async function issueApiServerCertificate(
  cluster: BootstrapCluster,
  pki: ClusterPki,
  node: BootstrapNode,
  key: PemKeyPair,
  options: IssueOptions,
): Promise<IssuedCertificate> {
  return issueLeafCertificate(
    {
      subject: 'CN=kube-apiserver',
      usage: 'server',
      ...apiServerSans(cluster, node),
      key,
      ca: { certificatePem: pki.public.clusterCaCertificate, key: pki.secret.clusterCaKey },
    },
    options,
  );
}

/** The group whose members may read the mesh peer list (bound by the RBAC the first control plane applies). */
export const MESH_READERS_GROUP = 'kubeplane:mesh-readers';

/** The client certificate a load-balancer node reads the mesh bundle with. */
export async function issueMeshReaderCertificate(pki: ClusterPki, node: BootstrapNode, key: PemKeyPair, options: IssueOptions): Promise<IssuedCertificate> {
  return issueLeafCertificate(
    {
      subject: `CN=kubeplane:mesh-reader:${node.name}, O=${MESH_READERS_GROUP}`,
      usage: 'client',
      key,
      ca: { certificatePem: pki.public.clusterCaCertificate, key: pki.secret.clusterCaKey },
    },
    options,
  );
}
