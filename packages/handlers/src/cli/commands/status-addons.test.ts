// `kubeplane status` lists each cluster's add-ons: declared and installed versions, state, and why while not installed.
import { describe, expect, it } from 'vitest';
import { addonLines } from './engine.js';

describe('add-ons in kubeplane status', () => {
  it('shows an upgrade under way with both versions and its message, an installed add-on without one', () => {
    expect(
      addonLines([
        { name: 'cilium', chart: 'cilium', declaredVersion: '1.18.5', installedVersion: '1.18.5', state: 'installed', message: 'Install complete' },
        {
          name: 'hcloud_csi',
          chart: 'hcloud-csi',
          declaredVersion: '2.18.1',
          installedVersion: '2.18.0',
          state: 'installing',
          message: 'upgrading 2.18.0 -> 2.18.1 (Job helm-install-hcloud-csi)',
        },
        {
          name: 'longhorn',
          chart: 'longhorn',
          declaredVersion: '9.9.9',
          state: 'failed',
          message: 'chart "longhorn" version "9.9.9" not found in https://charts.longhorn.io repository',
        },
      ]),
    ).toEqual([
      'add-ons:',
      '  cilium (cilium 1.18.5): installed',
      '  hcloud_csi (hcloud-csi 2.18.0 -> 2.18.1): installing — upgrading 2.18.0 -> 2.18.1 (Job helm-install-hcloud-csi)',
      '  longhorn (longhorn 9.9.9): failed — chart "longhorn" version "9.9.9" not found in https://charts.longhorn.io repository',
    ]);
  });

  it('prints nothing for a cluster without add-on states', () => {
    expect(addonLines([])).toEqual([]);
  });
});
