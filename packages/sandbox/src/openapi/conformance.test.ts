import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getResponse, http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CRUSOE_SANDBOX_CLOUD } from '../crusoe/cloud.js';
import { HETZNER_SANDBOX_CLOUD } from '../hetzner/cloud.js';
import { CONFORMANCE_DIR_ENV, conformanceChecked, type RecordedViolation } from './conformance.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function recorded(): Promise<RecordedViolation[]> {
  const files = await readdir(dir);
  const lines = (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))).join('').split('\n').filter(Boolean);
  return lines.map((l) => JSON.parse(l) as RecordedViolation);
}

describe('response conformance of the emulators with vendor documents', () => {
  it('records a response that breaks the document, with its operation and pointer, and passes it on unchanged', async () => {
    const handlers = conformanceChecked(
      HETZNER_SANDBOX_CLOUD,
      [http.get('https://api.hetzner.cloud/v1/locations/:id', () => HttpResponse.json({ location: { id: 1, name: 'fsn1' } }))],
      { [CONFORMANCE_DIR_ENV]: dir },
    );
    const response = await getResponse(handlers, new Request('https://api.hetzner.cloud/v1/locations/1'));
    expect(await response?.json()).toEqual({ location: { id: 1, name: 'fsn1' } });
    const violations = await recorded();
    expect(violations.length).toBeGreaterThan(0);
    expect(violations[0]).toMatchObject({
      cloud: 'hetzner',
      operation: 'GET /locations/{id}',
      status: 200,
      pointer: '/location',
      request: 'GET /v1/locations/1',
    });
  });

  it("records nothing for a conforming response, and leaves the cloud's other hosts to their handlers", async () => {
    const location = {
      id: 1,
      name: 'fsn1',
      description: 'Falkenstein DC Park 1',
      country: 'DE',
      city: 'Falkenstein',
      latitude: 50.47612,
      longitude: 12.370071,
      network_zone: 'eu-central',
    };
    const handlers = conformanceChecked(
      CRUSOE_SANDBOX_CLOUD,
      [
        http.get('https://api.hetzner.cloud/v1/locations/:id', () => HttpResponse.json({ location })),
        http.get('https://cluster.crusoe.example/healthz', () => HttpResponse.text('ok')),
      ],
      { [CONFORMANCE_DIR_ENV]: dir },
    );
    expect(await (await getResponse(handlers, new Request('https://cluster.crusoe.example/healthz')))?.text()).toBe('ok');
    const hetzner = conformanceChecked(HETZNER_SANDBOX_CLOUD, [http.get('https://api.hetzner.cloud/v1/locations/:id', () => HttpResponse.json({ location }))], {
      [CONFORMANCE_DIR_ENV]: dir,
    });
    await getResponse(hetzner, new Request('https://api.hetzner.cloud/v1/locations/1'));
    expect(await recorded()).toEqual([]);
  });

  it('is the handlers themselves when conformance is off', () => {
    const handlers = [http.get('https://api.hetzner.cloud/v1/x', () => HttpResponse.json({}))];
    expect(conformanceChecked(HETZNER_SANDBOX_CLOUD, handlers, {})).toBe(handlers);
  });
});
