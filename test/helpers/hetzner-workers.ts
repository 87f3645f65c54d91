// Several workers (each its own HetznerProvider, client and budget source, as separate Lambda containers would
// be) building clusters in one Hetzner project at once, on one virtual clock, against the sandbox's Hetzner
// emulator; rate budgets come from the caller (per process, or shared on DynamoDB). DynamoDB is a real dynalite
// on loopback. No vitest inside: the bench runs this too.
import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { RATE_LIMITS, TokenBucket, type NodeRequest, type Outcome, type RateBudgetSource } from '@kubeplane/sdk/provider';
import { Redacted, type Clock } from '@kubeplane/sdk';
import { HetznerProvider } from '@kubeplane/providers';
import { Sandbox, SANDBOX_CREDENTIALS, simulate, type SimTask } from '@kubeplane/sandbox';
import { tableDefinition, type AwsClientOptions } from '@kubeplane/handlers/aws';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export interface Dynalite {
  options: AwsClientOptions;
  createTable(): Promise<string>;
  stop(): Promise<void>;
}

export async function startDynalite(): Promise<Dynalite> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const options: AwsClientOptions = {
    region: 'eu-central-1',
    credentials: { accessKeyId: 'AKIDTESTONLY', secretAccessKey: 'test-secret-not-real' },
    maxAttempts: 2,
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  };
  const client = new DynamoDBClient(options);
  return {
    options,
    async createTable() {
      const name = `kubeplane-${randomUUID().slice(0, 8)}`;
      await client.send(new CreateTableCommand(tableDefinition(name)));
      return name;
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface HetznerWorkersOptions {
  seed: number;
  workers: number;
  clusters: number;
  nodesPerCluster: number;
  /** Requests left in the project's bucket at the start (other tools drained the rest). */
  left: number;
  /** Worker i's budget source (called once per worker). */
  budgets: (worker: number, clock: Clock) => RateBudgetSource;
}

export interface HetznerWorkersResult {
  /** Virtual ms from the start to the last node created. */
  elapsedMs: number;
  /** Requests the project received. */
  requests: number;
  /** 429s the cloud answered. */
  throttledAtCloud: number;
  /** Calls that came back to the caller as `throttled` (a 429 the provider passed on). */
  throttledToCaller: number;
  /** Requests beyond the project's bucket, replaying the request times through a bucket of the cloud's limits. */
  overruns: number;
  /** Calls the budget made wait (`rate-budget` pendings). */
  budgetWaits: number;
  /** The time the project's bucket needs for the requests it accepted, starting from `left` tokens. */
  floorMs: number;
  nodes: number;
  distinctNodes: number;
}

/** An ed25519 public key in OpenSSH form, distinct per cluster (Hetzner refuses a second key of one fingerprint). */
function publicKeyOf(clusterId: string): string {
  const field = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(createHash('sha256').update(clusterId).digest())]).toString('base64')} kubeplane`;
}

/**
 * Clusters are dealt to workers in turn; each cluster is built in order as the engine's steps do (network,
 * firewall, reserved IP, SSH key, then its nodes one by one), so at most one call per cluster is in flight.
 */
export async function runHetznerWorkers(o: HetznerWorkersOptions): Promise<HetznerWorkersResult> {
  const limits = RATE_LIMITS.hetznerProject;
  const sandbox = new Sandbox({ seed: o.seed, hetzner: { initiallySpent: limits.capacity - o.left } });
  const server = setupServer(
    ...sandbox.hetzner.handlers(),
    http.all(/^http:\/\/127\.0\.0\.1:\d+\//, () => passthrough()),
  );
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const clock = sandbox.clock;
    const start = clock.now();
    const providers = Array.from(
      { length: o.workers },
      (_, i) =>
        new HetznerProvider({
          token: Redacted.of(SANDBOX_CREDENTIALS.hetznerToken),
          project: 'shared',
          clock,
          budgets: o.budgets(i, clock),
          random: sandbox.random,
        }),
    );
    const chains: SimTask[] = [];
    for (let c = 0; c < o.clusters; c++) {
      const provider = providers[c % o.workers] as HetznerProvider;
      const clusterId = `c${c}`;
      const scope = { clusterId, region: 'fsn1' };
      const steps: Array<{ name: string; run: (attempt: number) => Promise<Outcome<unknown>> }> = [
        {
          name: 'network',
          run: (attempt) =>
            provider.network.ensureNetwork({ ...scope, name: `${clusterId}-net`, cidr: '10.0.0.0/16', subnets: [{ cidr: '10.0.1.0/24' }] }, { attempt }),
        },
        {
          name: 'firewall',
          run: (attempt) =>
            provider.network.ensureFirewall(
              {
                ...scope,
                name: `${clusterId}-fw`,
                networkName: `${clusterId}-net`,
                rules: [
                  { protocol: 'tcp', port: 6443, sourceCidrs: ['0.0.0.0/0'] },
                  { protocol: 'udp', port: 51820, sourceCidrs: [], fromClusterNodes: true },
                ],
              },
              { attempt },
            ),
        },
        { name: 'ip', run: (attempt) => provider.network.ensureReservedIp({ ...scope, name: `${clusterId}-api` }, { attempt }) },
        {
          name: 'key',
          run: (attempt) => provider.network.ensureSshKey({ ...scope, name: `${clusterId}-key`, publicKey: publicKeyOf(clusterId) }, { attempt }),
        },
        ...Array.from({ length: o.nodesPerCluster }, (_, i) => {
          const request: NodeRequest = {
            name: `${clusterId}-n${String(i + 1).padStart(2, '0')}`,
            clusterId,
            nodepool: i === 0 ? 'cp' : 'w',
            region: 'fsn1',
            serverType: 'cpx22',
            image: 'ubuntu-24.04',
            userData: '#cloud-config\npackage_update: false\n',
            sshKeyName: `${clusterId}-key`,
            networkName: `${clusterId}-net`,
            firewallNames: [`${clusterId}-fw`],
            ...(i === 0 ? { reservedIpName: `${clusterId}-api` } : {}),
          };
          return { name: request.name, run: (attempt: number) => provider.compute.createNode(request, { attempt }) };
        }),
      ];
      const chain = (k: number): SimTask => ({
        name: `${clusterId}/${steps[k]?.name}`,
        run: (attempt) => (steps[k] as (typeof steps)[number]).run(attempt),
        then: () => (k + 1 < steps.length ? [chain(k + 1)] : []),
      });
      chains.push(chain(0));
    }
    const result = await simulate(clock, chains, { maxSteps: 200_000 });
    const times = sandbox.hetzner.requestTimes;
    // The cloud's bucket, replayed: a request finding it empty is an overrun, whatever the emulator answered.
    let replayNow = start;
    const replay = new TokenBucket(limits, { now: () => replayNow }, o.left);
    let overruns = 0;
    for (const t of times) {
      replayNow = t;
      if (replay.tryTake(1) > 0) overruns += 1;
    }
    const nodes = sandbox.inventory().filter((i) => i.kind === 'node');
    return {
      elapsedMs: result.elapsedMs,
      requests: times.length,
      throttledAtCloud: sandbox.hetzner.throttled,
      throttledToCaller: result.pendings.throttled ?? 0,
      overruns,
      budgetWaits: result.pendings['rate-budget'] ?? 0,
      // Answered 429s spend nothing of the bucket, so they do not count towards the floor.
      floorMs: (Math.max(0, times.length - sandbox.hetzner.throttled - o.left) / limits.refillPerSecond) * 1000,
      nodes: nodes.length,
      distinctNodes: new Set(nodes.map((n) => n.name)).size,
    };
  } finally {
    server.close();
  }
}
