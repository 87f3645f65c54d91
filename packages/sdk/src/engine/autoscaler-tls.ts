// Mutual TLS between a cluster's cluster-autoscaler and a kubeplane autoscaler adapter that runs outside the cluster
// (`kubeplane autoscaler-adapter serve` next to the state directory), reached at the cluster_autoscaler add-on's
// `config.adapterAddress`. externalgrpc dials with the client certificate, key and CA its cloud-config names and checks
// the server's certificate against that CA for the address's host (cluster-autoscaler cloudprovider/externalgrpc:
// cloudConfig{address, key, cert, cacert}, tls.Config{ServerName: host}); an unauthenticated caller could otherwise
// create and delete machines. The CA is the cluster's own and never leaves the SecretStore: the engine writes the
// client half into the cluster, the CLI issues itself a serving certificate for the host when it starts.
import type { Redacted } from '../redacted.js';
import { issueCaCertificate, issueLeafCertificate, type IssueOptions, type KeyPairSource } from '../bootstrap/pki.js';
import { isIPv4 } from 'node:net';

/** The TLS material of the autoscaler's gRPC link: the CA and the autoscaler's client certificate. */
export interface AutoscalerTls {
  caCertificate: string;
  caKey: Redacted<string>;
  /** The cluster autoscaler's client certificate and key (clientAuth), written into the cluster. */
  clientCertificate: string;
  clientKey: Redacted<string>;
}

/** The serving certificate and key of kubeplane's autoscaler adapter, with the CA that signed it. */
export interface AdapterServingTls {
  caCertificate: string;
  certificate: string;
  key: Redacted<string>;
  /** The host the certificate names: the adapter address's, which cluster-autoscaler checks it against. */
  host: string;
  /** The port of that address. */
  port: number;
}

/** `host:port`, `[v6]:port` as externalgrpc reads its `address`; null when it is not one. */
export function parseAdapterAddress(address: string): { host: string; port: number } | null {
  const m = /^(?:\[([^\]]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(address.trim());
  const port = Number(m?.[3]);
  const host = m?.[1] ?? m?.[2];
  if (!m || !host || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host, port };
}

/** A new CA for the cluster's autoscaler connection and the autoscaler's client certificate. */
export async function newAutoscalerTls(cluster: string, keys: KeyPairSource, options: IssueOptions): Promise<AutoscalerTls> {
  // RSA, as the cluster's other CAs: certificate.ts signs with RSA keys only. The leaves are P-256.
  const ca = await keys.rsa();
  const caCertificate = await issueCaCertificate(`kubeplane-autoscaler-ca ${cluster}`, ca, options);
  const client = await keys.ec();
  const issued = await issueLeafCertificate(
    { subject: 'CN=cluster-autoscaler', usage: 'client', key: client, ca: { certificatePem: caCertificate, key: ca.privateKeyPem } },
    options,
  );
  return { caCertificate, caKey: ca.privateKeyPem, clientCertificate: issued.certificatePem, clientKey: client.privateKeyPem };
}

/** A serving certificate for the adapter at `host` (an IPv4 address or a DNS name), signed by the cluster's CA. */
export async function adapterServingTls(
  tls: AutoscalerTls,
  { host, port }: { host: string; port: number },
  keys: KeyPairSource,
  options: IssueOptions,
): Promise<AdapterServingTls> {
  const key = await keys.ec();
  const issued = await issueLeafCertificate(
    {
      subject: 'CN=kubeplane-autoscaler-adapter',
      usage: 'server',
      ...(isIPv4(host) ? { ipAddresses: [host] } : { dnsNames: [host] }),
      key,
      ca: { certificatePem: tls.caCertificate, key: tls.caKey },
    },
    options,
  );
  return { caCertificate: tls.caCertificate, certificate: issued.certificatePem, key: key.privateKeyPem, host, port };
}
