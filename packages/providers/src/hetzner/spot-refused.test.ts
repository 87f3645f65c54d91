// Hetzner Cloud has no spot servers: a spot node request is refused before any call, never made as an on-demand server
// at a price the user did not choose (the manifest rules refuse `spot` on Hetzner pools first).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { isKubeplaneError, Redacted } from '@kubeplane/sdk';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { HetznerProvider } from './provider.js';

const requests: string[] = [];
const server = setupServer();
server.events.on('request:start', ({ request }) => requests.push(`${request.method} ${request.url}`));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

it('refuses a spot node as invalid, with no call to the API', async () => {
  const provider = new HetznerProvider({ token: Redacted.of('t'), project: 'p', clock: new VirtualClock() });
  const refused = await provider.compute
    .createNode({
      name: 'lab-abc1234-batch-01',
      clusterId: 'lab-abc1234',
      nodepool: 'batch',
      region: 'fsn1',
      serverType: 'cpx32',
      image: 'ubuntu-24.04',
      userData: '#cloud-config\n',
      spot: true,
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(isKubeplaneError(refused) && [refused.kind, refused.message]).toEqual(['invalid', expect.stringContaining('Hetzner Cloud has no spot servers')]);
  expect(requests).toEqual([]);
});
