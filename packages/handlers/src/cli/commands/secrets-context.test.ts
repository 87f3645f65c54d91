// Claudie's provider secretRef, a Kubernetes Secret by name and namespace, read from a cluster the user names by a
// kubeconfig context (as Claudie reads it from its management cluster). The "management cluster" here is a sandbox
// cluster, its kubeconfig a file: `kubeplane apply` with --secrets-context reads the Secret from it, a real-cloud run
// hands what it read to the clouds (the sandbox's Hetzner checks the token), and without a context named the apply
// is refused with how to name one, never reading the current context.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redacted, validateManifestText } from '@kubeplane/sdk';
import { kubernetesConnector } from '@kubeplane/providers';
import { Sandbox } from '@kubeplane/sandbox';
import { runCli } from '../../../../../test/helpers/cli.js';
import { createKubeplane, createSandboxKubeplane } from '../../runtime/embed.js';

/** A token of Hetzner's form (64 letters and digits) that the sandbox's Hetzner is told to accept. */
const TOKEN = 'Kp7secretRefManagementClusterToken0000000000000000000000000000AB';
/** Another of the same form, that it refuses. */
const WRONG = 'Wr0ngTokenWr0ngTokenWr0ngTokenWr0ngTokenWr0ngTokenWr0ngToken0000';
const CONTEXT = 'kubeplane-admin@mgmt';

/** Claudie's own manifest, as its guide writes it: the provider's credentials in a Secret of the management cluster. */
const CLAUDIE = (secret: string) => `apiVersion: claudie.io/v1beta1
kind: InputManifest
metadata:
  name: workload
spec:
  providers:
    - name: hetzner-1
      providerType: hetzner
      secretRef:
        name: ${secret}
        namespace: claudie-secrets
  nodePools:
    dynamic:
      - name: control
        providerSpec: { name: hetzner-1, region: fsn1, zone: fsn1-dc14 }
        count: 1
        serverType: cpx22
        image: ubuntu-24.04
  kubernetes:
    clusters:
      - name: workload
        version: v1.34.2
        network: 192.168.2.0/24
        pools:
          control: [control]
          compute: [control]
`;
const SECRET_REF_LINE = CLAUDIE('x').split('\n').indexOf('      secretRef:') + 1;

let dir: string;
let state: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeplane-secrets-context-'));
  state = join(dir, 'state');
  // The management cluster: a sandbox cluster named mgmt, its admin kubeconfig written to a file.
  const mgmt = (await readFile(join(import.meta.dirname, '..', '..', '..', '..', '..', 'examples', 'minimal.yaml'), 'utf8')).replaceAll('minimal', 'mgmt');
  await writeFile(join(dir, 'mgmt.yaml'), mgmt);
  const applied = await runCli(['apply', 'mgmt.yaml', '--sandbox', '--state-dir', state], { cwd: dir });
  expect(applied.code, applied.stderr).toBe(0);
  const kubeconfig = await runCli(['kubeconfig', 'mgmt', '--sandbox', '--state-dir', state, '--out', 'mgmt.kubeconfig'], { cwd: dir });
  expect(kubeconfig.code, kubeconfig.stderr).toBe(0);
  // The Secrets, put there through the cluster's Kubernetes API as `kubectl create secret` would.
  const rt = await createSandboxKubeplane({ stateDir: state });
  try {
    const api = kubernetesConnector({ clock: rt.clock })(await rt.kubeplane.kubeconfig('mgmt', 'mgmt'));
    await api.applySecret('claudie-secrets', 'hetzner-secret', { credentials: Redacted.of(TOKEN) });
    await api.applySecret('claudie-secrets', 'wrong-token', { credentials: Redacted.of(WRONG) });
    await api.applySecret('claudie-secrets', 'other-keys', { token: Redacted.of(TOKEN) });
  } finally {
    await rt.close();
  }
  for (const name of ['hetzner-secret', 'nope', 'other-keys', 'wrong-token']) await writeFile(join(dir, `${name}.yaml`), CLAUDIE(name));
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const secretsCluster = ['--secrets-context', CONTEXT, '--secrets-kubeconfig', 'mgmt.kubeconfig'];

/**
 * The real clouds of a real-cloud run, and the management cluster: the sandbox world holding mgmt, answering in this
 * process (nothing leaves the machine), its Hetzner accepting TOKEN only.
 */
async function withClouds<T>(fn: () => Promise<T>): Promise<T> {
  const world = JSON.parse(await readFile(join(state, 'sandbox', 'world.json'), 'utf8')) as Parameters<typeof Sandbox.fromSnapshot>[0];
  const clouds = Sandbox.fromSnapshot(world, { hetzner: { token: TOKEN } }).listen();
  try {
    return await fn();
  } finally {
    await clouds.close();
  }
}

describe('kubeplane apply of a Claudie manifest whose secretRef is a Kubernetes Secret', () => {
  it('is refused on real clouds without a context named, saying how to name one, and records nothing', async () => {
    // A kubeconfig with a current context is at hand: it is not used.
    const run = await runCli(['apply', 'hetzner-secret.yaml', '--state-dir', 'real'], { cwd: dir, env: { KUBECONFIG: join(dir, 'mgmt.kubeconfig') } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `credentials: hetzner-secret.yaml:${SECRET_REF_LINE} spec.providers[0].secretRef: hetzner provider hetzner-1: secretRef names the Kubernetes Secret ` +
        'claudie-secrets/hetzner-secret, which kubeplane reads from a cluster you name, never from the current context: pass --secrets-context NAME ' +
        '(a context of your kubeconfig; --secrets-kubeconfig FILE for another file than $KUBECONFIG or ~/.kube/config), set KUBEPLANE_SECRETS_CONTEXT, ' +
        'or give createKubeplane({ secretsContext }) in the SDK\ncredentials missing: nothing was recorded\n',
    );
    expect(existsSync(join(dir, 'real'))).toBe(false);
  });

  it('names the Secret the named cluster does not hold, with the file and line of the secretRef, and records nothing', async () => {
    const run = await withClouds(() => runCli(['apply', 'nope.yaml', '--state-dir', 'real', ...secretsCluster], { cwd: dir }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `credentials: nope.yaml:${SECRET_REF_LINE} spec.providers[0].secretRef: hetzner provider hetzner-1: secretRef: Secret claudie-secrets/nope ` +
        `is not found in the cluster of context ${CONTEXT} (`,
    );
    expect(run.stderr).toContain('credentials missing: nothing was recorded');
    expect(existsSync(join(dir, 'real'))).toBe(false);
  });

  it('names the key the Secret lacks and the keys it holds, never a value', async () => {
    const env = { KUBEPLANE_SECRETS_CONTEXT: CONTEXT, KUBEPLANE_SECRETS_KUBECONFIG: 'mgmt.kubeconfig' };
    const run = await withClouds(() => runCli(['apply', 'other-keys.yaml', '--state-dir', 'real'], { cwd: dir, env }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `spec.providers[0].secretRef: hetzner provider hetzner-1: secretRef: Secret claudie-secrets/other-keys (context ${CONTEXT}) has no key "credentials"; it holds: token`,
    );
    expect(run.stderr + run.stdout).not.toContain(TOKEN);
  });

  it('goes through the sandbox as before without a context: the sandbox clouds take their own credentials', async () => {
    // A Secret nobody created, in a project of its own.
    await writeFile(join(dir, 'plain.yaml'), CLAUDIE('nope').replaceAll('workload', 'plain'));
    const run = await runCli(['apply', 'plain.yaml', '--sandbox', '--state-dir', state], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\[sandbox\] plain: DONE after/);
  }, 60_000);

  it('with --sandbox and a context, reads the Secret from the named cluster first, refusing one it does not hold before anything is created', async () => {
    const run = await runCli(['apply', 'nope.yaml', '--sandbox', '--state-dir', state, ...secretsCluster], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `[sandbox] credentials: nope.yaml:${SECRET_REF_LINE} spec.providers[0].secretRef: hetzner provider hetzner-1: secretRef: Secret claudie-secrets/nope is not found`,
    );
    const status = await runCli(['status', 'workload', '--sandbox', '--state-dir', state], { cwd: dir });
    expect(status.stdout).not.toContain('workload [');
  });

  it('with --sandbox and a context, builds the cluster once the Secret reads', async () => {
    const run = await runCli(['apply', 'hetzner-secret.yaml', '--sandbox', '--state-dir', state, '-v', ...secretsCluster], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\[sandbox\] workload: DONE after/);
    // What it read is in no output, log or state file (the management cluster's own Secret lives in the world file).
    const b64 = Buffer.from(TOKEN).toString('base64');
    expect(run.stdout).not.toContain(TOKEN);
    const files = (await readdir(state, { recursive: true, withFileTypes: true })).filter((f) => f.isFile()).map((f) => join(f.parentPath, f.name));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files.filter((f) => !f.endsWith(join('sandbox', 'world.json')))) {
      const text = await readFile(file, 'utf8');
      expect(text.includes(TOKEN) || text.includes(b64), file).toBe(false);
    }
  }, 60_000);
});

describe('the SDK on real clouds, with the secrets context named', () => {
  async function preflight(secret: string) {
    const manifest = validateManifestText(CLAUDIE(secret)).manifests[0]!;
    const rt = await createKubeplane({ memory: true, env: {}, cwd: dir, secretsContext: CONTEXT, secretsKubeconfig: 'mgmt.kubeconfig' });
    try {
      return await rt.kubeplane.preflight(manifest);
    } finally {
      await rt.close();
    }
  }

  it("hands the cloud the token read from the Secret: Hetzner's catalogs answer it", async () => {
    expect(await withClouds(() => preflight('hetzner-secret'))).toEqual([]);
  });

  it('a token the cloud refuses is reported at the secretRef, without its value', async () => {
    const issues = await withClouds(() => preflight('wrong-token'));
    expect(issues).toEqual([expect.objectContaining({ severity: 'error', path: 'providers[0].secretRef' })]);
    expect(issues[0]?.message).toMatch(/^hetzner refused the credentials of provider hetzner-1/);
    expect(JSON.stringify(issues)).not.toContain(WRONG);
  });

  it('refuses a Kubernetes Secret without a context, rather than read the current one, as a preflight problem', async () => {
    const manifest = validateManifestText(CLAUDIE('hetzner-secret')).manifests[0]!;
    const rt = await createKubeplane({ memory: true, env: { KUBECONFIG: join(dir, 'mgmt.kubeconfig') }, cwd: dir });
    try {
      const issues = await rt.kubeplane.preflight(manifest);
      expect(issues).toEqual([expect.objectContaining({ severity: 'error', path: 'providers[0].secretRef' })]);
      expect(issues[0]?.message).toMatch(
        /secretRef names the Kubernetes Secret claudie-secrets\/hetzner-secret, which kubeplane reads from a cluster you name/,
      );
    } finally {
      await rt.close();
    }
  });
});
