// @kubeplane/sdk/conformance: the provider conformance suite. Each numbered contract rule
// (docs/provider-contract.md) is one vitest describe group, run against the provider's sandbox.
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeplaneError } from '../../errors.js';
import type { Outcome } from '../outcome.js';
import { settle } from '../settle.js';
import { CLUSTER_ID_TAG, NODEPOOL_TAG, type NodeInfo, type NodeRequest, type Provider, type ComputeApi, type NetworkApi, type DnsApi } from '../types.js';
import type { ConformanceOptions, ConformanceSandbox } from './harness.js';
import { CONTRACT_RULES } from './rules.js';

export type { ConformanceFixtures, ConformanceOptions, ConformanceSandbox, FaultKind, FaultTarget } from './harness.js';
export { CONTRACT_RULES, type ContractRule } from './rules.js';

function title(id: (typeof CONTRACT_RULES)[number]['id']): string {
  const rule = CONTRACT_RULES.find((r) => r.id === id);
  return `${id}: ${rule?.title ?? ''}`;
}

/** Registers the conformance suite for one provider. Call it at the top level of a `*.test.ts` file. */
export function runProviderConformance(options: ConformanceOptions): void {
  const { fixtures } = options;
  let sandbox: ConformanceSandbox;
  let provider: Provider;
  let seq = 0;

  const run = <T>(call: (attempt: number) => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: sandbox.clock, maxAttempts: 400 });
  const compute = (): ComputeApi => {
    if (!provider.compute) throw new Error(`${options.name} has no compute API`);
    return provider.compute;
  };
  const network = (): NetworkApi => {
    if (!provider.network) throw new Error(`${options.name} has no network API`);
    return provider.network;
  };
  const dns = (): DnsApi => {
    if (!provider.dns) throw new Error(`${options.name} has no dns API`);
    return provider.dns;
  };
  const clusterId = (): string => `conf${++seq}`;
  const nodeRequest = (cluster: string, pool: string, index: number, overrides: Partial<NodeRequest> = {}): NodeRequest => ({
    name: `${cluster}-${pool}-${String(index).padStart(2, '0')}`,
    clusterId: cluster,
    nodepool: pool,
    region: fixtures.region,
    ...(fixtures.zone ? { zone: fixtures.zone } : {}),
    serverType: fixtures.serverType,
    image: fixtures.image,
    userData: '#cloud-config\n{}\n',
    ...overrides,
  });
  const liveNodes = (cluster: string) => sandbox.liveResources(cluster).filter((r) => r.kind === 'node');
  const waitRunning = async (cluster: string, count: number): Promise<NodeInfo[]> =>
    run(async () => {
      const listed = await compute().listNodes({ clusterId: cluster });
      if (listed.status === 'pending') return listed;
      const running = listed.value.filter((n) => n.state === 'running');
      return running.length >= count
        ? listed
        : { status: 'pending', reason: 'in-progress', retryAfterSeconds: 5, message: `${running.length}/${count} running` };
    });
  const expectKind = async (promise: Promise<unknown>, kind: KubeplaneError['kind']): Promise<KubeplaneError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeplaneError);
    const k = error as KubeplaneError;
    expect(k.kind).toBe(kind);
    expect(k.details.provider).toBe(options.name);
    expect(k.details.code).toBeTruthy();
    return k;
  };

  describe(`provider conformance: ${options.name}`, () => {
    beforeEach(async () => {
      sandbox = await options.sandbox();
      provider = options.makeProvider(sandbox);
    });
    afterEach(() => {
      sandbox.stop();
    });

    describe(title('C1'), () => {
      it('exposes an API object exactly for each capability it declares', () => {
        expect(provider.name).toBe(options.name);
        expect(provider.compute !== undefined).toBe(provider.capabilities.compute);
        expect(provider.network !== undefined).toBe(provider.capabilities.network);
        expect(provider.dns !== undefined).toBe(provider.capabilities.dns);
        expect(provider.managedKubernetes !== undefined).toBe(provider.capabilities.managedKubernetes);
        expect(provider.capabilities.compute).toBe(true);
      });
    });

    describe(title('C2'), () => {
      it('tags nodes with the cluster id and the nodepool, and keeps caller labels', async () => {
        const cluster = clusterId();
        const node = await run(() => compute().createNode(nodeRequest(cluster, 'workers', 1, { labels: { team: 'infra' } })));
        expect(node.labels[CLUSTER_ID_TAG]).toBe(cluster);
        expect(node.labels[NODEPOOL_TAG]).toBe('workers');
        expect(node.labels['team']).toBe('infra');
        expect(node.clusterId).toBe(cluster);
        expect(node.nodepool).toBe('workers');
        expect(liveNodes(cluster).map((r) => r.name)).toEqual([`${cluster}-workers-01`]);
      });
      it('filters listNodes by nodepool', async () => {
        const cluster = clusterId();
        await run(() => compute().createNode(nodeRequest(cluster, 'control', 1)));
        await run(() => compute().createNode(nodeRequest(cluster, 'workers', 1)));
        sandbox.clock.advance(60_000);
        const workers = await run(() => compute().listNodes({ clusterId: cluster, nodepool: 'workers' }));
        expect(workers.map((n) => n.name)).toEqual([`${cluster}-workers-01`]);
      });
    });

    describe(title('C3'), () => {
      it('returns the same node when createNode is called twice with the same request', async () => {
        const cluster = clusterId();
        const first = await run(() => compute().createNode(nodeRequest(cluster, 'w', 1)));
        const second = await run(() => compute().createNode(nodeRequest(cluster, 'w', 1)));
        expect(second.providerId).toBe(first.providerId);
        expect(liveNodes(cluster)).toHaveLength(1);
      });
      it('creates one machine when two createNode calls for the same name run concurrently', async () => {
        const cluster = clusterId();
        const [a, b] = await Promise.all([
          run(() => compute().createNode(nodeRequest(cluster, 'w', 1))),
          run(() => compute().createNode(nodeRequest(cluster, 'w', 1))),
        ]);
        expect(a.providerId).toBe(b.providerId);
        expect(liveNodes(cluster)).toHaveLength(1);
      });
    });

    describe(title('C4'), () => {
      it('does not create a second machine when the create response was lost', async () => {
        const cluster = clusterId();
        sandbox.injectFault('create-node', 'lost-response', 1);
        const first = await compute().createNode(nodeRequest(cluster, 'w', 1));
        expect(first.status).toBe('pending');
        const node = await run(() => compute().createNode(nodeRequest(cluster, 'w', 1)));
        expect(liveNodes(cluster).map((r) => r.id)).toEqual([node.id]);
      });
      it('recovers from a timeout where the request never arrived', async () => {
        const cluster = clusterId();
        sandbox.injectFault('create-node', 'timeout', 1);
        const first = await compute().createNode(nodeRequest(cluster, 'w', 1));
        expect(first).toMatchObject({ status: 'pending', reason: 'retryable' });
        await run(() => compute().createNode(nodeRequest(cluster, 'w', 1)));
        expect(liveNodes(cluster)).toHaveLength(1);
      });
    });

    describe(title('C5'), () => {
      it('reports a new node as pending and running once its boot time has passed in virtual time', async () => {
        const cluster = clusterId();
        const startReal = Date.now();
        const node = await run(() => compute().createNode(nodeRequest(cluster, 'w', 1)));
        expect(['pending', 'running']).toContain(node.state);
        const startVirtual = sandbox.clock.now();
        const [running] = await waitRunning(cluster, 1);
        expect(running?.name).toBe(node.name);
        expect(sandbox.clock.now() - startVirtual).toBeGreaterThan(0);
        // Boots take tens of seconds in virtual time but the test must not wait for them in real time.
        expect(Date.now() - startReal).toBeLessThan(20_000);
      });
    });

    describe(title('C6'), () => {
      it('classifies a capacity error as capacity and creates nothing', async () => {
        const cluster = clusterId();
        sandbox.injectFault('create-node', 'capacity', 1);
        await expectKind(compute().createNode(nodeRequest(cluster, 'w', 1)), 'capacity');
        expect(liveNodes(cluster)).toHaveLength(0);
      });
      it('classifies a quota error as quota with an actionable message', async () => {
        const cluster = clusterId();
        sandbox.injectFault('create-node', 'quota', 1);
        const error = await expectKind(compute().createNode(nodeRequest(cluster, 'w', 1)), 'quota');
        expect(error.message.length).toBeGreaterThan(20);
        expect(error.details.resource).toBe(`${cluster}-w-01`);
      });
      it('classifies rejected credentials as auth', async () => {
        const bad = options.makeUnauthorizedProvider(sandbox);
        await expectKind(bad.compute?.listNodes({ clusterId: clusterId() }) ?? Promise.resolve(), 'auth');
      });
      it('rejects an unknown server type as invalid', async () => {
        const cluster = clusterId();
        await expectKind(compute().createNode(nodeRequest(cluster, 'w', 1, { serverType: 'no-such-type-9000' })), 'invalid');
        expect(liveNodes(cluster)).toHaveLength(0);
      });
      it('rejects user data over the cloud limit as invalid before calling the cloud', async () => {
        const cluster = clusterId();
        const before = sandbox.requestCount();
        await expectKind(compute().createNode(nodeRequest(cluster, 'w', 1, { userData: 'x'.repeat(40 * 1024) })), 'invalid');
        expect(sandbox.requestCount()).toBe(before);
      });
    });

    describe(title('C7'), () => {
      it('turns a throttled create into pending(throttled) with the delay the cloud gave, then succeeds once', async () => {
        const cluster = clusterId();
        sandbox.injectFault('create-node', 'throttled', 1);
        const first = await compute().createNode(nodeRequest(cluster, 'w', 1));
        expect(first).toMatchObject({ status: 'pending', reason: 'throttled' });
        if (first.status === 'pending') {
          expect(first.retryAfterSeconds).toBeGreaterThan(0);
          expect(first.cause?.kind).toBe('throttled');
        }
        await run(() => compute().createNode(nodeRequest(cluster, 'w', 1)));
        expect(liveNodes(cluster)).toHaveLength(1);
      });
      it('backs off with jitter when a throttle carries no headers', async () => {
        const cluster = clusterId();
        sandbox.injectFault('list-nodes', 'throttled-no-headers', 3);
        const delays: number[] = [];
        const reasons: string[] = [];
        // A throttle empties the provider's own budget too, so `rate-budget` pendings may come in between.
        for (let attempt = 0; delays.length < 3 && attempt < 20; attempt++) {
          const outcome = await compute().listNodes({ clusterId: cluster }, { attempt });
          expect(outcome.status).toBe('pending');
          if (outcome.status !== 'pending') break;
          reasons.push(outcome.reason);
          if (outcome.reason === 'throttled') delays.push(outcome.retryAfterSeconds);
          sandbox.clock.advance(Math.ceil(outcome.retryAfterSeconds * 1000));
        }
        expect(reasons[0]).toBe('throttled');
        expect(reasons.every((r) => r === 'throttled' || r === 'rate-budget')).toBe(true);
        expect(delays).toHaveLength(3);
        expect(delays.every((d) => d > 0)).toBe(true);
        expect(Math.max(...delays)).toBeLessThanOrEqual(300);
        expect(await run(() => compute().listNodes({ clusterId: cluster }))).toEqual([]);
      });
    });

    describe(title('C8'), () => {
      it('turns a 5xx into pending(retryable) and then succeeds without a duplicate', async () => {
        const cluster = clusterId();
        sandbox.injectFault('create-node', 'server-error', 2);
        const first = await compute().createNode(nodeRequest(cluster, 'w', 1));
        expect(first).toMatchObject({ status: 'pending', reason: 'retryable' });
        await run(() => compute().createNode(nodeRequest(cluster, 'w', 1)));
        expect(liveNodes(cluster)).toHaveLength(1);
      });
    });

    describe(title('C9'), () => {
      it('reports done when deleting a node that never existed', async () => {
        await run(() => compute().deleteNode({ clusterId: clusterId(), name: 'never-there-01', region: fixtures.region }));
      });
      it('reports done when deleting the same node twice', async () => {
        const cluster = clusterId();
        const req = nodeRequest(cluster, 'w', 1);
        await run(() => compute().createNode(req));
        await waitRunning(cluster, 1);
        const ref = { clusterId: cluster, name: req.name, region: req.region };
        await run(() => compute().deleteNode(ref));
        await run(() => compute().deleteNode(ref));
        sandbox.clock.advance(300_000);
        await run(() => compute().deleteNode(ref));
        expect(await run(() => compute().getNode(ref))).toBeNull();
        expect(liveNodes(cluster)).toHaveLength(0);
      });
    });

    describe(title('C10'), () => {
      it("lists only the cluster's own nodes", async () => {
        const mine = clusterId();
        const other = clusterId();
        await run(() => compute().createNode(nodeRequest(mine, 'w', 1)));
        await run(() => compute().createNode(nodeRequest(mine, 'w', 2)));
        await run(() => compute().createNode(nodeRequest(other, 'w', 1)));
        const listed = await waitRunning(mine, 2);
        expect(listed.map((n) => n.name).sort()).toEqual([`${mine}-w-01`, `${mine}-w-02`]);
      });
      it('finds a node created a moment ago by name, even where listings lag', async () => {
        const cluster = clusterId();
        const created = await run(() => compute().createNode(nodeRequest(cluster, 'w', 1)));
        const ref = { clusterId: cluster, name: created.name, region: fixtures.region };
        const found = await run(() => compute().getNode(ref));
        expect(found?.providerId).toBe(created.providerId);
      });
    });

    describe(title('C11'), () => {
      it('keeps credentials out of errors, provider dumps and the inventory', async () => {
        const bad = options.makeUnauthorizedProvider(sandbox);
        const error = await (bad.compute?.listNodes({ clusterId: clusterId() }) ?? Promise.resolve()).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(KubeplaneError);
        await run(() => compute().createNode(nodeRequest(clusterId(), 'w', 1)));
        const texts = [
          JSON.stringify(error),
          inspect(error, { depth: 10, showHidden: true }),
          String(error),
          (error as Error).stack ?? '',
          inspect(provider, { depth: 10, showHidden: true }),
          inspect(bad, { depth: 10, showHidden: true }),
          JSON.stringify(provider),
          sandbox.inventoryDump(),
        ];
        for (const secret of options.secretValues) {
          expect(secret.length).toBeGreaterThan(3);
          for (const text of texts) expect(text.includes(secret)).toBe(false);
        }
      });
    });

    describe(title('C12'), () => {
      it('ensures networks, firewalls, reserved IPs and SSH keys idempotently and deletes them twice', async () => {
        if (!provider.capabilities.network) {
          expect(provider.network).toBeUndefined();
          return;
        }
        const cluster = clusterId();
        const r = fixtures.region;
        const net = {
          name: `${cluster}-net`,
          clusterId: cluster,
          region: r,
          cidr: '10.0.0.0/16',
          subnets: [{ cidr: '10.0.1.0/24', ...(fixtures.zone ? { zone: fixtures.zone } : {}) }],
        };
        const n1 = await run(() => network().ensureNetwork(net));
        const n2 = await run(() => network().ensureNetwork(net));
        expect(n2.id).toBe(n1.id);
        const fw = {
          name: `${cluster}-fw`,
          clusterId: cluster,
          region: r,
          networkName: net.name,
          rules: [{ protocol: 'tcp' as const, port: 6443, sourceCidrs: ['0.0.0.0/0'] }],
        };
        const f1 = await run(() => network().ensureFirewall(fw));
        const f2 = await run(() => network().ensureFirewall(fw));
        expect(f2.id).toBe(f1.id);
        const ipReq = { name: `${cluster}-api`, clusterId: cluster, region: r, ...(fixtures.zone ? { zone: fixtures.zone } : {}) };
        // Clouds without standalone reserved IPs (Crusoe) declare `reservedIps: false` and reject them as invalid.
        const reservedIps = provider.capabilities.reservedIps !== false;
        if (reservedIps) {
          const ip1 = await run(() => network().ensureReservedIp(ipReq));
          const ip2 = await run(() => network().ensureReservedIp(ipReq));
          expect(ip2.ip).toBe(ip1.ip);
        } else {
          await expectKind(network().ensureReservedIp(ipReq), 'invalid');
        }
        const keyReq = {
          name: `${cluster}-key`,
          clusterId: cluster,
          region: r,
          publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3eC6F8mgbVf1kEXnBFqQyrm0Ae4jMX0lCezHzDdJ3X kubeplane',
        };
        const k1 = await run(() => network().ensureSshKey(keyReq));
        const k2 = await run(() => network().ensureSshKey(keyReq));
        expect(k2.id).toBe(k1.id);
        const kinds = new Set(sandbox.liveResources(cluster).map((x) => x.kind));
        for (const kind of ['network', 'firewall', ...(reservedIps ? ['reserved-ip'] : []), 'ssh-key']) expect(kinds.has(kind)).toBe(true);
        for (let i = 0; i < 2; i++) {
          await run(() => network().deleteReservedIp({ clusterId: cluster, name: ipReq.name, region: r }));
          await run(() => network().deleteSshKey({ clusterId: cluster, name: keyReq.name, region: r }));
          await run(() => network().deleteFirewall({ clusterId: cluster, name: fw.name, region: r }));
          await run(() => network().deleteNetwork({ clusterId: cluster, name: net.name, region: r }));
        }
        expect(sandbox.liveResources(cluster)).toEqual([]);
      });
      it('attaches a reserved IP to a node as its public IPv4', async () => {
        if (!provider.capabilities.network) {
          expect(provider.network).toBeUndefined();
          return;
        }
        if (provider.capabilities.reservedIps === false) {
          expect(provider.capabilities.attachReservedIpAfterCreate).toBe(false);
          return;
        }
        const cluster = clusterId();
        const r = fixtures.region;
        const ipReq = { name: `${cluster}-api`, clusterId: cluster, region: r, ...(fixtures.zone ? { zone: fixtures.zone } : {}) };
        const ip = await run(() => network().ensureReservedIp(ipReq));
        const req = nodeRequest(cluster, 'cp', 1, { reservedIpName: ipReq.name });
        await run(() => compute().createNode(req));
        const attached = await run(() =>
          network().attachReservedIp({ clusterId: cluster, name: ipReq.name, region: r }, { clusterId: cluster, name: req.name, region: r }),
        );
        expect(attached.ip).toBe(ip.ip);
        const [node] = await waitRunning(cluster, 1);
        expect(node?.publicIPv4).toBe(ip.ip);
      });
    });

    describe(title('C13'), () => {
      it('replaces, adds and removes firewall rules to match the request', async () => {
        if (!provider.capabilities.network) {
          expect(provider.network).toBeUndefined();
          return;
        }
        const cluster = clusterId();
        const r = fixtures.region;
        await run(() =>
          network().ensureNetwork({
            name: `${cluster}-net`,
            clusterId: cluster,
            region: r,
            cidr: '10.1.0.0/16',
            subnets: [{ cidr: '10.1.1.0/24', ...(fixtures.zone ? { zone: fixtures.zone } : {}) }],
          }),
        );
        const base = { name: `${cluster}-fw`, clusterId: cluster, region: r, networkName: `${cluster}-net` };
        await run(() =>
          network().ensureFirewall({
            ...base,
            rules: [
              { protocol: 'tcp', port: 22, sourceCidrs: ['0.0.0.0/0'] },
              { protocol: 'tcp', port: 6443, sourceCidrs: ['0.0.0.0/0'] },
            ],
          }),
        );
        const wanted = [
          { protocol: 'tcp' as const, port: 6443, sourceCidrs: ['203.0.113.0/24'] },
          { protocol: 'udp' as const, port: 51820, sourceCidrs: ['0.0.0.0/0'] },
        ];
        const updated = await run(() => network().ensureFirewall({ ...base, rules: wanted }));
        const simplify = (rules: typeof wanted) => rules.map((x) => `${x.protocol}/${String(x.port)}/${[...x.sourceCidrs].sort().join(',')}`).sort();
        expect(simplify(updated.rules as typeof wanted)).toEqual(simplify(wanted));
        const again = await run(() => network().ensureFirewall({ ...base, rules: wanted }));
        expect(simplify(again.rules as typeof wanted)).toEqual(simplify(wanted));
      });
    });

    describe(title('C14'), () => {
      it('tears down nodes, IPs, firewalls, keys and networks, twice', async () => {
        const cluster = clusterId();
        const r = fixtures.region;
        if (provider.network) {
          const netApi = provider.network;
          await run(() =>
            netApi.ensureNetwork({
              name: `${cluster}-net`,
              clusterId: cluster,
              region: r,
              cidr: '10.2.0.0/16',
              subnets: [{ cidr: '10.2.1.0/24', ...(fixtures.zone ? { zone: fixtures.zone } : {}) }],
            }),
          );
          await run(() =>
            netApi.ensureFirewall({
              name: `${cluster}-fw`,
              clusterId: cluster,
              region: r,
              networkName: `${cluster}-net`,
              rules: [{ protocol: 'tcp', port: 6443, sourceCidrs: ['0.0.0.0/0'] }],
            }),
          );
          if (provider.capabilities.reservedIps !== false)
            await run(() =>
              netApi.ensureReservedIp({ name: `${cluster}-ip`, clusterId: cluster, region: r, ...(fixtures.zone ? { zone: fixtures.zone } : {}) }),
            );
        }
        for (let i = 1; i <= 3; i++) {
          await run(() =>
            compute().createNode(nodeRequest(cluster, 'w', i, provider.network ? { networkName: `${cluster}-net`, firewallNames: [`${cluster}-fw`] } : {})),
          );
        }
        expect(sandbox.liveResources(cluster).length).toBeGreaterThan(3);
        await run(() => provider.teardownCluster(cluster, r));
        expect(sandbox.liveResources(cluster)).toEqual([]);
        await run(() => provider.teardownCluster(cluster, r));
        expect(await run(() => provider.listClusterResources(cluster, r))).toEqual([]);
      });
    });

    describe(title('C18'), () => {
      it('serves pools in two regions of one account, making a project-wide SSH key once and a regional one per region', async () => {
        const cluster = clusterId();
        const second = fixtures.secondRegion;
        const regions = [
          { region: fixtures.region, zone: fixtures.zone, provider },
          { region: second.region, zone: second.zone, provider: options.makeProvider(sandbox, second.region) },
        ];
        const scope = provider.capabilities.scopes?.sshKey ?? 'region';
        for (const r of regions) expect(r.provider.capabilities.scopes?.sshKey ?? 'region').toBe(scope);
        const publicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF1vC2mH8m3pZ0cVqYk7W8eQm1xk6b7pQ8m2y1q3aL9Z kubeplane';
        // What the engine does: the key once for the account where it is project-wide, else once per region.
        const keyName = (i: number) => (scope === 'project' ? `${cluster}-ssh` : `${cluster}-r${i}-ssh`);
        for (const [i, r] of regions.entries()) {
          const zone = r.zone ? { zone: r.zone } : {};
          const net = r.provider.network;
          if (net) {
            await run(() =>
              net.ensureNetwork({
                name: `${cluster}-r${i}`,
                clusterId: cluster,
                region: r.region,
                cidr: `10.${40 + i}.0.0/16`,
                subnets: [{ cidr: `10.${40 + i}.1.0/24`, ...zone }],
              }),
            );
            if (scope === 'region' || i === 0) await run(() => net.ensureSshKey({ name: keyName(i), clusterId: cluster, region: r.region, publicKey }));
          }
          const node = await run(() =>
            r.provider.compute!.createNode(
              nodeRequest(cluster, `p${i}`, 1, { region: r.region, ...zone, ...(net ? { networkName: `${cluster}-r${i}`, sshKeyName: keyName(i) } : {}) }),
            ),
          );
          expect(node.region.startsWith(r.region) || r.region.startsWith(node.region), `${node.name} in ${node.region}`).toBe(true);
        }
        if (provider.network) expect(sandbox.liveResources(cluster).filter((x) => x.kind === 'ssh-key')).toHaveLength(scope === 'project' ? 1 : 2);
        // Each region lists its own machines, however the provider lists (Hetzner lists the project's servers), once
        // the listing has caught up with the creates (EC2's lags).
        for (const [i, r] of regions.entries()) {
          const listed = await run(async () => {
            const l = await r.provider.compute!.listNodes({ clusterId: cluster, region: r.region });
            return l.status === 'done' && l.value.length === 0
              ? { status: 'pending', reason: 'in-progress', retryAfterSeconds: 5, message: 'not listed yet' }
              : l;
          });
          expect(listed.map((n) => n.name)).toEqual([`${cluster}-p${i}-01`]);
        }
        // Ensuring the same key again under the other region's name (a cluster made before the scope was known) is
        // never a failure: the provider gives back the key it holds (Hetzner, which refuses a second copy) or holds two.
        if (provider.network && scope === 'project') {
          const again = await run(() =>
            regions[1]!.provider.network!.ensureSshKey({ name: `${cluster}-r1-ssh`, clusterId: cluster, region: second.region, publicKey }),
          );
          expect([keyName(0), `${cluster}-r1-ssh`]).toContain(again.name);
        }
        for (const r of regions) await run(() => r.provider.teardownCluster(cluster, r.region));
        expect(sandbox.liveResources(cluster)).toEqual([]);
      });
    });

    describe(title('C15'), () => {
      it('upserts records, reports pending until in sync, and deletes them twice', async () => {
        if (!provider.capabilities.dns) {
          expect(provider.dns).toBeUndefined();
          return;
        }
        const zone = fixtures.dnsZone;
        expect(zone).toBeTruthy();
        if (!zone) return;
        const cluster = clusterId();
        const records = [
          { name: `api.${cluster}.${zone}`, type: 'A' as const, ttl: 60, values: ['198.51.100.10', '198.51.100.11'] },
          { name: `www.${cluster}.${zone}`, type: 'CNAME' as const, ttl: 300, values: [`api.${cluster}.${zone}`] },
        ];
        const change = await run(() => dns().upsertRecords(zone, cluster, records));
        const status = await dns().changeStatus(change.id);
        expect(status.status === 'pending' || status.value.status === 'in-sync').toBe(true);
        const synced = await run(() => dns().changeStatus(change.id));
        expect(synced.status).toBe('in-sync');
        const listed = await run(() => dns().listRecords(zone));
        expect(
          listed
            .filter((x) => x.name.includes(cluster))
            .map((x) => x.name)
            .sort(),
        ).toEqual(records.map((x) => x.name).sort());
        const refs = records.map((x) => ({ name: x.name, type: x.type }));
        await run(() => dns().deleteRecords(zone, cluster, refs));
        await run(() => dns().deleteRecords(zone, cluster, refs));
        const after = await run(() => dns().listRecords(zone));
        expect(after.filter((x) => x.name.includes(cluster))).toEqual([]);
      });
      it('creates health-checked failover records and removes their health checks with them', async () => {
        if (!provider.capabilities.dnsFailover) {
          if (!provider.dns || !fixtures.dnsZone) {
            expect(provider.capabilities.dnsFailover).toBe(false);
            return;
          }
          // Without failover support, a failover record is refused up front rather than half-applied.
          const zone = fixtures.dnsZone;
          const cluster = clusterId();
          const before = sandbox.requestCount();
          await expectKind(
            dns().upsertRecords(zone, cluster, [
              {
                name: `lb.${cluster}.${zone}`,
                type: 'A',
                ttl: 60,
                values: ['198.51.100.20'],
                setIdentifier: 'primary',
                failover: { role: 'primary', healthCheck: { ip: '198.51.100.20', port: 65534 } },
              },
            ]),
            'invalid',
          );
          expect(sandbox.requestCount()).toBe(before);
          return;
        }
        const zone = fixtures.dnsZone;
        if (!zone) throw new Error('dnsFailover needs fixtures.dnsZone');
        const cluster = clusterId();
        const name = `lb.${cluster}.${zone}`;
        await run(() =>
          dns().upsertRecords(zone, cluster, [
            {
              name,
              type: 'A',
              ttl: 30,
              values: ['198.51.100.20'],
              setIdentifier: 'primary',
              failover: { role: 'primary', healthCheck: { ip: '198.51.100.20', port: 65534 } },
            },
            {
              name,
              type: 'A',
              ttl: 30,
              values: ['198.51.100.21'],
              setIdentifier: 'secondary',
              failover: { role: 'secondary', healthCheck: { ip: '198.51.100.21', port: 65534 } },
            },
          ]),
        );
        expect(sandbox.liveResources(cluster).filter((x) => x.kind === 'health-check')).toHaveLength(2);
        await run(() =>
          dns().deleteRecords(zone, cluster, [
            { name, type: 'A', setIdentifier: 'primary' },
            { name, type: 'A', setIdentifier: 'secondary' },
          ]),
        );
        expect(sandbox.liveResources(cluster)).toEqual([]);
      });
    });

    describe(title('C16'), () => {
      it('lists server types, images and zones that include the fixtures', async () => {
        const types = await run(() => compute().serverTypes(fixtures.region));
        expect(types.map((t) => t.name)).toContain(fixtures.serverType);
        const images = await run(() => compute().images(fixtures.region));
        expect(images.some((i) => i.id === fixtures.image || i.name === fixtures.image)).toBe(true);
        const zones = await run(() => compute().zones(fixtures.region));
        expect(zones.length).toBeGreaterThan(0);
        if (fixtures.zone) expect(zones.map((z) => z.name)).toContain(fixtures.zone);
        // Preflight names a region the account cannot use from this list (optional: a provider without it is not asked).
        const regions = compute().regions;
        if (regions) {
          const listed = await run(() => regions.call(compute()));
          expect(listed.filter((r) => r.enabled !== false).map((r) => r.name)).toContain(fixtures.region);
        }
      });
    });

    describe(title('C17'), () => {
      it('reports providerId as <provider>://… with the cloud id inside', async () => {
        const node = await run(() => compute().createNode(nodeRequest(clusterId(), 'w', 1)));
        expect(node.providerId).toMatch(/^[a-z]+:\/\/.+/);
        expect(node.providerId.endsWith(node.id)).toBe(true);
      });
    });
  });
}
export { MANAGED_KUBERNETES_RULES, type ManagedConformanceOptions, runManagedKubernetesConformance } from './managed-kubernetes.js';
export { type DnsConformanceOptions, runDnsProviderConformance } from './dns.js';
export { describeRateBudgetSuite, type RateBudgetSuiteOptions } from './rate-budget-suite.js';
