// The benchmark's large manifest must stay valid as validation rules are added: a rule that refused it (several
// control-plane nodes without an API load balancer) broke `npm run bench` with no test noticing.
import { describe, expect, it } from 'vitest';
import { validateManifestObject } from '../manifest/validate.js';
import { largeManifest } from './plan.bench.js';

describe('the plan benchmark manifest', () => {
  it('validates at a small size with the shape of the large one', () => {
    const r = validateManifestObject(largeManifest(3, 4, 3));
    expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual([]);
  });
});
