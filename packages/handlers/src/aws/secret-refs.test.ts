// The serverless API's refusal of credentials references it must not read, add-ons' own included.
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '@kubeplane/sdk';
import { refusedSecretRefs } from './secret-refs.js';

const manifest = (addonRef: string) => {
  const r = validateManifestText(`apiVersion: kubeplane.dev/v1
kind: Manifest
metadata: { name: tenant }
providers:
  - { name: hetzner-1, providerType: hetzner, secretRef: { awsSecretsManager: { secretId: kubeplane-providers/tenant/hcloud } } }
nodePools:
  dynamic:
    - { name: control, providerSpec: { name: hetzner-1, region: fsn1 }, count: 1, serverType: cpx22, image: ubuntu-24.04 }
kubernetes:
  clusters:
    - name: demo
      version: "1.34.2"
      network: 10.0.0.0/24
      pools: { control: [control] }
      addons:
        - { name: hcloud_csi, secretRef: ${addonRef} }
`);
  if (!r.ok || !r.manifests[0]) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.manifests[0];
};

describe('add-on credentials in the serverless API', () => {
  it('refuses an add-on credential read from the step function\'s own environment', () => {
    expect(refusedSecretRefs(manifest('{ env: { credentials: AWS_SECRET_ACCESS_KEY } }'))).toEqual([
      expect.objectContaining({ status: 400, path: 'kubernetes.clusters[0].addons[0].secretRef.env' }),
    ]);
  });

  it('refuses another project\'s secret, and accepts its own or a provider named with fromProvider', () => {
    expect(refusedSecretRefs(manifest('{ awsSecretsManager: { secretId: kubeplane-providers/other/hcloud } }')).map((r) => r.status)).toEqual([403]);
    expect(refusedSecretRefs(manifest('{ awsSecretsManager: { secretId: kubeplane-providers/tenant/csi } }'))).toEqual([]);
    expect(refusedSecretRefs(manifest('{ fromProvider: hetzner-1 }'))).toEqual([]);
  });
});
