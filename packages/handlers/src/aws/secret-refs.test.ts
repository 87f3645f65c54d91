// The serverless API's refusal of credentials references it must not read, add-ons' own included.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '@kubeplane/sdk';
import { refusedSecretRefs } from './secret-refs.js';

const manifest = (addonRef: string) => {
  const text = readFileSync(new URL('../../../../test/fixtures/addons/hetzner.yaml', import.meta.url), 'utf8').replace(
    /\$\{(\w+)\}/g,
    (_, k: string) =>
      ({
        project: 'tenant',
        hetznerSecretRef: '{ awsSecretsManager: { secretId: kubeplane-providers/tenant/hcloud } }',
        addons: `        - { name: hcloud_csi, secretRef: ${addonRef} }`,
      })[k] ?? '',
  );
  const r = validateManifestText(text);
  if (!r.ok || !r.manifests[0]) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.manifests[0];
};

describe('add-on credentials in the serverless API', () => {
  it("refuses an add-on credential read from the step function's own environment", () => {
    expect(refusedSecretRefs(manifest('{ env: { credentials: AWS_SECRET_ACCESS_KEY } }'))).toEqual([
      expect.objectContaining({ status: 400, path: 'kubernetes.clusters[0].addons[0].secretRef.env' }),
    ]);
  });

  it("refuses another project's secret, and accepts its own or a provider named with fromProvider", () => {
    expect(refusedSecretRefs(manifest('{ awsSecretsManager: { secretId: kubeplane-providers/other/hcloud } }')).map((r) => r.status)).toEqual([403]);
    expect(refusedSecretRefs(manifest('{ awsSecretsManager: { secretId: kubeplane-providers/tenant/csi } }'))).toEqual([]);
    expect(refusedSecretRefs(manifest('{ fromProvider: hetzner-1 }'))).toEqual([]);
  });

  it('refuses a Google Secret Manager secret, which the AWS runtime cannot read, naming it as such', () => {
    expect(refusedSecretRefs(manifest('{ gcpSecretManager: { secret: kubeplane-providers-tenant-csi } }'))).toEqual([
      expect.objectContaining({
        status: 400,
        path: 'kubernetes.clusters[0].addons[0].secretRef.gcpSecretManager',
        message: expect.stringMatching(/^a Google Secret Manager secret is refused: the AWS runtime cannot read it/),
      }),
    ]);
  });
});
