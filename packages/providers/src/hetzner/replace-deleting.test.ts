// A node made again while the server it replaces is still being deleted: Hetzner keeps the name taken until the
// deletion is over (server status `deleting`, hetzner-cloud-openapi.json), so the create is refused as a name clash.
// The provider must wait, not adopt the server on its way out. The sandbox deletes servers at once, so these
// answers are given here, in the API's words.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { CLUSTER_ID_TAG, NODEPOOL_TAG, VirtualClock } from '@kubeplane/sdk/provider';
import { Redacted } from '@kubeplane/sdk';
import { HetznerProvider } from './provider.js';
import { HETZNER_DEFAULT_BASE_URL } from './client.js';

const name = 'lab-abc1234-workers-01';
const server = setupServer(
  http.post(`${HETZNER_DEFAULT_BASE_URL}/servers`, () =>
    HttpResponse.json(
      { error: { code: 'uniqueness_error', message: 'server name is already used', details: { fields: [{ name: 'name' }] } } },
      { status: 409 },
    ),
  ),
  http.get(`${HETZNER_DEFAULT_BASE_URL}/servers`, () =>
    HttpResponse.json({
      servers: [
        {
          id: 42,
          name,
          status: 'deleting',
          created: '2026-01-01T00:00:00+00:00',
          labels: { [CLUSTER_ID_TAG]: 'lab-abc1234', [NODEPOOL_TAG]: 'workers' },
          server_type: { name: 'cpx32' },
          location: { name: 'fsn1', network_zone: 'eu-central' },
          public_net: { ipv4: { id: 7, ip: '203.0.113.7' }, firewalls: [] },
          private_net: [],
        },
      ],
      meta: { pagination: { page: 1, per_page: 50, previous_page: null, next_page: null, last_page: 1, total_entries: 1 } },
    }),
  ),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

it('waits for the server its node replaces to be deleted rather than adopting it', async () => {
  const provider = new HetznerProvider({ token: Redacted.of('t'), project: 'p', clock: new VirtualClock() });
  const outcome = await provider.compute.createNode({
    name,
    clusterId: 'lab-abc1234',
    nodepool: 'workers',
    region: 'fsn1',
    serverType: 'cpx32',
    image: 'ubuntu-24.04',
    userData: '#cloud-config\n',
  });
  expect(outcome).toMatchObject({ status: 'pending', reason: 'dependency' });
});
