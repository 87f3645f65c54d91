import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '../manifest/validate.js';
import { buildDesiredState } from '../model/desired-state.js';
import { emptyState, type CurrentState, type DesiredState } from '../model/types.js';
import { formatPlan } from './format.js';
import { plan, planDestroy } from './plan.js';
import type { Operation, Plan } from './types.js';

const hybrid = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'hybrid-aws-hetzner.yaml'), 'utf8');

function desired(text: string, current?: CurrentState): DesiredState {
  const r = validateManifestText(text);
  expect(r.errors).toEqual([]);
  const m = r.manifests[0];
  if (!m) throw new Error('no manifest');
  return buildDesiredState(m, current);
}

function planOk(want: DesiredState, have: CurrentState): Plan {
  const r = plan(want, have);
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.path}: ${i.message}`).join('\n'));
  return r.plan;
}

/** What the engine records after applying: the desired state becomes the current one. */
const applied = (d: DesiredState): CurrentState => structuredClone(d);
const targets = (ops: Operation[], kind: Operation['kind']) => ops.filter((o) => o.kind === kind).map((o) => o.target);
const indexOf = (ops: Operation[], kind: Operation['kind'], target?: string) =>
  ops.findIndex((o) => o.kind === kind && (target === undefined || o.target === target));

describe('plan', () => {
  it('creates everything from empty: infrastructure, API load balancer and DNS first, control plane before workers', () => {
    const want = desired(hybrid);
    const p = planOk(want, emptyState('hybrid')).operations;
    const id = want.clusters[0]?.id as string;
    expect(p[0]).toMatchObject({ kind: 'create-cluster', target: 'hybrid' });
    expect(targets(p, 'create-node')).toHaveLength(3 + 2 + 3 + 2);
    expect(targets(p, 'upsert-dns-record')).toEqual(['hybrid.example.com']);
    expect(targets(p, 'create-network').sort()).toEqual(['aws-1/eu-central-1', 'hetzner-1/fsn1']);
    // The API endpoint exists before any control plane boots: LB nodes and DNS come first.
    expect(indexOf(p, 'upsert-dns-record')).toBeLessThan(indexOf(p, 'create-node', `${id}-aws-control-01`));
    expect(indexOf(p, 'create-node', `${id}-aws-control-03`)).toBeLessThan(indexOf(p, 'create-node', `${id}-aws-worker-01`));
    expect(p[p.length - 1]).toMatchObject({ kind: 'write-outputs' });
    for (const op of p) expect(op.reason.length).toBeGreaterThan(10);
  });

  it('plans nothing when the current state matches the manifest', () => {
    const want = desired(hybrid);
    const p = planOk(desired(hybrid, applied(want)), applied(want));
    expect(p.operations).toEqual([]);
    expect(formatPlan(p)).toContain('no changes');
  });

  it('scales a pool up by adding the next nodes, and down by draining the highest ones one at a time', () => {
    const base = applied(desired(hybrid));
    const id = base.clusters[0]?.id as string;
    const up = planOk(desired(hybrid.replace(/count: 3\n(\s+)serverType: cpx42/, 'count: 5\n$1serverType: cpx42'), base), base).operations;
    expect(targets(up, 'create-node')).toEqual([`${id}-htz-worker-04`, `${id}-htz-worker-05`]);
    expect(up.find((o) => o.kind === 'create-node')?.reason).toContain('scales up from 3 to 5');
    expect(targets(up, 'delete-node')).toEqual([]);

    const down = planOk(desired(hybrid.replace(/count: 3\n(\s+)serverType: cpx42/, 'count: 1\n$1serverType: cpx42'), base), base).operations;
    const deletions = down.filter((o) => o.kind === 'delete-node');
    expect(deletions.map((o) => o.target)).toEqual([`${id}-htz-worker-03`, `${id}-htz-worker-02`]);
    expect(deletions.every((o) => o.drain)).toBe(true);
    expect(targets(down, 'create-node')).toEqual([]);
  });

  it("keeps every other node's name and overlay address when one pool scales", () => {
    const base = applied(desired(hybrid));
    const scaled = desired(hybrid.replace(/count: 2\n(\s+)serverType: t3.large/, 'count: 4\n$1serverType: t3.large'), base);
    const addresses = (s: DesiredState) => new Map(s.clusters[0]?.pools.flatMap((p) => p.nodes.map((n) => [n.name, n.overlayIp])) ?? []);
    const before = addresses(base);
    const after = addresses(scaled);
    for (const [name, ip] of before) expect(after.get(name)).toBe(ip);
    expect(after.size).toBe(before.size + 2);
    expect(new Set(after.values()).size).toBe(after.size);
  });

  it('adds and removes a pool: the new pool is created, the removed one drained and deleted', () => {
    const base = applied(desired(hybrid));
    const withGpu = hybrid
      .replace(
        'kubernetes:\n',
        `    - name: gpu\n      providerSpec: { name: aws-1, region: eu-west-1 }\n      count: 1\n      serverType: g5.xlarge\n      image: ami-0abc\nkubernetes:\n`,
      )
      .replace('compute: [aws-worker, htz-worker]', 'compute: [aws-worker, htz-worker, gpu]');
    const add = planOk(desired(withGpu, base), base).operations;
    expect(targets(add, 'create-pool')).toEqual(['gpu']);
    expect(targets(add, 'create-network')).toEqual(['aws-1/eu-west-1']);
    expect(targets(add, 'delete-node')).toEqual([]);

    const after = applied(desired(withGpu, base));
    const remove = planOk(desired(hybrid, after), after).operations;
    expect(targets(remove, 'delete-pool')).toEqual(['gpu']);
    expect(remove.filter((o) => o.kind === 'delete-node').every((o) => o.drain)).toBe(true);
    expect(targets(remove, 'delete-network')).toEqual(['aws-1/eu-west-1']);
    expect(targets(remove, 'create-node')).toEqual([]);
  });

  it('replaces a renamed pool: the new pool is created before the old one is removed', () => {
    const base = applied(desired(hybrid));
    const renamed = hybrid
      .replace('- name: htz-worker', '- name: htz-worker2')
      .replace('compute: [aws-worker, htz-worker]', 'compute: [aws-worker, htz-worker2]')
      .replace('targetPools: [aws-worker, htz-worker]', 'targetPools: [aws-worker, htz-worker2]')
      .replace('serverType: cpx42', 'serverType: ccx13');
    const p = planOk(desired(renamed, base), base).operations;
    const lastCreate = p.map((o) => o.kind).lastIndexOf('create-node');
    const firstDelete = indexOf(p, 'delete-node');
    expect(targets(p, 'create-pool')).toEqual(['htz-worker2']);
    expect(targets(p, 'delete-pool')).toEqual(['htz-worker']);
    expect(lastCreate).toBeLessThan(firstDelete);
    expect(p.find((o) => o.kind === 'create-pool')?.reason).toContain('replaces "htz-worker"');
    expect(targets(p, 'update-load-balancer-roles')).toEqual(['hybrid-lb']);
  });

  it("shows each compute pool's storage disk, and none for control planes and load balancers", () => {
    const want = desired(hybrid);
    const p = planOk(want, emptyState('hybrid')).operations;
    const pool = (name: string) => p.find((o) => o.kind === 'create-pool' && o.target === name)?.reason ?? '';
    expect(pool('aws-worker')).toContain('2 × t3.large on aws-1 eu-central-1/eu-central-1b, compute, 100 GB storage disk each');
    expect(pool('htz-worker')).not.toContain('storage disk');
    expect(pool('aws-control')).not.toContain('storage disk');
    const disks = p.filter((o) => o.kind === 'create-node' && o.details?.['storageDiskGB'] !== undefined).map((o) => [o.pool, o.details?.['storageDiskGB']]);
    expect(disks).toEqual([
      ['aws-worker', 100],
      ['aws-worker', 100],
    ]);
  });

  it("gives a Claudie document's compute pools Claudie's default disk of 50 GB, and its control pools none", () => {
    const claudie = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'claudie-bursting.yaml'), 'utf8');
    const pools = desired(claudie.replace('        storageDiskSize: 200\n', '')).clusters.flatMap((c) => [
      ...c.pools,
      ...c.loadBalancers.flatMap((l) => l.pools),
    ]);
    expect(pools.map((x) => [x.name, x.role, x.storageDiskSize])).toEqual([
      ['aws-control', 'control', 0],
      ['aws-worker', 'compute', 50],
      ['aws-lb', 'loadbalancer', 0],
    ]);
  });

  it('rejects a change to an immutable pool field and says to rename the pool', () => {
    const base = applied(desired(hybrid));
    const r = plan(desired(hybrid.replace('serverType: cpx42', 'serverType: ccx13'), base), base);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([expect.objectContaining({ path: 'nodePools.dynamic[2].serverType' })]);
    expect(r.issues[0]?.message).toContain('rename the pool');
  });

  it('shows a spot pool and each of its machines as spot, in the text and in the details', () => {
    const spot = hybrid.replace('serverType: t3.large\n', 'serverType: t3.large\n      spot: true\n');
    const p = planOk(desired(spot), emptyState('hybrid'));
    expect(p.operations.find((o) => o.kind === 'create-pool' && o.target === 'aws-worker')?.reason).toContain(
      '2 × t3.large spot on aws-1 eu-central-1/eu-central-1b',
    );
    const machines = p.operations.filter((o) => o.kind === 'create-node' && o.pool === 'aws-worker');
    expect(machines.map((o) => [o.details?.['spot'], o.reason.endsWith('; a spot machine')])).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(p.operations.filter((o) => o.kind === 'create-node' && o.pool === 'htz-worker').every((o) => o.details?.['spot'] === undefined)).toBe(true);
    expect(formatPlan(p)).toContain('2 × t3.large spot on aws-1');
  });

  it('rejects turning an existing pool into a spot pool (or back) and says to rename it', () => {
    const base = applied(desired(hybrid));
    const r = plan(desired(hybrid.replace('serverType: t3.large\n', 'serverType: t3.large\n      spot: true\n'), base), base);
    expect(r.ok ? [] : r.issues.map((i) => [i.path, i.message])).toEqual([
      ['nodePools.dynamic[1].spot', expect.stringContaining('spot of existing pool "aws-worker" cannot change; rename the pool')],
    ]);
  });

  it('rejects a network change, a downgrade and an upgrade that skips a minor', () => {
    const base = applied(desired(hybrid));
    const net = plan(desired(hybrid.replace('192.168.2.0/24', '192.168.3.0/24'), base), base);
    expect(net.ok ? [] : net.issues.map((i) => i.path)).toEqual(['kubernetes.clusters[0].network']);
    const down = plan(desired(hybrid.replace('"1.34.2"', '"1.33.9"'), base), base);
    expect(down.ok ? '' : down.issues[0]?.message).toContain('cannot be downgraded');
    const skip = plan(desired(hybrid.replace('"1.34.2"', '"1.36.0"'), base), base);
    expect(skip.ok ? '' : skip.issues[0]?.message).toContain('one minor version at a time');
  });

  it('plans label, taint and version changes last, after node changes', () => {
    const base = applied(desired(hybrid));
    const changed = hybrid
      .replace('"1.34.2"', '"1.35.0"')
      .replace('kubeplane.dev/tier: burst', 'kubeplane.dev/tier: spot')
      .replace(/count: 2\n(\s+)serverType: t3.large/, 'count: 3\n$1serverType: t3.large');
    const p = planOk(desired(changed, base), base).operations;
    expect(p.map((o) => o.kind)).toEqual(['create-node', 'upgrade-version', 'patch-node-metadata', 'write-outputs']);
    expect(p[1]?.details).toEqual({ from: '1.34.2', to: '1.35.0' });
  });

  it('deletes everything: DNS and load balancers, then nodes, networks, the cluster, and its outputs last', () => {
    const base = applied(desired(hybrid));
    const p = planDestroy(base).operations;
    expect(p[0]?.kind).toBe('delete-dns-record');
    expect(p.slice(-2)).toMatchObject([
      { kind: 'delete-cluster', target: 'hybrid' },
      { kind: 'delete-outputs', target: 'hybrid' },
    ]);
    expect(targets(p, 'delete-node')).toHaveLength(10);
    expect(p.filter((o) => o.kind === 'delete-node').some((o) => o.drain)).toBe(false);
    expect(indexOf(p, 'delete-dns-record')).toBeLessThan(indexOf(p, 'delete-node'));
    expect(targets(p, 'create-node')).toEqual([]);
  });

  it('moves the API endpoint when an API load balancer is added to a cluster without one', () => {
    // One control plane: several behind a reserved IP are refused (a single point of failure).
    const noLb = hybrid
      .replace(/loadBalancers:[\s\S]*$/, '')
      .replace(/ {4}- name: htz-lb[\s\S]*?image: ubuntu-24.04\n/, '')
      .replace(/(name: aws-control\n[\s\S]*?count: )3/, '$11');
    const base = applied(desired(noLb));
    expect(base.clusters[0]?.apiEndpoint.kind).toBe('reserved-ip');
    const p = planOk(desired(hybrid, base), base).operations;
    expect(targets(p, 'change-api-endpoint')).toEqual(['hybrid.example.com:6443']);
    expect(indexOf(p, 'create-load-balancer')).toBeLessThan(indexOf(p, 'change-api-endpoint'));
  });
});
