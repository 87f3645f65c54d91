// Each sandbox cluster's own TLS material, as its first control plane would serve it: the API server certificate
// and key that kubeplane rendered into the control plane's user-data (a managed control plane, CMK, comes with
// its own from the cloud), and the cluster CA that signed them (and that signs its clients). Read from the sandbox
// world; these are keys: never logged, never written elsewhere.
import { X509Certificate } from 'node:crypto';
import { Redacted } from '@kubeplane/sdk';
import { type NodeBootConfig, readBootConfig } from '../kubernetes/user-data.js';
import type { Sandbox } from '../sandbox.js';

const STAGED_PKI = '/etc/kubeplane/pki';

/** A cluster's serving TLS material as its control plane serves it: CA, API server certificate and key (redacted). */
export interface ClusterTls {
  /** The cluster's name (kubeadm's clusterName). */
  name: string;
  /** `host:port` the cluster's API is known at (the API load balancer's name or the reserved IP). */
  endpoint: string;
  /** The endpoint's host: the name the serving certificate is checked against (`tls-server-name`). */
  host: string;
  caPem: string;
  certPem: string;
  keyPem: Redacted<string>;
}

/** A cluster whose API the served sandbox cannot serve over TLS, and why. */
export interface ClusterTlsProblem {
  name: string;
  endpoint: string;
  message: string;
}

/**
 * The host of a `host:port` endpoint (brackets of an IPv6 address removed); the endpoint unchanged when it has no port.
 */
export function hostOf(endpoint: string): string {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(endpoint);
  return m?.[1] ?? endpoint;
}

function controlPlaneOf(config: NodeBootConfig): string | undefined {
  const init = config.kubeadm?.init;
  if (init) return init.controlPlaneEndpoint;
  const join = config.kubeadm?.join;
  return join?.controlPlane ? join.apiServerEndpoint : undefined;
}

/** The clusters whose API answers now, each with the TLS material of a running control plane that serves it. */
export function clusterTls(sandbox: Pick<Sandbox, 'listVms' | 'kubernetes'>): { clusters: ClusterTls[]; problems: ClusterTlsProblem[] } {
  // Up to the clock's now, as a request would see it (a control plane the cloud started since the last look answers).
  sandbox.kubernetes.tick();
  const candidates = new Map<string, Array<{ init: boolean; cert: string; key: string; ca: string | undefined }>>();
  for (const vm of sandbox.listVms()) {
    if (vm.state !== 'running') continue;
    let config: NodeBootConfig;
    try {
      config = readBootConfig(vm.userData);
    } catch {
      continue; // Not a node kubeplane configured (or a broken one the kubelets report on).
    }
    const endpoint = controlPlaneOf(config);
    const cert = config.files.get(`${STAGED_PKI}/apiserver.crt`);
    const key = config.files.get(`${STAGED_PKI}/apiserver.key`);
    if (!endpoint || !cert || !key) continue;
    const list = candidates.get(endpoint) ?? [];
    list.push({ init: config.kubeadm?.init !== undefined, cert, key, ca: config.files.get(`${STAGED_PKI}/ca.crt`) });
    candidates.set(endpoint, list);
  }
  const clusters: ClusterTls[] = [];
  const problems: ClusterTlsProblem[] = [];
  for (const [endpoint, cluster] of [...sandbox.kubernetes.simulation.clusters.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const name = cluster.api.identity.name;
    if (!sandbox.kubernetes.simulation.reachable(endpoint)) {
      problems.push({ name, endpoint, message: 'its API does not answer (no control plane is running)' });
      continue;
    }
    const caPem = cluster.api.identity.caPem;
    const ca = new X509Certificate(caPem);
    const signed = (cert: string): boolean => {
      try {
        return new X509Certificate(cert).verify(ca.publicKey);
      } catch {
        return false;
      }
    };
    const managed = cluster.api.identity.serving;
    const found = managed
      ? [{ cert: managed.certPem, key: managed.keyPem }].find((c) => signed(c.cert))
      : (candidates.get(endpoint) ?? []).sort((a, b) => Number(b.init) - Number(a.init)).find((c) => signed(c.cert));
    if (!found) {
      problems.push({
        name,
        endpoint,
        message: managed
          ? "its managed control plane's serving certificate is not signed by the cluster CA"
          : 'no running control plane carries a serving certificate signed by the cluster CA',
      });
      continue;
    }
    clusters.push({ name, endpoint, host: hostOf(endpoint), caPem, certPem: found.cert, keyPem: Redacted.of(found.key) });
  }
  return { clusters, problems };
}
