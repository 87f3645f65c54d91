// The generic object operations against the sandbox's Kubernetes emulator, as the addons step uses them: the helm-controller's objects (CRDs first), a HelmChart
// of the established CRD, read back, listed by kubeplane's label and deleted.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { helmChartObject, helmControllerObjects, MANAGED_SELECTOR, type RenderedCluster } from '@kubeplane/sdk/internal';
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { KubernetesApi } from '@kubeplane/sdk';
import { KubernetesEmulator } from '@kubeplane/sandbox';
import { FakeVms, goldenCluster, publicAddresses, RENDER_NOW, renderGolden, sandboxContext } from '@kubeplane/sandbox/testing';
import { kubernetesConnector } from './client.js';

let rendered: RenderedCluster;
let api: KubernetesApi;
const server = setupServer();

beforeAll(async () => {
  ({ rendered } = await renderGolden());
  server.listen({ onUnhandledRequest: 'error' });
});
afterAll(() => server.close());

beforeEach(() => {
  const clock = new VirtualClock(RENDER_NOW.getTime());
  const vms = new FakeVms(clock, publicAddresses(goldenCluster()));
  const emulator = new KubernetesEmulator(sandboxContext(clock), { vms });
  server.resetHandlers(...emulator.handlers());
  // The API load balancer and the first control plane behind it.
  for (const name of ['lb-1', 'aws-cp-1']) {
    const node = rendered.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no ${name} in the golden cluster`);
    vms.run(node);
  }
  clock.advance(300_000);
  api = kubernetesConnector({ clock })(rendered.pki.secret.adminKubeconfig);
});

describe('HelmCharts on the sandbox API server', () => {
  it('applies the helm-controller and a HelmChart, reads it back, lists it by label and deletes it', async () => {
    for (const object of helmControllerObjects()) await api.applyObject(object);
    const chart = helmChartObject('metrics_server', '3.13.0', { replicas: 1 });
    await api.applyObject(chart);
    const stored = await api.getObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'metrics-server');
    expect(stored?.['spec']).toMatchObject({ chart: 'metrics-server', version: '3.13.0', targetNamespace: 'kube-system' });
    expect((await api.listObjects('helm.cattle.io/v1', 'HelmChart', 'kube-system', MANAGED_SELECTOR)).map((c) => c.metadata.name)).toEqual(['metrics-server']);
    await api.deleteObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'metrics-server');
    await api.deleteObject('helm.cattle.io/v1', 'HelmChart', 'kube-system', 'metrics-server');
  });
});
