// Static pools reach the user's machines as the manifest says: on the pool's sshPort, as each node's username. The
// sandbox's machines answer as a real sshd does, only on their port (another is refused) and only for their users
// (another fails to authenticate), so a wrong value fails with an error that names it. The static nodes carry the
// pool's labels, annotations and taints. In-process ssh2 machines (the fast tier); the e2e tier runs the real sshd ones.
import { afterEach, describe, expect, it } from 'vitest';
import { Kubeplane, MemoryLease, MemoryQueue, MemorySecretStore, MemoryStateStore, type StepEvent } from '@kubeplane/sdk';
import { holdManifestDnsZones, Sandbox, sandboxAddonCredentials, sandboxKubernetes, sandboxProviders } from '@kubeplane/sandbox';
import { manifestOf } from '../helpers/sandbox-world.js';

const CONTROL = '198.51.100.10';
const GPU = '198.51.100.20';

function manifest(o: { sshPort?: number; gpuUser?: string }): string {
  return `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: rack }
providers:
  - { name: hetzner-1, providerType: hetzner, secretRef: { env: { credentials: HCLOUD_TOKEN } } }
nodePools:
  static:
    - name: rack-control
      nodes:
        - { endpoint: ${CONTROL}, secretRef: { env: { privatekey: RACK_SSH_KEY } } }${o.sshPort ? `\n      sshPort: ${o.sshPort}` : ''}
    - name: rack-gpu
      nodes:
        - { endpoint: ${GPU}, secretRef: { env: { privatekey: RACK_SSH_KEY } }${o.gpuUser ? `, username: ${o.gpuUser}` : ''} }
      labels:
        nvidia.com/gpu.present: "true"
        example.com/rack: r12
      annotations:
        example.com/asset-tag: "A-1042"
      taints:
        - { key: nvidia.com/gpu, value: present, effect: NoSchedule }
  dynamic:
    - { name: api-lb, providerSpec: { name: hetzner-1, region: nbg1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - name: rack
      version: "1.34.2"
      network: 10.20.0.0/24
      pools:
        control: [rack-control]
        compute: [rack-gpu]
# A static control plane's API needs a load balancer in front: a reserved IP is a cloud's.
loadBalancers:
  roles:
    - { name: apiserver, protocol: tcp, port: 6443, targetPort: 6443, targetPools: [rack-control] }
  clusters:
    - { name: rack-api, roles: [apiserver], dns: { dnsZone: example.com, provider: hetzner-1, hostname: rack }, targetedK8s: rack, pools: [api-lb] }
`;
}

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The engine on a sandbox whose user has two machines: sshd on 2222 as root at CONTROL, on 22 as ubuntu at GPU. */
function world(seed: number) {
  const s = new Sandbox({ seed, staticMachines: 'in-process' }).listen();
  sandbox = s;
  s.staticMachines.addMachine({ endpoint: CONTROL, sshPort: 2222, users: ['root'] });
  s.staticMachines.addMachine({ endpoint: GPU, users: ['ubuntu'] });
  // The sandbox account holds the manifest's DNS zone, as the user's would.
  holdManifestDnsZones(s, manifestOf(manifest({})));
  const kp = new Kubeplane({
    state: new MemoryStateStore(),
    secrets: new MemorySecretStore(),
    queue: new MemoryQueue<StepEvent>({ clock: s.clock, visibilityTimeoutSeconds: 120 }),
    lease: new MemoryLease(s.clock),
    clock: s.clock,
    providers: sandboxProviders(s),
    kubernetes: sandboxKubernetes(s),
    addonCredentials: sandboxAddonCredentials(),
    machines: s.staticMachines.access(),
  });
  return { s, kp };
}

describe('static pools: sshPort, nodes[].username, labels and taints', () => {
  it("reaches each machine on the pool's sshPort as the node's username, and the static nodes carry the pool's labels, annotations and taints", async () => {
    const { s, kp } = world(61);
    await kp.apply(manifestOf(manifest({ sshPort: 2222, gpuUser: 'ubuntu' })));
    await kp.run();
    const status = await kp.status('rack');
    expect(status.state, JSON.stringify(status.clusters)).toBe('DONE');
    const nodes = await sandboxKubernetes(s)(await kp.kubeconfig('rack', 'rack')).listNodes();
    const gpu = nodes.find((n) => n.name.endsWith('-rack-gpu-01'));
    expect(gpu?.labels).toMatchObject({ 'nvidia.com/gpu.present': 'true', 'example.com/rack': 'r12', 'kubeplane.dev/pool': 'rack-gpu' });
    expect(gpu?.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
    expect(gpu?.annotations).toMatchObject({ 'example.com/asset-tag': 'A-1042' });
    const control = nodes.find((n) => n.name.endsWith('-rack-control-01'));
    expect(control?.labels).not.toHaveProperty('example.com/rack');
    expect(control?.annotations ?? {}).not.toHaveProperty('example.com/asset-tag');
    expect(s.staticMachines.leftovers(GPU)).toContain('/var/lib/kubeplane-static/user-data');
  });

  it("fails on a port the machine's sshd is not on: connection refused, naming the node, user, endpoint and port", async () => {
    const { s, kp } = world(62);
    // sshPort left out: 22, where nothing listens on the control machine.
    await kp.apply(manifestOf(manifest({ gpuUser: 'ubuntu' })));
    // A refused connection is retried (a machine may be rebooting) until the step's hour is up: the first retry says why.
    const reasons: string[] = [];
    const off = kp.on((e) => {
      if (e.type === 'waiting' && e.step === 'create-nodes' && /^retryable: /.test(e.reason)) reasons.push(e.reason);
    });
    await kp.run({ beforeMessage: () => reasons.length > 0 });
    off();
    const refused = new RegExp(
      `static node \\S+-rack-control-01 \\(root@${CONTROL.replaceAll('.', '\\.')}:22\\): cannot connect \\(connect ECONNREFUSED ${CONTROL.replaceAll('.', '\\.')}:22\\)`,
    );
    expect(reasons[0]).toMatch(refused);
    const status = await kp.status('rack');
    expect(status.state).toBe('IN_PROGRESS');
    expect(status.clusters.rack?.message).toMatch(refused);
    // Nothing was run on it.
    expect(s.staticMachines.leftovers(CONTROL)).toEqual([]);
  });

  it('fails for a user the machine does not let in: an authentication failure that names the user', async () => {
    const { s, kp } = world(63);
    // username left out: root, which the GPU machine (an ubuntu image) refuses.
    await kp.apply(manifestOf(manifest({ sshPort: 2222 })));
    await kp.run();
    const status = await kp.status('rack');
    expect(status.state).toBe('ERROR');
    expect(status.clusters.rack?.message).toMatch(
      new RegExp(
        `static node \\S+-rack-gpu-01 \\(root@${GPU.replaceAll('.', '\\.')}:22\\): the machine refused user root with the key from the node's secretRef`,
      ),
    );
    expect(s.staticMachines.leftovers(GPU)).toEqual([]);
  });
});
