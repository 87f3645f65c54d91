// The sandbox-cloud registry as the rest of the sandbox relies on it: names, served ports and keys, public-address
// blocks and provider types that no two clouds share, and Sandbox fields that shadow nothing of the Sandbox's own.
import { describe, expect, it } from 'vitest';
import { PROVIDER_TYPES } from '@kubeplane/sdk';
import { publicAddressBlock } from '../public-addresses.js';
import { Sandbox } from '../sandbox.js';
import { providerCloudOf, SANDBOX_CLOUDS, SANDBOX_PROVIDER_TYPES, sandboxCloudsOf, servedClouds } from './index.js';

describe('the sandbox-cloud registry', () => {
  it('names each cloud once', () => {
    const names = SANDBOX_CLOUDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('serves each API on a port and under a key of its own, the ports from the base up with no gap (docs/sandbox.md)', () => {
    const served = servedClouds();
    expect(served.map((c) => c.serve.port)).toEqual(served.map((_, i) => i));
    const keys = served.map((c) => c.serve.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives no two public-address owners one block of 198.18.0.0/15', () => {
    const owners = SANDBOX_CLOUDS.flatMap((c) => c.publicAddressOwners ?? []);
    expect(owners.length).toBeGreaterThan(0);
    const blocks = owners.map((o) => publicAddressBlock(o));
    expect(new Set(blocks).size).toBe(owners.length);
  });

  it('has one provider side per provider type, of a type the SDK knows', () => {
    for (const type of SANDBOX_PROVIDER_TYPES) {
      expect(PROVIDER_TYPES).toContain(type);
      expect(sandboxCloudsOf(type).filter((c) => c.provider)).toHaveLength(1);
      expect(providerCloudOf(type)?.providerType).toBe(type);
    }
  });

  it("gives the Sandbox fields that are the clouds' own, shadowing none of its members", () => {
    const sandbox = new Sandbox({ seed: 1 });
    const own = new Set([
      ...Object.getOwnPropertyNames(Sandbox.prototype),
      'clock',
      'rng',
      'random',
      'faults',
      'context',
      'clouds',
      'kubernetes',
      'google',
      'staticMachines',
    ]);
    const fields = sandbox.clouds.flatMap(({ cloud, emulator }) => Object.keys(cloud.fields(emulator)));
    expect(new Set(fields).size).toBe(fields.length);
    for (const field of fields) {
      expect(own.has(field)).toBe(false);
      expect((sandbox as unknown as Record<string, unknown>)[field]).toBeDefined();
    }
  });
});
