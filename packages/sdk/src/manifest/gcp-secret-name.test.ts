// `secretRef.gcpSecretManager` in a manifest: the forms Secret Manager names are accepted, the rest refused at the
// field that is wrong, the editor schema agrees, and a runtime reads exactly one version's resource name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { gcpSecretVersionName } from './gcp-secret-name.js';
import { nativeManifestJsonSchema } from './json-schema.js';
import { validateManifestText } from './validate.js';

const minimal = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'examples', 'minimal.yaml'), 'utf8');
const withRef = (ref: string) => minimal.replace('env: { credentials: HCLOUD_TOKEN }', ref);
const errors = (ref: string) => validateManifestText(withRef(ref)).errors.map((e) => [e.path, e.message]);

describe('secretRef.gcpSecretManager', () => {
  it('accepts a secret id, with a version and a project, and a full secret name', () => {
    expect(errors('gcpSecretManager: { secret: kubeplane-providers-minimal-hetzner-1 }')).toEqual([]);
    expect(errors('gcpSecretManager: { secret: kubeplane-providers-minimal-hetzner-1, version: "3", project: team-a-prod }')).toEqual([]);
    expect(errors('gcpSecretManager: { secret: projects/team-a-prod/secrets/hcloud_token, version: latest }')).toEqual([]);
    expect(errors('gcpSecretManager: { secret: projects/123456789012/secrets/hcloud_token }')).toEqual([]);
  });

  it('refuses a name Secret Manager cannot hold, a bad version or project, and a project that contradicts the name, at the field', () => {
    expect(errors('gcpSecretManager: { secret: "kubeplane/minimal/hetzner" }')).toEqual([
      [
        'providers[0].secretRef.gcpSecretManager.secret',
        "\"kubeplane/minimal/hetzner\" is neither a Secret Manager secret id (at most 255 letters, digits, '-' and '_') nor a name projects/<project>/secrets/<id>",
      ],
    ]);
    expect(errors('gcpSecretManager: { secret: hcloud, version: "0" }').map(([p]) => p)).toEqual(['providers[0].secretRef.gcpSecretManager.version']);
    expect(errors('gcpSecretManager: { secret: hcloud, project: Team_A }').map(([p]) => p)).toEqual(['providers[0].secretRef.gcpSecretManager.project']);
    expect(errors('gcpSecretManager: { secret: projects/team-a-prod/secrets/hcloud, project: team-b-prod }')).toEqual([
      [
        'providers[0].secretRef.gcpSecretManager.project',
        'project "team-b-prod" differs from the project in the secret\'s name (team-a-prod); give one or the other',
      ],
    ]);
  });

  it('is one form: beside env it is refused, and with an unknown field too', () => {
    expect(errors('{ env: { credentials: HCLOUD_TOKEN }, gcpSecretManager: { secret: hcloud } }').map(([, m]) => m)).toEqual([
      'secretRef mixes env and gcpSecretManager; use exactly one form',
    ]);
    expect(validateManifestText(withRef('gcpSecretManager: { secretId: hcloud }')).ok).toBe(false);
  });

  it('has the same rules in the editor schema', () => {
    const validate = new Ajv({ strict: false }).compile(nativeManifestJsonSchema());
    const doc = (secret: Record<string, string>) => ({
      apiVersion: 'kubeplane.dev/v1',
      kind: 'Manifest',
      metadata: { name: 'm' },
      providers: [{ name: 'h', providerType: 'hetzner', secretRef: { gcpSecretManager: secret } }],
    });
    const refused = (secret: Record<string, string>) =>
      validate(doc(secret)) ? [] : (validate.errors ?? []).map((e) => e.instancePath).filter((p) => p.includes('gcpSecretManager'));
    expect(refused({ secret: 'projects/team-a-prod/secrets/hcloud', version: '2' })).toEqual([]);
    expect(refused({ secret: 'a/b' })).toContain('/providers/0/secretRef/gcpSecretManager/secret');
    expect(refused({ secret: 'hcloud', version: 'new version' })).toContain('/providers/0/secretRef/gcpSecretManager/version');
  });

  it("names the one version a runtime reads: latest in the runtime's project unless the reference says otherwise", () => {
    expect(gcpSecretVersionName({ secret: 'hcloud' }, 'kp-prod')).toBe('projects/kp-prod/secrets/hcloud/versions/latest');
    expect(gcpSecretVersionName({ secret: 'hcloud', project: 'team-a-prod', version: '4' }, 'kp-prod')).toBe('projects/team-a-prod/secrets/hcloud/versions/4');
    expect(gcpSecretVersionName({ secret: 'projects/123/secrets/hcloud' }, 'kp-prod')).toBe('projects/123/secrets/hcloud/versions/latest');
  });
});
