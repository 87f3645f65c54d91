// The three functions as the deploy's entry module registers them (registerGcpFunctions, built lazily from the
// environment), on the sandbox's Google emulators: a manifest POSTed to kubeplaneApi becomes a Cloud Tasks task, which
// the emulator's push side delivers to kubeplaneStep over HTTP; the step runs on Firestore and Secret Manager and
// queues the next task. The clouds are a catalog only (the first step asks nothing else).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setupServer } from 'msw/node';
import { OAuth2Client } from 'google-auth-library';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { done, VirtualClock, type Provider } from '@kubeplane/sdk/provider';
import { GoogleCloudEmulators } from '@kubeplane/sandbox';
import { GCP_FUNCTION_NAMES, registerGcpFunctions } from './register.js';
import { gcpRuntimeFromEnv, type GcpRuntime } from './runtime.js';

const catalogOnly = {
  name: 'hetzner',
  compute: {
    zones: async () => done([{ name: 'fsn1-dc14', region: 'fsn1' }]),
    serverTypes: async () => done([{ name: 'cpx22', vcpus: 2, memoryGiB: 4, architecture: 'x86_64' as const }]),
    images: async () => done([{ id: '1', name: 'ubuntu-24.04', architecture: 'x86_64' as const }]),
  },
} as unknown as Provider;

const clock = new VirtualClock(Date.now());
const google = new GoogleCloudEmulators({ clock });
const server = setupServer(...google.handlers());
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });
const env: Record<string, string> = {
  GOOGLE_CLOUD_PROJECT: google.project,
  KUBEPLANE_LOCATION: google.location,
  KUBEPLANE_TASKS_QUEUE: 'kubeplane-steps',
  KUBEPLANE_TASKS_SERVICE_ACCOUNT: 'kubeplane-tasks@kubeplane-sandbox.iam.gserviceaccount.com',
  KUBEPLANE_MAX_ATTEMPTS: '5',
  KUBEPLANE_ACCESS: JSON.stringify([{ principal: 'ops@example.com', projects: ['*'], role: 'operator' }]),
};
let runtime: GcpRuntime | undefined;
const servers: Server[] = [];
const urls: Record<string, string> = {};

beforeAll(async () => {
  server.listen({ onUnhandledRequest: (req, print) => (new URL(req.url).hostname === '127.0.0.1' ? undefined : print.error()) });
  // Registered before the step function's URL is known: the runtime is built on the first request.
  registerGcpFunctions(
    () =>
      (runtime ??= gcpRuntimeFromEnv(env, {
        authClient,
        clock,
        providers: () => Promise.resolve(catalogOnly),
        kubernetes: () => {
          throw new Error('no clusters here');
        },
      })),
    {
      log: () => undefined,
      child() {
        return this;
      },
    },
  );
  for (const name of Object.values(GCP_FUNCTION_NAMES)) {
    const srv = getTestServer(name);
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    servers.push(srv);
    urls[name] = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  }
  env.KUBEPLANE_STEP_URL = `${urls[GCP_FUNCTION_NAMES.step]}/`;
  google.tasks.createQueue(`projects/${google.project}/locations/${google.location}/queues/kubeplane-steps`, { maxAttempts: 5, minBackoffSeconds: 1 });
});
afterAll(() => {
  for (const s of servers) s.close();
  server.close();
});

const token = `Bearer ${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{"email":"ops@example.com"}').toString('base64url')}.SIGNATURE_REMOVED_BY_GOOGLE`;

/** Cloud Tasks' backend: every due task POSTed to its URL, its outcome reported back. */
async function dispatchDue(): Promise<number[]> {
  const statuses: number[] = [];
  for (const d of google.tasks.takeDue(10)) {
    const res = await fetch(d.url, { method: d.method, headers: d.headers, body: d.body });
    await res.arrayBuffer();
    statuses.push(res.status);
    google.tasks.complete(d.task, { status: res.status });
  }
  return statuses;
}

describe('registerGcpFunctions', () => {
  it('runs a manifest applied through kubeplaneApi as Cloud Tasks tasks pushed to kubeplaneStep', async () => {
    const manifest = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: team-a }
providers:
  - name: hetzner-1
    providerType: hetzner
    secretRef: { gcpSecretManager: { secret: kubeplane-providers-team-a-hetzner } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - { name: a, version: "1.34.2", network: 10.0.0.0/24, pools: { control: [control], compute: [] } }
`;
    const applied = await fetch(`${urls[GCP_FUNCTION_NAMES.api]}/projects`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/yaml' },
      body: manifest,
    });
    expect(applied.status).toBe(202);
    expect(google.tasks.size()).toBe(1);
    // The first step (preflight) runs and queues the next one, as a new task.
    expect(await dispatchDue()).toEqual([200]);
    expect(google.tasks.size()).toBe(1);
    const status = await runtime!.kubeplane.status('team-a');
    expect(status.clusters.a?.state).toBe('IN_PROGRESS');
    expect(google.counts().firestore.writes).toBeGreaterThan(0);
  });

  it('answers the watchdog with its report', async () => {
    const res = await fetch(`${urls[GCP_FUNCTION_NAMES.watchdog]}/`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ requeued: [], deadLetters: [] });
  });
});
