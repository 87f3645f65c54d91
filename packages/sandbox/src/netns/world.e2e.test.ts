// The netns harness against real namespaces, wireguard-go and nginx. Needs root: without it these tests FAIL with
// NetnsUnavailable's message (CI has root), they never skip.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_VERSIONS, renderBootstrapScript, type BootstrapCluster } from '@kubeplane/sdk/internal';
import { VirtualClock } from '@kubeplane/sdk/provider';
import type { SandboxVm } from '../kubernetes/vm-source.js';
import { NetnsWorld } from './world.js';

const clock = new VirtualClock(Date.UTC(2026, 0, 1));
const reports: Array<{ machine: string; event: string; detail: Record<string, unknown> }> = [];
let world: NetnsWorld;

beforeAll(async () => {
  world = await NetnsWorld.open({
    clock,
    resolve: (name) => (name === 'lb.sandbox.test' ? ['198.18.0.40'] : []),
    onReport: (machine, event, detail) => reports.push({ machine, event, detail }),
    settleTimeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await world?.close();
});

function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function wgKeys(): { priv: string; pub: string } {
  const priv = execFileSync('wg', ['genkey'], { encoding: 'utf8' }).trim();
  const pub = execFileSync('wg', ['pubkey'], { input: priv, encoding: 'utf8' }).trim();
  return { priv, pub };
}

function indent(text: string, by = 6): string {
  return text
    .split('\n')
    .map((l) => `${' '.repeat(by)}${l}`)
    .join('\n');
}

function vm(name: string, ip: string, userData: string): SandboxVm {
  return { cloud: 'hetzner', name, state: 'running', userData, publicIPv4: ip };
}

/** Two mesh members in one cluster; `endpoints` says which side knows the other's public address. */
function meshPair(
  tag: string,
  ips: [string, string],
  overlay: [string, string],
  endpoints: [boolean, boolean],
  runcmd = '  - systemctl enable --now wg-quick@wg0',
): [SandboxVm, SandboxVm] {
  const keys = [wgKeys(), wgKeys()];
  return [0, 1].map((i) => {
    const other = 1 - i;
    const conf = [
      '[Interface]',
      `PrivateKey = ${keys[i]?.priv ?? ''}`,
      `Address = ${overlay[i]}/16`,
      'ListenPort = 51820',
      '',
      '[Peer]',
      `PublicKey = ${keys[other]?.pub ?? ''}`,
      `AllowedIPs = ${overlay[other]}/32`,
      ...(endpoints[i] ? [`Endpoint = ${ips[other]}:51820`] : []),
    ].join('\n');
    const name = `${tag}-${i}`;
    const userData = `#cloud-config
# kubeplane node ${name} (join) of cluster ${tag} [c-${tag}]
hostname: ${name}
write_files:
  - path: /etc/wireguard/wg0.conf
    permissions: '0600'
    content: |
${indent(conf)}
runcmd:
${runcmd}
`;
    return vm(name, ips[i] ?? '', userData);
  }) as [SandboxVm, SandboxVm];
}

describe('netns world', () => {
  it('builds a WireGuard handshake when one side has an Endpoint (1/1)', async () => {
    const [a, b] = meshPair('one', ['198.18.0.11', '198.18.0.12'], ['10.91.0.1', '10.91.0.2'], [true, false]);
    await world.boot(a);
    await world.boot(b);
    const started = Date.now();
    await world.settle();
    const report = await world.handshakes();
    console.log(`one-endpoint mesh: settle+handshakes ${Date.now() - started} ms`, JSON.stringify(report));
    expect(report).toEqual([{ cluster: 'c-one', handshook: 1, expected: 1, missing: [] }]);
    expect(reports).toContainEqual({ machine: 'hetzner/one-0', event: 'bootstrap-exit', detail: { code: 0 } });
    await world.stop(a);
    await world.stop(b);
  });

  it('reports the pair as missing when neither side has an Endpoint (0/1)', async () => {
    const [a, b] = meshPair('none', ['198.18.0.21', '198.18.0.22'], ['10.92.0.1', '10.92.0.2'], [false, false]);
    await world.boot(a);
    await world.boot(b);
    await world.settle();
    expect(await world.handshakes()).toEqual([{ cluster: 'c-none', handshook: 0, expected: 1, missing: [['hetzner/none-0', 'hetzner/none-1']] }]);
    await world.stop(a);
    await world.stop(b);
  });

  it('runs real nginx with a stream config that forwards TCP between machines', async () => {
    const backend = vm(
      'backend',
      '198.18.0.31',
      `#cloud-config
write_files:
  - path: /etc/nginx/nginx.conf
    content: |
      load_module modules/ngx_stream_module.so;
      events {}
      http { server { listen 8080; location / { return 200 "backend says hi\\n"; } } }
runcmd:
  - systemctl restart nginx
`,
    );
    const lb = vm(
      'lb',
      '198.18.0.40',
      `#cloud-config
write_files:
  - path: /etc/nginx/nginx.conf
    content: |
      load_module modules/ngx_stream_module.so;
      events {}
      stream { server { listen 6443; proxy_pass 198.18.0.31:8080; } }
runcmd:
  - systemctl enable nginx
  - systemctl restart nginx
`,
    );
    await world.boot(backend);
    await world.boot(lb);
    await world.settle();
    const out = await world.exec(backend, 'curl -sS http://lb.sandbox.test:6443/ && cat /run/nginx.pid >/dev/null && echo pid-private');
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe('backend says hi\npid-private\n');
    await world.stop(backend);
    await world.stop(lb);
  });

  it('blocks a runcmd in `sleep 30` until the virtual clock reaches it', async () => {
    const m = vm(
      'sleeper',
      '198.18.0.51',
      `#cloud-config
runcmd:
  - echo before >/root/marks
  - sleep 30
  - echo after >>/root/marks
`,
    );
    const t0 = clock.now();
    await world.boot(m);
    await world.settle();
    expect(world.nextWakeAt()).toBe(t0 + 30_000);
    expect((await world.exec(m, 'cat /root/marks')).stdout).toBe('before\n');
    clock.advanceTo(t0 + 30_000);
    await world.settle();
    expect(world.nextWakeAt()).toBeNull();
    expect((await world.exec(m, 'cat /root/marks')).stdout).toBe('before\nafter\n');
    await world.stop(m);
  });

  it('writes write_files in order with their owners and modes, before runcmd', async () => {
    const m = vm(
      'files',
      '198.18.0.61',
      `#cloud-config
write_files:
  - path: /etc/kp/first
    content: one
  - path: /etc/kp/first
    content: "+two"
    append: true
  - path: /etc/kp/secret
    owner: www-data:www-data
    permissions: '0600'
    encoding: b64
    content: ${Buffer.from('s3cret').toString('base64')}
  - path: /usr/local/sbin/script
    permissions: '0755'
    content: |
      #!/bin/sh
      echo ran "$@"
  - path: /etc/kp/late
    defer: true
    content: late
runcmd:
  - [/usr/local/sbin/script, "a b"]
  - stat -c '%U:%G %a' /etc/kp/first /etc/kp/secret /usr/local/sbin/script >/root/stat
`,
    );
    await world.boot(m);
    await world.settle();
    expect((await world.exec(m, 'cat /etc/kp/first; echo; cat /etc/kp/secret; echo; cat /etc/kp/late; echo; cat /root/stat')).stdout).toBe(
      'one+two\ns3cret\nlate\nroot:root 644\nwww-data:www-data 600\nroot:root 755\n',
    );
    expect((await world.exec(m, 'cat /var/log/cloud-init-output.log')).stdout).toContain('ran a b');
    await world.stop(m);
  });

  it('keeps the disk and loses /tmp across a reboot, bringing wg0 up again from the disk', async () => {
    const [a, b] = meshPair(
      'reboot',
      ['198.18.0.71', '198.18.0.72'],
      ['10.93.0.1', '10.93.0.2'],
      [true, false],
      '  - systemctl enable --now wg-quick@wg0\n  - touch /tmp/volatile /root/kept',
    );
    await world.boot(a);
    await world.boot(b);
    await world.settle();
    expect((await world.handshakes())[0]?.handshook).toBe(1);
    // The side with the Endpoint reboots: it initiates again at once. (Rebooting the other side is real WireGuard's
    // slow case: its peer keeps sending on the dead session until REKEY_TIMEOUT + KEEPALIVE_TIMEOUT, ~15 s.)
    await world.reboot(a);
    await world.settle();
    expect((await world.exec(a, 'ls /tmp/volatile /root/kept 2>&1; wg show wg0 peers')).stdout).toMatch(
      /No such file[\s\S]*\/root\/kept\n[A-Za-z0-9+/=]{44}\n$/,
    );
    expect(await world.handshakes()).toEqual([{ cluster: 'c-reboot', handshook: 1, expected: 1, missing: [] }]);
    await world.stop(a);
    await world.stop(b);
  });

  it('apt-get refuses kubeadm=1.35.0-1.1 from the v1.34 repository with apt’s message', async () => {
    const m = vm(
      'apt',
      '198.18.0.81',
      `#cloud-config
runcmd:
  - install -d -m 0755 /etc/apt/keyrings
  - curl -fsSL -o /tmp/k.key https://pkgs.k8s.io/core:/stable:/v1.34/deb/Release.key
  - gpg --batch --yes --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg /tmp/k.key
  - echo "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.34/deb/ /" >/etc/apt/sources.list.d/kubernetes.list
  - apt-get update -q
`,
    );
    await world.boot(m);
    await world.settle();
    const t0 = clock.now();
    const refused = world.exec(m, 'apt-get install -y -q kubeadm=1.35.0-1.1');
    const r = await refused;
    expect(r.stderr).toContain("E: Version '1.35.0-1.1' for 'kubeadm' was not found");
    expect(r.code).toBe(100);
    const ok = world.exec(m, 'apt-get install -y -q kubeadm=1.34.2-1.1 && apt-mark hold kubeadm');
    await world.settle();
    expect(world.nextWakeAt()).toBe(t0 + 30_000);
    clock.advanceTo(t0 + 30_000);
    await world.settle();
    expect((await ok).stdout).toContain('kubeadm set on hold.');
    const held = await world.exec(m, 'apt-get install -y -q kubeadm=1.34.3-1.1');
    expect(held.stderr).toContain('E: Held packages were changed and -y was used without --allow-change-held-packages.');
    expect(world.mirrorKeyFingerprint).toMatch(/^[0-9A-F]{40}$/);
    await world.stop(m);
  });

  it('curl of a URL outside the sandbox fails loudly', async () => {
    const m = vm('curl', '198.18.0.91', '#cloud-config\nruncmd: []\n');
    await world.boot(m);
    await world.settle();
    const r = await world.exec(m, 'curl -fsSL https://example.com/install.sh');
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('sandbox: no network: https://example.com/install.sh is not reachable from a sandbox machine');
    const literal = await world.exec(m, 'curl -fsS http://1.1.1.1/');
    expect([literal.code, literal.stderr.trim()]).toEqual([6, 'sandbox: no network: http://1.1.1.1/ is not reachable from a sandbox machine']);
    await world.stop(m);
  });

  it('fires a timer on the virtual clock: OnBootSec, then every OnUnitActiveSec, with its Environment', async () => {
    const m = vm(
      'timer',
      '198.18.0.95',
      `#cloud-config
write_files:
  - path: /etc/systemd/system/tick.service
    content: |
      [Service]
      Type=oneshot
      Environment=WHO=tick
      ExecStart=/bin/sh -c 'echo "$WHO" >>/root/ticks'
  - path: /etc/systemd/system/tick.timer
    content: |
      [Timer]
      OnBootSec=60s
      OnUnitActiveSec=2min
runcmd:
  - systemctl enable --now tick.timer
`,
    );
    const t0 = clock.now();
    await world.boot(m);
    await world.settle();
    expect(world.nextWakeAt()).toBe(t0 + 60_000);
    clock.advanceTo(t0 + 60_000);
    await world.settle();
    expect(world.nextWakeAt()).toBe(t0 + 180_000);
    clock.advanceTo(t0 + 180_000);
    await world.settle();
    expect((await world.exec(m, 'cat /root/ticks')).stdout).toBe('tick\ntick\n');
    await world.stop(m);
  });

  it('settle() names the machine and the command when a tracked process stays busy', async () => {
    const m = vm('busy', '198.18.0.97', '#cloud-config\nruncmd:\n  - while :; do :; done\n');
    await world.boot(m);
    await expect(world.settle({ timeoutMs: 1000 })).rejects.toThrow(/machine hetzner\/busy is still running "cloud-init \(write_files, runcmd\)"/);
    await world.stop(m);
    await world.settle();
  });

  it("gives a machine the disks its cloud attached, never the host's: the bootstrap formats and mounts its storage disk by UUID, and a reboot mounts it again", async () => {
    const node = {
      name: 'disk-0',
      role: 'compute' as const,
      pool: 'workers',
      overlayIp: '10.99.0.2',
      labels: {},
      taints: [],
      os: 'ubuntu-24.04' as const,
      arch: 'amd64' as const,
      provider: 'hetzner',
      storageDisk: { sizeGB: 50, byId: ['/dev/disk/by-id/scsi-0HC_Volume_*'] },
    };
    const cluster: BootstrapCluster = {
      name: 'disks',
      clusterId: 'disks-1',
      kubernetesVersion: { major: 1, minor: 34, patch: 2 },
      apiEndpoint: { host: '198.18.0.1', port: 6443, kind: 'reserved-ip' },
      network: '10.99.0.0/16',
      podCidr: '10.244.0.0/16',
      serviceCidr: '10.96.0.0/12',
      nodes: [node],
      loadBalancers: [],
      secretsAtRest: false,
    };
    // The rendered bootstrap, with only its storage disk step left in main.
    const bootstrap = renderBootstrapScript({ cluster, node, mode: 'join', versions: DEFAULT_VERSIONS }).replace(
      /\nmain\(\) \{[\s\S]*$/,
      '\nmount_storage_disk\n',
    );
    const m: SandboxVm = {
      ...vm(
        'disk-0',
        '198.18.0.60',
        `#cloud-config
hostname: disk-0
write_files:
  - path: /usr/local/sbin/storage-disk
    permissions: '0700'
    encoding: b64
    content: ${Buffer.from(bootstrap).toString('base64')}
runcmd:
  - [/usr/local/sbin/storage-disk]
`,
      ),
      dataDisks: [{ byId: 'scsi-0HC_Volume_4711', sizeGB: 50 }],
    };
    await world.boot(m);
    await world.settle();
    const mounted = await world.exec(m, 'echo kept >/opt/claudie/data/file; grep /opt/claudie/data /etc/fstab; lsblk -dnpo NAME,TYPE,SIZE');
    expect(mounted.stdout).toMatch(/^UUID=[0-9a-f-]{36} \/opt\/claudie\/data ext4 defaults,nofail 0 2\n\/dev\/kpdisk1 disk 50G\n$/);
    expect((await world.exec(m, 'cat /var/log/kubeplane-bootstrap.log')).stdout).toContain('storage disk /dev/kpdisk1 mounted at /opt/claudie/data');
    // The host's own file system does not have it: the mount is the machine's.
    expect(readFile('/opt/claudie/data/file')).toBe('');
    await world.reboot(m);
    expect((await world.exec(m, 'cat /opt/claudie/data/file')).stdout).toBe('kept\n');
    // Nothing of the host's is a disk of the machine's.
    expect((await world.exec(m, 'blkid -s TYPE -o value /dev/sda; echo "exit $?"')).stdout).toBe('exit 32\n');
  });

  it('close() leaves no namespace and no wireguard-go process behind', async () => {
    const [a, b] = meshPair('close', ['198.18.0.101', '198.18.0.102'], ['10.94.0.1', '10.94.0.2'], [true, false]);
    await world.boot(a);
    await world.boot(b);
    await world.settle();
    const prefix = world.host.prefix;
    expect(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })).toContain(prefix);
    // Other worktrees may run wireguard-go too: look only at the ones in this run's namespaces.
    const ours = world.machines.flatMap((m) => execFileSync('ip', ['netns', 'pids', m.namespace], { encoding: 'utf8' }).split(/\s+/).filter(Boolean));
    const wireguardGo = (): string[] =>
      ours.filter((pid) => /^wireguard-go$/m.test(readFile(`/proc/${pid}/comm`)) && !/^State:\s+Z/m.test(readFile(`/proc/${pid}/status`)));
    expect(wireguardGo().length).toBe(2);
    await world.close();
    expect(execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })).not.toContain(prefix);
    expect(wireguardGo()).toEqual([]);
    expect(execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })).not.toContain(prefix);
  });
});
