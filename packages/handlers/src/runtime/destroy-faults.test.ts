// A deletion that cannot finish says so: permanent auth failures on each cloud, and a cloud that answers 5xx for
// good, end the destroy in ERROR (never DELETED, never a deletion that spins for ever), keep the kubeconfig of what
// still runs, and leave everything to the next destroy, which finishes once the cloud answers again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DELETION_CEILING_SECONDS } from '@kubeplane/sdk/internal';
import { validateManifestText, type EngineEvent, type Manifest } from '@kubeplane/sdk';
import type { CloudName, FaultRule } from '@kubeplane/sandbox';
import { accessPolicy } from '../aws/access.js';
import { createApiCore } from './api.js';
import { jsonLogger } from './logger.js';
import { createSandboxKubeplane } from './embed.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const example = (file: string): Manifest => {
  const r = validateManifestText(readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'examples', file), 'utf8'));
  return r.manifests[0] as Manifest;
};

/**
 * Applies the example, then destroys it once per fault in turn (each cloud failing for good in its turn), and finally
 * with the clouds healthy. Every faulted destroy must end in ERROR with the kubeconfig kept and the cluster's
 * resources still in the clouds; the last one must leave nothing.
 */
async function destroyThroughFaults(file: string, faults: Array<{ cloud: CloudName; kind: FaultRule['kind']; expect: RegExp }>): Promise<void> {
  const manifest = example(file);
  const rt = await createSandboxKubeplane({ seed: 7 });
  try {
    const { kubeplane: kp, sandbox } = rt;
    await kp.apply(manifest);
    await kp.run();
    const cluster = Object.keys((await kp.status(manifest.name)).clusters)[0] as string;
    const id = (await kp.status(manifest.name)).clusters[cluster]?.id;
    const ours = () => sandbox.inventory().filter((i) => i.clusterId === id);
    // The serverless API's status is the same truth: what a serverless user's CI polls.
    const api = createApiCore({
      kubeplane: kp,
      access: accessPolicy([{ principal: 'arn:aws:iam::123456789012:user/ci', projects: [manifest.name], role: 'reader' }], 'test'),
      logger: jsonLogger(() => undefined),
      refusedSecretRefs: () => [],
    });
    const apiStatus = async () => {
      const r = await api({
        method: 'GET',
        path: `/projects/${manifest.name}`,
        body: undefined,
        caller: { id: 'arn:aws:iam::123456789012:user/ci', sourceIp: undefined },
      });
      return { status: r.status, body: JSON.parse(r.body) as { state?: string } };
    };
    for (const fault of faults) {
      sandbox.faults.clear();
      sandbox.faults.add({ cloud: fault.cloud, operation: '*', kind: fault.kind });
      const before = ours().length;
      await kp.destroy(manifest.name);
      await kp.run();
      const status = await kp.findStatus(manifest.name);
      expect(status?.state, `${fault.cloud} ${fault.kind}`).toBe('ERROR');
      expect(status?.clusters[cluster]?.state).toBe('ERROR');
      expect(status?.clusters[cluster]?.message).toMatch(fault.expect);
      expect(await apiStatus()).toMatchObject({ status: 200, body: { state: 'ERROR' } });
      expect(sandbox.faults.fired.some((f) => f.cloud === fault.cloud)).toBe(true);
      // What still runs keeps its credentials.
      expect((await kp.kubeconfig(manifest.name, cluster)).reveal()).toContain('client-key-data');
      expect(ours().length).toBeGreaterThan(0);
      expect(ours().length).toBeLessThanOrEqual(before);
    }
    sandbox.faults.clear();
    await kp.destroy(manifest.name);
    await kp.run();
    expect(await kp.findStatus(manifest.name)).toBeNull();
    expect((await apiStatus()).status).toBe(404);
    expect(ours()).toEqual([]);
  } finally {
    await rt.close();
  }
}

describe('destroy under permanent faults ends in ERROR and keeps everything for the next destroy', () => {
  it('Hetzner refusing the token', async () => {
    await destroyThroughFaults('minimal.yaml', [{ cloud: 'hetzner', kind: 'auth', expect: /teardown: .*(unauthorized|token)/i }]);
  }, 60_000);

  it('Route 53, then EC2, then Hetzner refusing the credentials, one after the other', async () => {
    await destroyThroughFaults('hybrid-aws-hetzner.yaml', [
      { cloud: 'route53', kind: 'auth', expect: /delete-dns: /i },
      { cloud: 'ec2', kind: 'auth', expect: /teardown: /i },
      { cloud: 'hetzner', kind: 'auth', expect: /teardown: /i },
    ]);
  }, 120_000);

  it('Cloudflare, then Crusoe refusing the credentials', async () => {
    await destroyThroughFaults('crusoe-cmk.yaml', [
      { cloud: 'cloudflare', kind: 'auth', expect: /delete-dns: /i },
      { cloud: 'crusoe', kind: 'auth', expect: /teardown: /i },
    ]);
  }, 120_000);

  it('one cloud failing for good holds up nothing in the others: their resources are deleted meanwhile', async () => {
    // Regions are torn down in name order (aws-1/… before hetzner-1/…): EC2 answering 5xx must not keep the Hetzner
    // servers, network and firewalls of the same cluster alive until the deletion ceiling.
    const manifest = example('hybrid-aws-hetzner.yaml');
    const rt = await createSandboxKubeplane({ seed: 7 });
    try {
      const { kubeplane: kp, sandbox } = rt;
      await kp.apply(manifest);
      await kp.run();
      const id = (await kp.status(manifest.name)).clusters['hybrid']?.id;
      const ours = (cloud: string) => sandbox.inventory().filter((i) => i.clusterId === id && i.cloud === cloud);
      expect(ours('hetzner').length).toBeGreaterThan(0);
      sandbox.faults.add({ cloud: 'ec2', operation: '*', kind: 'server-error' });
      await kp.destroy(manifest.name);
      await kp.run();
      expect((await kp.findStatus(manifest.name))?.state).toBe('ERROR');
      expect(ours('ec2').length).toBeGreaterThan(0);
      expect(ours('hetzner')).toEqual([]);
      sandbox.faults.clear();
      await kp.destroy(manifest.name);
      await kp.run();
      expect(await kp.findStatus(manifest.name)).toBeNull();
      expect(sandbox.inventory().filter((i) => i.clusterId === id)).toEqual([]);
    } finally {
      await rt.close();
    }
  }, 120_000);

  it('a cloud that answers 5xx for good: retried with visible attempts, then ERROR within the documented ceiling', async () => {
    const manifest = example('minimal.yaml');
    const rt = await createSandboxKubeplane({ seed: 7 });
    try {
      const { kubeplane: kp, sandbox } = rt;
      await kp.apply(manifest);
      await kp.run();
      sandbox.faults.add({ cloud: 'hetzner', operation: '*', kind: 'server-error' });
      const waits: Array<Extract<EngineEvent, { type: 'waiting' }>> = [];
      const off = kp.on((e) => {
        if (e.type === 'waiting') waits.push(e);
      });
      const started = rt.clock.now();
      await kp.destroy('minimal');
      await kp.run();
      off();
      const status = await kp.findStatus('minimal');
      expect(status?.state).toBe('ERROR');
      expect(status?.clusters.minimal?.message).toMatch(
        /^teardown: resources of minimal are still present; left, as last recorded: machine minimal-\S+-control-01, .*; resources tagged kubeplane.dev\/cluster-id=\S+ are left in the clouds: run destroy again to retry \(step teardown gave up after \d+ h; its last attempt: .*(5\d\d|server)/i,
      );
      expect(status?.clusters.minimal?.message).toContain(`gave up after ${DELETION_CEILING_SECONDS / 3600} h`);
      // Within the ceiling and a last backoff (at most 5 minutes), in virtual time.
      expect(rt.clock.now() - started).toBeLessThan((DELETION_CEILING_SECONDS + 400) * 1000);
      const failing = waits.filter((w) => w.failures > 0);
      expect(failing.length).toBeGreaterThan(5);
      expect(failing.at(-1)?.attempt).toBeGreaterThan(failing[0]?.attempt ?? 0);
      sandbox.faults.clear();
      await kp.destroy('minimal');
      await kp.run();
      expect(await kp.findStatus('minimal')).toBeNull();
      expect(sandbox.inventory()).toEqual([]);
    } finally {
      await rt.close();
    }
  }, 60_000);
  it('a cloud that throttles for good without saying until when: backs off to the ceiling, not a request a second', async () => {
    const manifest = example('minimal.yaml');
    const rt = await createSandboxKubeplane({ seed: 7 });
    try {
      const { kubeplane: kp, sandbox } = rt;
      await kp.apply(manifest);
      await kp.run();
      // A 429 without RateLimit headers: the client's own budget waits in turn with the throttles.
      sandbox.faults.add({ cloud: 'hetzner', operation: '*', kind: 'throttled-no-headers' });
      const started = rt.clock.now();
      await kp.destroy('minimal');
      await kp.run();
      const status = await kp.findStatus('minimal');
      expect(status?.state).toBe('ERROR');
      expect(status?.clusters.minimal?.message).toContain(`gave up after ${DELETION_CEILING_SECONDS / 3600} h`);
      expect(rt.clock.now() - started).toBeLessThan((DELETION_CEILING_SECONDS + 400) * 1000);
      // Four hours of backoff capped at five minutes is about fifty attempts, not one a second (14,400).
      const throttled = sandbox.faults.fired.filter((f) => f.cloud === 'hetzner').length;
      expect(throttled).toBeGreaterThan(DELETION_CEILING_SECONDS / 300 / 2);
      expect(throttled).toBeLessThan(400);
      sandbox.faults.clear();
      await kp.destroy('minimal');
      await kp.run();
      expect(await kp.findStatus('minimal')).toBeNull();
      expect(sandbox.inventory()).toEqual([]);
    } finally {
      await rt.close();
    }
  }, 60_000);
});
