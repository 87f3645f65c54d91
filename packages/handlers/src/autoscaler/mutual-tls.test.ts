// The adapter outside the cluster over mutual TLS, as cluster-autoscaler's externalgrpc dials it with the cloud-config's
// cert, key and cacert and checks the server for the address's host: the cluster's client certificate is served; no
// certificate, one from another CA, or a server certificate for another host are refused in the handshake.
import { afterEach, describe, expect, it } from 'vitest';
import { adapterServingTls, freshKeyPairs, newAutoscalerTls, systemRandomSource } from '@kubeplane/sdk/internal';
import type { ScalingBackend } from './backend.js';
import { cloudProviderClient, type ClientTls, type CloudProviderClient } from './client.js';
import { serveAutoscalerAdapter, type RunningAdapter } from './server.js';

const backend: ScalingBackend = { describe: 'demo/demo (test)', nodeGroups: async () => [], scalePool: async () => {} };
const options = () => ({ random: systemRandomSource(), now: new Date('2026-12-01T00:00:00Z') });
let adapter: RunningAdapter | undefined;
const clients: CloudProviderClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await adapter?.close();
  adapter = undefined;
});

async function serveFor(host: string) {
  const cluster = await newAutoscalerTls('demo', freshKeyPairs, options());
  const serving = await adapterServingTls(cluster, { host, port: 8086 }, freshKeyPairs, options());
  adapter = await serveAutoscalerAdapter({
    backend,
    listen: '127.0.0.1:0',
    tls: { caCertificate: serving.caCertificate, certificate: serving.certificate, key: serving.key.reveal() },
  });
  const clientTls: ClientTls = {
    caCertificate: cluster.caCertificate,
    certificate: cluster.clientCertificate,
    key: cluster.clientKey.reveal(),
    serverName: host,
  };
  return { cluster, clientTls, address: adapter.address };
}

const connect = (address: string, tls?: ClientTls) => {
  const c = cloudProviderClient(address, tls);
  clients.push(c);
  return c;
};

describe('the autoscaler adapter over mutual TLS', () => {
  it("answers the cluster's client certificate, checked for the adapter address's host (an IP or a name)", async () => {
    for (const host of ['203.0.113.10', 'adapter.example.com']) {
      const { clientTls, address } = await serveFor(host);
      await expect(connect(address, clientTls).gpuLabel()).resolves.toBe('nvidia.com/gpu.present');
      await adapter?.close();
    }
  });

  it('refuses a caller without a client certificate, one from another CA, and a server named for another host', async () => {
    const { clientTls, address } = await serveFor('203.0.113.10');
    await expect(connect(address).gpuLabel()).rejects.toThrow(/UNAVAILABLE/);
    const other = await newAutoscalerTls('other', freshKeyPairs, options());
    const stranger = { ...clientTls, certificate: other.clientCertificate, key: other.clientKey.reveal() };
    await expect(connect(address, stranger).gpuLabel()).rejects.toThrow(/UNAVAILABLE/);
    await expect(connect(address, { ...clientTls, serverName: '203.0.113.99' }).gpuLabel()).rejects.toThrow(/UNAVAILABLE/);
  });
});
