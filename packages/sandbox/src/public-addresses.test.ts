import { describe, expect, it } from 'vitest';
import { isSandboxPublicAddress, sandboxPublicAddress } from './public-addresses.js';

describe('sandbox public addresses', () => {
  it('are all in 198.18.0.0/15 and never collide across clouds and EC2 regions', () => {
    const owners = ['crusoe', 'hetzner', 'ec2:eu-central-1', 'ec2:us-east-1', 'ec2:sa-east-1'];
    const seen = new Set<string>();
    for (const owner of owners) {
      for (let seq = 1; seq <= 2000; seq++) {
        const ip = sandboxPublicAddress(owner, seq);
        expect(isSandboxPublicAddress(ip)).toBe(true);
        expect(ip).not.toMatch(/\.(0|255)$/);
        expect(seen.has(ip)).toBe(false);
        seen.add(ip);
      }
    }
  });
});
