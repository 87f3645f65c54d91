// The TLS material a managed control plane (Crusoe CMK) is served with: its own serving certificate from the cloud,
// checked by Node's TLS stack against the CA and admin certificate that CMK's get-credentials hands out.
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CrusoeProvider, parseKubeconfig } from '@kubeplane/providers';
import { CRUSOE_SANDBOX_CREDENTIALS, CrusoeSandbox, SANDBOX_SSH_PUBLIC_KEY } from '../crusoe/harness.js';
import { KubernetesEmulator } from '../kubernetes/emulator.js';
import { Redacted } from '@kubeplane/sdk';
import { settle, type Outcome } from '@kubeplane/sdk/provider';
import { clusterTls } from './cluster-tls.js';

const id = 'gpu-abc1234';
const region = 'us-east1-a';
let crusoe: CrusoeSandbox | undefined;

afterEach(() => crusoe?.stop());

/** A running CMK cluster made through the Crusoe API, its admin kubeconfig, and the Kubernetes side of that world. */
async function cmkWorld() {
  const sandbox = new CrusoeSandbox();
  crusoe = sandbox;
  const provider = new CrusoeProvider({
    accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
    secretKey: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.secretKey),
    projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
    clock: sandbox.clock,
    sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
    random: () => 0.5,
  });
  const run = <T>(call: () => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: sandbox.clock, maxAttempts: 400 });
  await run(() => provider.managedKubernetes.ensureCluster({ name: id, clusterId: id, region, kubernetesVersion: '1.33.4-cmk.15', addons: [] }));
  const kubeconfig = await run(() => provider.managedKubernetes.kubeconfig({ clusterId: id, name: id, region }));
  const kubernetes = new KubernetesEmulator(sandbox.context, { vms: sandbox.emulator });
  return { world: { listVms: () => sandbox.emulator.listVms(), kubernetes }, admin: parseKubeconfig(Redacted.of(kubeconfig)), provider };
}

describe('the TLS material of a managed control plane', () => {
  it("serves the cluster with the cloud's serving certificate, which the admin kubeconfig trusts, for the API name", async () => {
    const { world, admin } = await cmkWorld();
    const { clusters, problems } = clusterTls(world);
    expect(problems).toEqual([]);
    expect(clusters.map((c) => [c.name, c.endpoint, c.host])).toEqual([[id, `${id}.crusoecloudcompute.com:6443`, `${id}.crusoecloudcompute.com`]]);
    expect(JSON.stringify(clusters)).not.toContain('PRIVATE KEY');
    const [cluster] = clusters;
    if (!cluster) throw new Error('the CMK cluster must be served');
    crusoe?.stop(); // Real sockets from here on.
    const server = createHttpsServer(
      { cert: cluster.certPem, key: cluster.keyPem.reveal(), ca: cluster.caPem, requestCert: true, rejectUnauthorized: true },
      (_req, res) => res.end('ok'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: (server.address() as AddressInfo).port,
            path: '/readyz',
            servername: cluster.host,
            ca: admin.caPem,
            cert: admin.clientCertificatePem,
            key: admin.clientKeyPem?.reveal(),
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('ok');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('is not served once the cloud deletes the control plane', async () => {
    const { world, provider } = await cmkWorld();
    expect(clusterTls(world).clusters.map((c) => c.name)).toEqual([id]);
    expect((await provider.managedKubernetes.deleteCluster({ clusterId: id, name: id, region })).status).toBe('pending');
    expect(clusterTls(world)).toEqual({
      clusters: [],
      problems: [{ name: id, endpoint: `${id}.crusoecloudcompute.com:6443`, message: 'its API does not answer (no control plane is running)' }],
    });
  });
});
