import { describe, expect, it } from 'vitest';
import { SANDBOX_CREDENTIALS } from './accounts.js';

describe('sandbox credentials', () => {
  it('has a Hetzner token of 64 letters and digits, as Hetzner issues them and the hetzner profile checks them', () => {
    // packages/sdk/src/providers-data/hetzner.ts: credentials /^[A-Za-z0-9]{64}$/; newer hcloud CLIs refuse other lengths.
    expect(SANDBOX_CREDENTIALS.hetznerToken).toMatch(/^[A-Za-z0-9]{64}$/);
  });
});
