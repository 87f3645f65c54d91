// The PKI a CMK control plane is created with: the cluster CA, the admin client certificate `get-credentials` hands
// out, and the API server's serving certificate for `<name>.crusoecloudcompute.com`. Issued with the sdk's PKI.
import {
  generateEcKeyPair,
  generateRsaKeyPair,
  issueClusterPki,
  issueLeafCertificate,
  seededRandomSource,
  type BootstrapCluster,
} from '@kubeplane/sdk/internal';
import type { PemKeyPair } from '@kubeplane/sdk';

/** PEMs only, so the emulator keeps them as plain data. The keys are secrets: never logged, never in the inventory. */
export interface CmkPki {
  caPem: string;
  adminCertPem: string;
  adminKeyPem: string;
  servingCertPem: string;
  servingKeyPem: string;
}

export const CMK_API_PORT = 6443;

/** The API's DNS name, as the cluster's `dns_name` and the kubeconfig's server say. */
export function cmkApiHost(clusterName: string): string {
  return `${clusterName}.crusoecloudcompute.com`;
}

/** `1.33.4-cmk.15` → `v1.33.4`, the API server's gitVersion. */
export function cmkKubernetesVersion(cmkVersion: string): string {
  return `v${cmkVersion.split('-')[0] ?? cmkVersion}`;
}

/**
 * Fresh keys (not deterministic) and certificates with serial numbers drawn from `seed`. The sdk issues a
 * CA only as part of a kubeadm cluster's PKI, so the control plane is described as the bootstrap input it would be;
 * of that PKI only the cluster CA is used (the sandbox serves no front proxy or etcd), so one RSA key signs for all.
 */
export async function issueCmkPki(input: { seed: string; name: string; version: string; nowMs: number }): Promise<CmkPki> {
  const options = { random: seededRandomSource(`crusoe-cmk/${input.seed}`), now: new Date(input.nowMs) };
  const host = cmkApiHost(input.name);
  const [major = 1, minor = 0, patch = 0] = cmkKubernetesVersion(input.version).slice(1).split('.').map(Number);
  const cluster: BootstrapCluster = {
    name: input.name,
    clusterId: input.name,
    kubernetesVersion: { major, minor, patch },
    apiEndpoint: { host, port: CMK_API_PORT, kind: 'load-balancer-dns' },
    network: '',
    podCidr: '',
    serviceCidr: '',
    nodes: [],
    loadBalancers: [],
    secretsAtRest: true,
  };
  const ca = await generateRsaKeyPair();
  const [admin, serving] = await Promise.all([generateEcKeyPair(), generateEcKeyPair()]);
  const pki = await issueClusterPki(
    cluster,
    { clusterCa: ca, frontProxyCa: ca, etcdCa: ca, serviceAccount: admin, admin, apiServer: {}, meshReader: {} },
    options,
  );
  const signer = { certificatePem: pki.public.clusterCaCertificate, key: ca.privateKeyPem };
  const leaf = (subject: string, usage: 'server' | 'client', key: PemKeyPair, dnsNames?: string[]) =>
    issueLeafCertificate({ subject, usage, key, ca: signer, ...(dnsNames ? { dnsNames } : {}) }, options);
  // CMK's admin role: the get-credentials user is `admin`, bound as cluster admin through system:masters.
  const adminCert = await leaf('CN=admin, O=system:masters', 'client', admin);
  const servingCert = await leaf('CN=kube-apiserver', 'server', serving, [
    host,
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
  ]);
  return {
    caPem: pki.public.clusterCaCertificate,
    adminCertPem: adminCert.certificatePem,
    adminKeyPem: admin.privateKeyPem.reveal(),
    servingCertPem: servingCert.certificatePem,
    servingKeyPem: serving.privateKeyPem.reveal(),
  };
}
