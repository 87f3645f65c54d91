import { describe, expect, it } from 'vitest';
import { EmulatorError } from '../emulator/index.js';
import { hetznerLabelSelector } from './label-selector.js';

const labels = { env: 'prod', tier: 'web', 'kubeplane.dev/cluster-id': 'c1' };

describe('Hetzner label selectors', () => {
  it('reads equality, inequality, existence, absence and set expressions joined by commas', () => {
    expect(hetznerLabelSelector('env=prod')(labels)).toBe(true);
    expect(hetznerLabelSelector('env==prod,tier!=db')(labels)).toBe(true);
    expect(hetznerLabelSelector('kubeplane.dev/cluster-id,!missing')(labels)).toBe(true);
    expect(hetznerLabelSelector('tier in (web, api)')(labels)).toBe(true);
    expect(hetznerLabelSelector('env in (dev,staging),tier')(labels)).toBe(false);
    expect(hetznerLabelSelector('env notin (dev,staging)')(labels)).toBe(true);
    expect(hetznerLabelSelector('missing notin (x)')(labels)).toBe(true);
  });

  it.each(['env=prod=x', 'env in prod', '=prod', 'env!', 'env in ()', 'bad key=1', 'env=pro d'])('refuses %j as 400 invalid_input', (selector) => {
    let error: unknown;
    try {
      hetznerLabelSelector(selector);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EmulatorError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_input' });
  });
});
