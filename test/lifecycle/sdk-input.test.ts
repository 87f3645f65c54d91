// What the SDK's Kubeplane does with input a TypeScript type cannot vouch for (a JavaScript caller, a manifest
// changed in code after validation, JSON from elsewhere): apply, plan and preflight validate it again and refuse it
// with every problem named before anything is recorded; status names a project that does not exist.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isKubeplaneError, type Manifest } from '@kubeplane/sdk';
import { toDocument } from '@kubeplane/sdk/internal';
import { manifestOf, sandboxWorld, type World } from '../helpers/sandbox-world.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'minimal.yaml'), 'utf8');

let w: World | undefined;
afterEach(() => w?.sandbox.close());

/** The KubeplaneError `fn` rejects with (fails the test if it resolves or throws anything else). */
async function refusal(fn: () => Promise<unknown>): Promise<{ kind: string; code?: string; message: string }> {
  const e = await fn().then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!isKubeplaneError(e)) throw new Error(`expected a KubeplaneError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  return { kind: e.kind, ...(e.details.code ? { code: e.details.code } : {}), message: e.message };
}

describe('Kubeplane given input its types do not vouch for', () => {
  it('refuses an object built by hand with each wrong field named by its path, and records nothing', async () => {
    w = sandboxWorld(1);
    const kp = w.kp;
    // Once a TypeError inside apply ("Cannot read properties of undefined").
    const e = await refusal(() => kp.apply({ name: 'x', providers: [{ name: 'h' }], nodePools: 'none' } as unknown as Manifest));
    expect(e).toMatchObject({ kind: 'invalid', code: 'InvalidManifest' });
    expect(e.message).toMatch(/^providers\[0\]/m);
    expect(e.message).toMatch(/^nodePools: /m);
    expect(await kp.projects()).toEqual([]);
  });

  it('refuses what is not an object at all, saying what it got', async () => {
    w = sandboxWorld(1);
    const kp = w.kp;
    for (const [input, got] of [
      [null, 'null'],
      ['minimal.yaml', 'string'],
      [[], 'an array'],
      [undefined, 'undefined'],
    ] as const) {
      const e = await refusal(() => kp.apply(input as unknown as Manifest));
      expect(e.message).toBe(
        `apply takes a manifest (a ManifestInput, or one from validateManifestText, validateManifestFile or validateManifestObject), not ${got}`,
      );
    }
  });

  it('validates a manifest changed in code after its validation: apply and plan refuse it, preflight reports its problems', async () => {
    w = sandboxWorld(1);
    const kp = w.kp;
    const m = manifestOf(minimal);
    const pool = m.nodePools.dynamic[0];
    if (!pool) throw new Error('minimal.yaml has a dynamic pool');
    const changed: Manifest = { ...m, nodePools: { ...m.nodePools, dynamic: [{ ...pool, name: 'Not_A_Name' }, ...m.nodePools.dynamic.slice(1)] } };
    for (const call of [() => kp.apply(changed), () => kp.plan(changed)]) {
      const e = await refusal(call);
      expect(e).toMatchObject({ kind: 'invalid', code: 'InvalidManifest' });
      expect(e.message).toContain('nodePools.dynamic[0].name');
    }
    const problems = await kp.preflight(changed);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.severity === 'error')).toBe(true);
    expect(problems.map((p) => p.path)).toContain('nodePools.dynamic[0].name');
    expect(await kp.projects()).toEqual([]);
  });

  it('takes a manifest document as validateManifestObject does, and the typed manifest unchanged', async () => {
    w = sandboxWorld(1);
    const kp = w.kp;
    const m = manifestOf(minimal);
    const fromDocument = await kp.apply(JSON.parse(JSON.stringify(toDocument(m))) as Manifest);
    expect(fromDocument).toMatchObject({ generation: 1, queued: ['minimal'] });
    const again = await kp.apply(m);
    // The same manifest: nothing to change, the cluster still in the flow the first apply queued.
    expect(again.plan.operations).toEqual(fromDocument.plan.operations);
    expect((await kp.status('minimal')).generation).toBe(2);
  });
});

describe('status of a project that does not exist', () => {
  it('is a not-found error naming only the project asked for, never the others there are; findStatus answers null', async () => {
    w = sandboxWorld(1);
    const kp = w.kp;
    expect(await refusal(() => kp.status('nope'))).toEqual({ kind: 'not-found', message: 'no project named nope' });
    expect(await kp.findStatus('nope')).toBeNull();
    await kp.apply(manifestOf(minimal));
    // A service passes this message on to its caller: another tenant's project must not be in it.
    expect(await refusal(() => kp.status('nope'))).toEqual({ kind: 'not-found', message: 'no project named nope' });
    expect((await kp.findStatus('minimal'))?.generation).toBe(1);
    expect(await refusal(() => kp.status(42 as unknown as string))).toMatchObject({ kind: 'invalid', code: 'InvalidProject' });
  });

  it('is refused, not taken as the name "undefined", by destroy, destroyCluster, kubeconfig and reconcile', async () => {
    w = sandboxWorld(1);
    const kp = w.kp;
    const missing = undefined as unknown as string;
    for (const call of [
      () => kp.destroy(missing),
      () => kp.destroyCluster(missing, 'c'),
      () => kp.kubeconfig(missing, 'c'),
      () => kp.reconcile(''),
      () => kp.destroy(''),
    ]) {
      expect(await refusal(call)).toMatchObject({ kind: 'invalid', code: 'InvalidProject' });
    }
  });
});
