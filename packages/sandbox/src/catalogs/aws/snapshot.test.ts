// The AWS catalog snapshots hold what the EC2 emulator reads from them (their headers: ../snapshot-files.test.ts).
import { describe, expect, it } from 'vitest';
import { awsInstanceTypesSnapshot, awsRegionsSnapshot, awsUbuntuImagesSnapshot } from './snapshot.js';

describe('AWS catalog snapshots', () => {
  it('has every Region with its opt-in rule and zones whose AZ IDs carry the Region', () => {
    const { regions } = awsRegionsSnapshot();
    expect(regions.find((r) => r.name === 'eu-west-3')?.optIn).toBe(false);
    expect(regions.find((r) => r.name === 'eu-central-2')?.optIn).toBe(true);
    for (const r of regions) {
      expect(r.zones.length, r.name).toBeGreaterThanOrEqual(2);
      for (const z of r.zones) {
        expect(z.name.startsWith(r.name), z.name).toBe(true);
        expect(z.id, z.name).toMatch(/^[a-z]+\d-az\d$/);
      }
    }
  });

  it('lists Regions of the snapshot only for each family, and a family for every type', () => {
    const snapshot = awsInstanceTypesSnapshot();
    const known = new Set(awsRegionsSnapshot().regions.map((r) => r.name));
    for (const [family, regions] of Object.entries(snapshot.regions)) for (const r of regions) expect(known.has(r), `${family} in ${r}`).toBe(true);
    for (const t of snapshot.types) expect(snapshot.regions[t.name.split('.')[0] ?? ''], t.name).toBeDefined();
    expect(snapshot.types.find((t) => t.name === 'g4dn.xlarge')).toEqual({
      name: 'g4dn.xlarge',
      vcpus: 4,
      memoryMiB: 16384,
      architecture: 'x86_64',
      gpu: { count: 1, manufacturer: 'NVIDIA', name: 'T4', memoryMiB: 16384 },
    });
  });

  it("gives a type its own Regions only where they are a part of its family's, in the order of regions.json", () => {
    const snapshot = awsInstanceTypesSnapshot();
    const order = awsRegionsSnapshot().regions.map((r) => r.name);
    for (const t of snapshot.types) {
      if (!t.regions) continue;
      const family = snapshot.regions[t.name.split('.')[0] ?? ''] ?? [];
      expect(t.regions.length, t.name).toBeGreaterThan(0);
      expect(t.regions.length, t.name).toBeLessThan(family.length);
      expect(
        family.filter((r) => t.regions?.includes(r)),
        t.name,
      ).toEqual(t.regions);
      expect(
        order.filter((r) => t.regions?.includes(r)),
        t.name,
      ).toEqual(t.regions);
    }
  });

  it("lists a size only in the Regions whose offerings name it (moto's dump: p5.4xlarge not where only p5.48xlarge is sold)", () => {
    const { types, regions } = awsInstanceTypesSnapshot();
    const type = (name: string) => types.find((t) => t.name === name);
    expect(regions['p5']).toEqual(expect.arrayContaining(['us-west-1', 'ca-central-1', 'eu-north-1', 'ap-northeast-2', 'eu-west-2']));
    expect(type('p5.48xlarge')?.regions).toBeUndefined();
    expect(type('p5.4xlarge')?.regions).toEqual([
      'us-east-1',
      'us-east-2',
      'us-west-2',
      'sa-east-1',
      'eu-west-2',
      'ap-northeast-1',
      'ap-southeast-2',
      'ap-south-1',
      'ap-southeast-3',
    ]);
    // c5d.12xlarge and c5d.24xlarge are not sold in Paris, where the other c5d sizes are.
    expect(regions['c5d']).toContain('eu-west-3');
    expect(type('c5d.12xlarge')?.regions).not.toContain('eu-west-3');
    expect(type('c5d.xlarge')?.regions).toBeUndefined();
  });

  it("describes types as DescribeInstanceTypes reports them (moto's dump): default vCPUs, MiB, architecture, and each GPU's own memory", () => {
    const type = (name: string) => awsInstanceTypesSnapshot().types.find((t) => t.name === name);
    expect(type('c5n.18xlarge')).toEqual({ name: 'c5n.18xlarge', vcpus: 72, memoryMiB: 196608, architecture: 'x86_64' });
    expect(type('m6g.large')).toEqual({ name: 'm6g.large', vcpus: 2, memoryMiB: 8192, architecture: 'arm64' });
    expect(type('g6e.xlarge')).toEqual({
      name: 'g6e.xlarge',
      vcpus: 4,
      memoryMiB: 32768,
      architecture: 'x86_64',
      gpu: { count: 1, manufacturer: 'NVIDIA', name: 'L40S', memoryMiB: 45776 },
    });
    expect(type('p5.4xlarge')?.gpu).toEqual({ count: 1, manufacturer: 'NVIDIA', name: 'H100', memoryMiB: 81920 });
    // The A10G reports 22888 MiB, not the 24 GiB it is sold with.
    expect(type('g5.xlarge')?.gpu?.memoryMiB).toBe(22888);
    // t2 also runs i386; the catalog records the 64-bit architecture.
    expect(type('t2.micro')?.architecture).toBe('x86_64');
  });

  it('lists no metal size, no type AWS no longer sells (P3), and a family in the Regions whose offerings name it (P4de: Frankfurt, not Stockholm)', () => {
    const { types, regions } = awsInstanceTypesSnapshot();
    expect(types.filter((t) => t.name.includes('metal') || t.name.startsWith('p3.'))).toEqual([]);
    for (const [family, listed] of Object.entries(regions)) expect(listed.length, family).toBeGreaterThan(0);
    expect(regions['p4de']).toContain('eu-central-1');
    expect(regions['p4de']).not.toContain('eu-north-1');
    // moto has no offerings of mx-central-1: the previous compilation's Regions stand there (the file's notes).
    expect(regions['t3']).toContain('mx-central-1');
  });

  it("names Canonical's images as Canonical does, with their architecture", () => {
    const { owner, images } = awsUbuntuImagesSnapshot();
    expect(owner).toBe('099720109477');
    for (const i of images) {
      const arch = /^ubuntu\/images\/hvm-ssd(?:-gp3)?\/ubuntu-[a-z]+-\d\d\.\d\d-(amd64|arm64)-server-\d{8}$/.exec(i.name)?.[1];
      expect(arch, i.name).toBeDefined();
      expect(i.architecture).toBe(arch === 'arm64' ? 'arm64' : 'x86_64');
    }
  });
});
