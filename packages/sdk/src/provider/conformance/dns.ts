// Conformance for DNS-only providers (Cloudflare): the core suite's rules that apply without compute — capability
// flags (C1), error kinds (C6), throttling (C7), transient failures (C8), idempotent deletes (C9), credentials (C11)
// and DNS changes (C15) — one describe group per rule, run against the provider's sandbox.
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeplaneError } from '../../errors.js';
import type { Outcome } from '../outcome.js';
import { settle } from '../settle.js';
import type { DnsApi, DnsRecord, Provider } from '../types.js';
import type { ConformanceSandbox } from './harness.js';
import { CONTRACT_RULES } from './rules.js';

/** What the DNS conformance suite needs: a sandbox, the provider and a zone. */
export interface DnsConformanceOptions {
  name: string;
  /** A fresh sandbox (started) per test. */
  sandbox: () => ConformanceSandbox | Promise<ConformanceSandbox>;
  /** The provider under test, on the sandbox. */
  makeProvider: (sandbox: ConformanceSandbox) => Provider;
  /** The provider with credentials the sandbox refuses. */
  makeUnauthorizedProvider: (sandbox: ConformanceSandbox) => Provider;
  secretValues: string[];
  /** A zone that exists in the sandbox. */
  zone: string;
  /** Tells runs apart in the report (`with Load Balancing`). */
  label?: string;
}

function title(id: (typeof CONTRACT_RULES)[number]['id']): string {
  return `${id}: ${CONTRACT_RULES.find((r) => r.id === id)?.title ?? ''}`;
}

/** Registers the DNS-only conformance groups for one provider. */
export function runDnsProviderConformance(options: DnsConformanceOptions): void {
  const { zone } = options;
  let sandbox: ConformanceSandbox;
  let provider: Provider;
  let seq = 0;
  const run = <T>(call: (attempt: number) => Promise<Outcome<T>>): Promise<T> => settle(call, { clock: sandbox.clock, maxAttempts: 400 });
  const dns = (): DnsApi => {
    if (!provider.dns) throw new Error(`${options.name} has no dns API`);
    return provider.dns;
  };
  const clusterId = () => `dns${++seq}`;
  const records = (cluster: string): DnsRecord[] => [
    { name: `api.${cluster}.${zone}`, type: 'A', ttl: 60, values: ['198.51.100.10', '198.51.100.11'] },
    { name: `www.${cluster}.${zone}`, type: 'CNAME', ttl: 300, values: [`api.${cluster}.${zone}`] },
  ];
  const ours = (list: DnsRecord[], cluster: string) => list.filter((r) => r.name.includes(`.${cluster}.`));
  const rejection = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );

  describe(`dns provider conformance: ${options.name}${options.label ? ` (${options.label})` : ''}`, () => {
    beforeEach(async () => {
      sandbox = await options.sandbox();
      provider = options.makeProvider(sandbox);
    });
    afterEach(() => sandbox.stop());

    describe(title('C1'), () => {
      it('exposes exactly the DNS API it declares, and no compute', () => {
        expect(provider.name).toBe(options.name);
        expect(provider.capabilities.dns).toBe(true);
        expect(provider.dns).toBeDefined();
        expect(provider.compute !== undefined).toBe(provider.capabilities.compute);
        expect(provider.network !== undefined).toBe(provider.capabilities.network);
        expect(provider.managedKubernetes !== undefined).toBe(provider.capabilities.managedKubernetes);
      });
    });

    describe(title('C6'), () => {
      it('classifies rejected credentials as auth with the provider code', async () => {
        const error = await rejection(options.makeUnauthorizedProvider(sandbox).dns?.listRecords(zone) ?? Promise.resolve());
        expect(error).toBeInstanceOf(KubeplaneError);
        expect((error as KubeplaneError).kind).toBe('auth');
        expect((error as KubeplaneError).details.provider).toBe(options.name);
        expect((error as KubeplaneError).details.code).toBeTruthy();
      });
      it('classifies an unknown zone as not-found', async () => {
        const error = await rejection(dns().listRecords(`no-such-zone-${clusterId()}.invalid`));
        expect((error as KubeplaneError).kind).toBe('not-found');
      });
    });

    describe(title('C7'), () => {
      it('turns a throttled upsert into pending(throttled) with a delay, then writes the records once', async () => {
        const cluster = clusterId();
        sandbox.injectFault('any', 'throttled', 1);
        const first = await dns().upsertRecords(zone, cluster, records(cluster));
        expect(first).toMatchObject({ status: 'pending', reason: 'throttled' });
        if (first.status === 'pending') expect(first.retryAfterSeconds).toBeGreaterThan(0);
        await run(() => dns().upsertRecords(zone, cluster, records(cluster)));
        const listed = ours(await run(() => dns().listRecords(zone)), cluster);
        expect(listed.find((r) => r.type === 'A')?.values).toEqual(['198.51.100.10', '198.51.100.11']);
      });
    });

    describe(title('C8'), () => {
      it('turns a 5xx into pending(retryable) and then succeeds without duplicate records', async () => {
        const cluster = clusterId();
        sandbox.injectFault('any', 'server-error', 2);
        const first = await dns().upsertRecords(zone, cluster, records(cluster));
        expect(first).toMatchObject({ status: 'pending', reason: 'retryable' });
        await run(() => dns().upsertRecords(zone, cluster, records(cluster)));
        await run(() => dns().upsertRecords(zone, cluster, records(cluster)));
        expect(sandbox.liveResources(cluster)).toHaveLength(3);
      });
    });

    describe(title('C9'), () => {
      it('reports done when deleting records that never existed', async () => {
        const cluster = clusterId();
        await run(() => dns().deleteRecords(zone, cluster, [{ name: `gone.${cluster}.${zone}`, type: 'A' }]));
      });
    });

    describe(title('C11'), () => {
      it('keeps credentials out of errors, provider dumps and the inventory', async () => {
        const bad = options.makeUnauthorizedProvider(sandbox);
        const error = await rejection(bad.dns?.listRecords(zone) ?? Promise.resolve());
        await run(() => dns().upsertRecords(zone, clusterId(), records(`c11${seq}`)));
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

    describe(title('C15'), () => {
      it('upserts records, reports the change in sync, updates values, and deletes them twice', async () => {
        const cluster = clusterId();
        const change = await run(() => dns().upsertRecords(zone, cluster, records(cluster)));
        expect((await run(() => dns().changeStatus(change.id))).status).toBe('in-sync');
        const listed = ours(await run(() => dns().listRecords(zone)), cluster);
        expect(listed.map((r) => r.name).sort()).toEqual(
          records(cluster)
            .map((r) => r.name)
            .sort(),
        );
        const moved = [{ ...records(cluster)[0], values: ['198.51.100.12'] } as DnsRecord];
        await run(() => dns().upsertRecords(zone, cluster, moved));
        expect(ours(await run(() => dns().listRecords(zone)), cluster).find((r) => r.type === 'A')?.values).toEqual(['198.51.100.12']);
        const refs = records(cluster).map((r) => ({ name: r.name, type: r.type }));
        await run(() => dns().deleteRecords(zone, cluster, refs));
        await run(() => dns().deleteRecords(zone, cluster, refs));
        expect(ours(await run(() => dns().listRecords(zone)), cluster)).toEqual([]);
        expect(sandbox.liveResources(cluster)).toEqual([]);
      });
      it('creates health-checked failover records with a health check each, or plain records without the capability', async () => {
        const cluster = clusterId();
        const name = `lb.${cluster}.${zone}`;
        const change = await run(() =>
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
        const checks = sandbox.liveResources(cluster).filter((x) => x.kind === 'health-check');
        if (provider.capabilities.dnsFailover) {
          expect(checks).toHaveLength(2);
          const listed = (await run(() => dns().listRecords(zone))).filter((r) => r.name === name);
          expect(listed.map((r) => r.failover?.role).sort()).toEqual(['primary', 'secondary']);
        } else {
          expect(checks).toHaveLength(0);
          expect(change.warnings?.join(' ')).toMatch(/Load Balancing/);
          const listed = (await run(() => dns().listRecords(zone))).filter((r) => r.name === name);
          expect(listed.map((r) => r.values)).toEqual([['198.51.100.20', '198.51.100.21']]);
        }
        await run(() =>
          dns().deleteRecords(zone, cluster, [
            { name, type: 'A', setIdentifier: 'primary' },
            { name, type: 'A', setIdentifier: 'secondary' },
          ]),
        );
        expect(sandbox.liveResources(cluster)).toEqual([]);
      });
    });
  });
}
