// A provider's credentials from a file: AWS takes keys or a role, so a file holding only `rolearn` is complete, a
// file holding half a key pair names the key and the file, and an unreadable file says why rather than "missing".
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProviderDef } from '@kubeplane/sdk';
import { resolveAddonCredentials, resolveCredentials } from './credentials.js';

const dir = mkdtempSync(join(tmpdir(), 'kubeplane-credentials-'));
const aws = (file: string) => ({ name: 'aws-1', providerType: 'aws', secretRef: { file } }) as unknown as ProviderDef;
const write = (name: string, text: string) => {
  writeFileSync(join(dir, name), text, { mode: 0o600 });
  return name;
};

describe('resolveCredentials from a file', () => {
  it('takes a role alone for AWS, with its external id', async () => {
    const creds = await resolveCredentials(aws(write('role.yaml', 'rolearn: arn:aws:iam::123456789012:role/kubeplane-provider\nexternalid: team-a-7f3\n')), {
      env: {},
      cwd: dir,
    });
    expect(Object.keys(creds).sort()).toEqual(['externalid', 'rolearn']);
    expect(creds.rolearn?.reveal()).toBe('arn:aws:iam::123456789012:role/kubeplane-provider');
  });

  it('names the missing half of a key pair with its file', async () => {
    await expect(resolveCredentials(aws(write('half.yaml', 'accesskey: AKIAABCDEFGHIJKLMNOP\n')), { env: {}, cwd: dir })).rejects.toThrow(
      /secret not found: file .*half\.yaml \(key secretkey\) has no string value/,
    );
  });

  it('reports an unreadable file as such, not as a missing key', async () => {
    await expect(resolveCredentials(aws('no-such-file.yaml'), { env: {}, cwd: dir })).rejects.toThrow(/secret not readable: .*no-such-file\.yaml/);
  });

  it('refuses a role ARN that is not one', async () => {
    await expect(resolveCredentials(aws(write('user.yaml', 'rolearn: arn:aws:iam::123456789012:user/alice\n')), { env: {}, cwd: dir })).rejects.toThrow(
      'credential "rolearn" is not an IAM role ARN',
    );
  });
});

describe('resolveAddonCredentials', () => {
  const token = [{ key: 'credentials', required: true }] as const;

  it("reads an add-on's own keys from the environment, Redacted", async () => {
    const creds = await resolveAddonCredentials({ env: { credentials: 'CSI_TOKEN' } }, token, 'add-on hcloud_csi', {
      env: { CSI_TOKEN: 'csi-token-value' },
      cwd: dir,
    });
    expect(String(creds.credentials)).toBe('[redacted]');
    expect(creds.credentials?.reveal()).toBe('csi-token-value');
  });

  it('names the add-on and the missing key, never a value', async () => {
    await expect(resolveAddonCredentials({ file: write('csi.yaml', 'other: x\n') }, token, 'add-on hcloud_csi', { env: {}, cwd: dir })).rejects.toThrow(
      /csi\.yaml \(key credentials\) has no string value/,
    );
    await expect(resolveAddonCredentials({ name: 'csi', namespace: 'kube-system' }, token, 'add-on hcloud_csi', { env: {}, cwd: dir })).rejects.toThrow(
      'add-on hcloud_csi: secretRef names the Kubernetes Secret kube-system/csi, which kubeplane reads from a cluster you name, ' +
        'never from the current context: pass --secrets-context NAME',
    );
  });
});

describe('credentials the local runtime cannot read', () => {
  it('says a Google Secret Manager secret is read by the Google Cloud runtime, and what to use locally', async () => {
    const def = {
      name: 'hetzner-1',
      providerType: 'hetzner',
      secretRef: { gcpSecretManager: { secret: 'kubeplane-providers-minimal-hetzner-1' } },
    } as unknown as ProviderDef;
    await expect(resolveCredentials(def, { env: {}, cwd: dir })).rejects.toThrow(
      'provider hetzner-1: gcpSecretManager credentials are read by the Google Cloud runtime; locally use secretRef.env or secretRef.file',
    );
  });
});
