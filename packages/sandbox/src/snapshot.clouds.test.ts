// A snapshot holds each sandbox cloud's state under `clouds`, by the cloud's name (the registry's), so that a cloud
// joining the sandbox needs no new snapshot version: a snapshot without a cloud restores that cloud empty.
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { SANDBOX_CLOUDS } from './clouds/index.js';
import { Sandbox, SANDBOX_CREDENTIALS } from './sandbox.js';
import { asSandboxSnapshot, SANDBOX_SNAPSHOT_VERSION, type SandboxSnapshot } from './snapshot.js';

const open: Sandbox[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const roundTrip = (snapshot: SandboxSnapshot): SandboxSnapshot => asSandboxSnapshot(json(snapshot));

/** A world with something of its own in several clouds: an SSH key made through the Hetzner API, zones, an STS role. */
async function world(seed: number): Promise<Sandbox> {
  const s = new Sandbox({ seed, ec2Regions: ['eu-central-1', 'eu-west-1'] }).listen();
  open.push(s);
  const created = await fetch('https://api.hetzner.cloud/v1/ssh_keys', {
    method: 'POST',
    headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'snap-key', public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3eC6F8mgbVf1kEXnBFqQyrm0Ae4jMX0lCezHzDdJ3X snap' }),
  });
  expect(created.status).toBe(201);
  s.hetzner.addDnsZone('snap.example.de');
  s.route53.addZone('snap.example.com');
  s.cloudflare.addZone('snap.example.net');
  s.sts.addRole({ arn: 'arn:aws:iam::123456789012:role/snap' });
  s.clock.advance(60_000);
  return s;
}

describe('the clouds of a sandbox snapshot', () => {
  it('are every registered cloud, by its name, each with its own state', async () => {
    const s = await world(21);
    const snapshot = s.snapshot();
    expect(snapshot.v).toBe(SANDBOX_SNAPSHOT_VERSION);
    expect(Object.keys(snapshot.clouds)).toEqual(SANDBOX_CLOUDS.map((c) => c.name));
    for (const { cloud, emulator } of s.clouds) expect(json((snapshot.clouds as Record<string, unknown>)[cloud.name])).toEqual(json(cloud.state(emulator)));
    expect(snapshot.clouds.ec2?.map((e) => e.region)).toEqual(['eu-central-1', 'eu-west-1']);
  });

  it('round-trip through JSON: the restored sandbox has the same clouds, inventory and snapshot', async () => {
    const original = await world(22);
    const snapshot = roundTrip(original.snapshot());
    const restored = Sandbox.fromSnapshot(snapshot);
    open.push(restored);
    expect(json(restored.snapshot())).toEqual(json(snapshot));
    expect(restored.inventory()).toEqual(original.inventory());
    expect(restored.inventory()).toContainEqual(expect.objectContaining({ cloud: 'hetzner', kind: 'ssh-key', name: 'snap-key' }));
    expect([...restored.ec2Regions.keys()]).toEqual(['eu-central-1', 'eu-west-1']);
    expect([...restored.cloudflare.zones.values()].map((z) => z.name)).toContain('snap.example.net');
    expect(restored.sts.state().roles.map((r) => r.arn)).toContain('arn:aws:iam::123456789012:role/snap');
  });

  it('restores a cloud the snapshot lacks empty, as a new sandbox has it, and the others as they were', async () => {
    const original = await world(23);
    const { cloudflare: _cloudflare, sts: _sts, ec2: _ec2, ...clouds } = roundTrip(original.snapshot()).clouds;
    const restored = Sandbox.fromSnapshot({ ...roundTrip(original.snapshot()), clouds });
    open.push(restored);
    const fresh = new Sandbox({ seed: 23, clock: new VirtualClock(original.clock.now()) });
    open.push(fresh);
    // A cloud that was not in the snapshot (one that joined the sandbox after it was written) starts as a new one.
    expect(json(restored.cloudflare.state())).toEqual(json(fresh.cloudflare.state()));
    expect(json(restored.sts.state())).toEqual(json(fresh.sts.state()));
    expect([...restored.ec2Regions.keys()]).toEqual([...fresh.ec2Regions.keys()]);
    expect([...restored.cloudflare.zones.values()].map((z) => z.name)).not.toContain('snap.example.net');
    // The others continue.
    expect(json(restored.hetzner.state())).toEqual(json(original.hetzner.state()));
    expect(json(restored.route53.state())).toEqual(json(original.route53.state()));
    expect(restored.clock.now()).toBe(original.clock.now());
    // And the next snapshot has every cloud again.
    expect(Object.keys(restored.snapshot().clouds)).toEqual(SANDBOX_CLOUDS.map((c) => c.name));
  });

  it('is refused when it holds a cloud this kubeplane does not emulate, which the next save would drop', () => {
    const snapshot = json(new Sandbox().snapshot()) as SandboxSnapshot & { clouds: Record<string, unknown> };
    expect(() => asSandboxSnapshot({ ...snapshot, clouds: { ...snapshot.clouds, nimbus: {} } })).toThrow(
      /holds clouds this kubeplane does not emulate: nimbus\. Use the kubeplane that made it, or delete it/,
    );
    expect(() => asSandboxSnapshot({ ...snapshot, clouds: { ...snapshot.clouds, hetzner: null } })).toThrow(/has no state for the hetzner cloud/);
  });
});
