// A reconcile repairs what someone did to the machines in a console, as the cloud shows it: an instance shutting down
// or stopped is no node of its pool (it is replaced, never adopted again), a replaced load balancer's Route 53 health
// check goes with its machine, and status says how many machines ran when the engine last read them, and when.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EC2Client, StopInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, validateManifestText, type Manifest, type StepEvent } from '@kubeplane/sdk';
import { SANDBOX_CREDENTIALS } from './accounts.js';
import { holdManifestDnsZones } from './manifest-zones.js';
import { sandboxKubernetes, sandboxProviders } from './providers.js';
import { Sandbox } from './sandbox.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const open: Sandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** One AWS control plane and two workers; with `lbs`, that many load-balancer machines behind drift.example.com. */
function manifest(lbs = 0): Manifest {
  const pool = (name: string, count: number, type: string) => `
    - name: ${name}
      providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }
      count: ${count}
      serverType: ${type}
      image: ami-0965bd5ba4d59211c`;
  const text = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata:
  name: drift
providers:
  - name: aws-1
    providerType: aws
    secretRef:
      env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY }
nodePools:
  dynamic:${pool('control', 1, 't3.medium')}${pool('workers', 2, 't3.large')}${lbs ? pool('lb', lbs, 't3.small') : ''}
kubernetes:
  clusters:
    - name: drift
      version: "1.34.2"
      network: 10.0.0.0/24
      pools:
        control: [control]
        compute: [workers]
${
  lbs
    ? `loadBalancers:
  roles:
    - { name: apiserver, protocol: tcp, port: 6443, targetPort: 6443, targetPools: [control] }
  clusters:
    - name: drift-lb
      roles: [apiserver]
      dns: { dnsZone: example.com, provider: aws-1, hostname: drift }
      targetedK8s: drift
      pools: [lb]
`
    : ''
}`;
  const r = validateManifestText(text);
  expect(r.errors).toEqual([]);
  return r.manifests[0] as Manifest;
}

async function world(m: Manifest, project = 'drift') {
  const sandbox = new Sandbox({ seed: 7 }).listen();
  open.push(sandbox);
  holdManifestDnsZones(sandbox, m);
  const clock = sandbox.clock;
  const kp = new Kubeplane({
    state: new MemoryStateStore(),
    secrets: new MemorySecretStore(),
    queue: new MemoryQueue<StepEvent>({ clock, visibilityTimeoutSeconds: 120 }),
    lease: new MemoryLease(clock),
    clock,
    providers: sandboxProviders(sandbox),
    kubernetes: sandboxKubernetes(sandbox),
  });
  const settle = async () => {
    expect((await kp.run({ maxMessages: 20_000 })).stopped).toBe('idle');
    return (await kp.status(project)).clusters[project];
  };
  await kp.apply(m);
  expect((await settle())?.state).toBe('DONE');
  return { sandbox, kp, settle };
}

const ec2 = () =>
  new EC2Client({
    region: 'eu-central-1',
    credentials: { accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId, secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
    maxAttempts: 1,
  });

/** The EC2 instances of a pool that run, by the node name they carry. */
function running(sandbox: Sandbox, pool: string): Array<{ name: string; id: string; ip?: string }> {
  return sandbox
    .listVms()
    .filter((v) => v.cloud === 'ec2' && v.state === 'running' && v.name.includes(`-${pool}-`))
    .flatMap((v) => (v.id === undefined ? [] : [{ name: v.name, id: v.id, ...(v.publicIPv4 ? { ip: v.publicIPv4 } : {}) }]))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe('a reconcile reads the machines from the cloud', () => {
  it('replaces a worker someone terminated in the console while it is still shutting down', async () => {
    const { sandbox, kp, settle } = await world(manifest());
    const [victim, other] = running(sandbox, 'workers');
    if (!victim || !other) throw new Error('two workers expected');
    const terminated = await ec2().send(new TerminateInstancesCommand({ InstanceIds: [victim.id] }));
    expect(terminated.TerminatingInstances?.[0]?.CurrentState?.Name).toBe('shutting-down');

    await kp.reconcile('drift');
    const status = await settle();
    expect(status?.state, status?.message).toBe('DONE');
    const workers = running(sandbox, 'workers');
    // The node's replacement runs under its name; the instance shutting down was not taken for it.
    expect(workers.map((w) => w.name)).toEqual([victim.name, other.name]);
    expect(workers.map((w) => w.id)).not.toContain(victim.id);
    expect(status?.pools?.find((p) => p.name === 'workers')).toMatchObject({ target: 2, running: 2 });
  });

  it('replaces a worker someone stopped: the stopped instance is terminated, a new one runs in its place', async () => {
    const { sandbox, kp, settle } = await world(manifest());
    const [victim] = running(sandbox, 'workers');
    if (!victim) throw new Error('a worker expected');
    const stopped = await ec2().send(new StopInstancesCommand({ InstanceIds: [victim.id] }));
    expect(stopped.StoppingInstances?.[0]?.CurrentState?.Name).toBe('stopping');

    await kp.reconcile('drift');
    const status = await settle();
    expect(status?.state, status?.message).toBe('DONE');
    expect(running(sandbox, 'workers').map((w) => w.name)).toContain(victim.name);
    expect(running(sandbox, 'workers').map((w) => w.id)).not.toContain(victim.id);
    expect(running(sandbox, 'workers')).toHaveLength(2);
    // Not left stopped (billed for its disk, and able to start again under a name its replacement now has).
    expect(sandbox.listVms().find((v) => v.id === victim.id)?.state).toBe('terminated');
    expect(status?.pools?.find((p) => p.name === 'workers')).toMatchObject({ target: 2, running: 2 });
  });

  it('leaves a stopped control plane as it is and says to start it again: its disk holds etcd', async () => {
    const { sandbox, kp, settle } = await world(manifest());
    const [control] = running(sandbox, 'control');
    await ec2().send(new StopInstancesCommand({ InstanceIds: [control?.id ?? ''] }));

    await kp.reconcile('drift');
    const status = await settle();
    expect(status?.state).toBe('ERROR');
    expect(status?.message).toMatch(
      /control-plane machine drift-\w+-control-01 is stopped on aws-1 in eu-central-1 \(outside kubeplane\); start it again and reconcile/,
    );
    sandbox.clock.advance(60_000);
    expect(sandbox.listVms().find((v) => v.id === control?.id)?.state).toBe('stopped');
  });

  it('replaces a Hetzner server someone powered off', async () => {
    const minimal = validateManifestText(readFileSync(join(import.meta.dirname, '..', '..', '..', 'examples', 'minimal.yaml'), 'utf8'))
      .manifests[0] as Manifest;
    const { sandbox, kp, settle } = await world(minimal, 'minimal');
    const victim = [...sandbox.hetzner.servers.values()].find((s) => s.name.includes('-workers-'));
    if (!victim) throw new Error('a worker expected');
    const off = await fetch(`https://api.hetzner.cloud/v1/servers/${victim.id}/actions/poweroff`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SANDBOX_CREDENTIALS.hetznerToken}` },
    });
    expect(off.status).toBe(201);

    await kp.reconcile('minimal');
    const status = await settle();
    expect(status?.state, status?.message).toBe('DONE');
    const workers = sandbox.listVms().filter((v) => v.cloud === 'hetzner' && v.name.includes('-workers-'));
    expect(workers.map((w) => [w.name, w.state])).toContainEqual([victim.name, 'running']);
    expect(workers.map((w) => w.id)).not.toContain(String(victim.id));
    expect(status?.pools?.find((p) => p.name === 'workers')).toMatchObject({ target: 2, running: 2 });
  });

  it('says how many machines ran when it last read them, and when', async () => {
    const { sandbox, kp, settle } = await world(manifest());
    const readAt = (await kp.status('drift')).clusters['drift']?.pools?.find((p) => p.name === 'workers')?.readAt;
    expect(readAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Terminated behind kubeplane's back: status calls no cloud, so it still reports the last read, with its time.
    const [victim] = running(sandbox, 'workers');
    await ec2().send(new TerminateInstancesCommand({ InstanceIds: [victim?.id ?? ''] }));
    sandbox.clock.advance(3_600_000);
    expect((await kp.status('drift')).clusters['drift']?.pools?.find((p) => p.name === 'workers')).toMatchObject({ running: 2, readAt });
    await kp.reconcile('drift');
    await settle();
    const after = (await kp.status('drift')).clusters['drift']?.pools?.find((p) => p.name === 'workers');
    expect(after?.running).toBe(2);
    expect(Date.parse(after?.readAt ?? '')).toBeGreaterThan(Date.parse(readAt ?? ''));
  });
});

describe('Route 53 health checks follow their load-balancer machines', () => {
  /** The zone's record sets of the load balancer's name, and the account's health checks, by address. */
  function dnsOf(sandbox: Sandbox) {
    const zone = [...sandbox.route53.zones.values()].find((z) => z.name.replace(/\.$/, '') === 'example.com');
    const sets = (zone?.records ?? []).filter((r) => r.name.replace(/\.$/, '') === 'drift.example.com' && r.type === 'A');
    const checks = [...sandbox.route53.healthChecks.values()];
    return { sets, checks, checkIps: checks.map((c) => c.ip).sort() };
  }

  it('deletes the check of a replaced machine and of one scaled away, keeping one per live machine', async () => {
    const { sandbox, kp, settle } = await world(manifest(2));
    const before = running(sandbox, 'lb');
    expect(before).toHaveLength(2);
    expect(dnsOf(sandbox).checkIps).toEqual(before.map((l) => l.ip).sort());

    // The first load balancer is deleted in the console; the reconcile makes it again, with a new address.
    const [victim] = before;
    await ec2().send(new TerminateInstancesCommand({ InstanceIds: [victim?.id ?? ''] }));
    await kp.reconcile('drift');
    expect((await settle())?.state).toBe('DONE');
    const after = running(sandbox, 'lb');
    expect(after.map((l) => l.name)).toEqual(before.map((l) => l.name));
    expect(after.map((l) => l.ip)).not.toContain(victim?.ip);
    const dns = dnsOf(sandbox);
    expect(dns.checkIps).toEqual(after.map((l) => l.ip).sort());
    expect(dns.sets.map((s) => s.healthCheckId).sort()).toEqual(dns.checks.map((c) => c.id).sort());

    // One load balancer fewer: its record set and its check go too.
    await kp.apply(manifest(1));
    expect((await settle())?.state).toBe('DONE');
    const one = running(sandbox, 'lb');
    expect(one).toHaveLength(1);
    const last = dnsOf(sandbox);
    expect(last.checkIps).toEqual(one.map((l) => l.ip));
    expect(last.sets.map((s) => s.values)).toEqual([one.map((l) => l.ip)]);
  });
});
