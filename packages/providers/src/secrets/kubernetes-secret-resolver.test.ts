// Claudie's secretRef form, a Kubernetes Secret, read from the cluster of a named kubeconfig context: the real wire
// format (GET /api/v1/namespaces/{ns}/secrets/{name}, base64 data), the context chosen by name and never the current
// one, and the answers a real API server gives when the Secret is missing (404), the user may not read it (403, RBAC)
// or nobody answers — each an error naming the Secret and the context, never a value.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isKubeplaneError, type KubeplaneError } from '@kubeplane/sdk';
import { KubernetesSecretResolver, kubeconfigFiles } from './kubernetes-secret-resolver.js';

const TOKEN = 'hetzner-token-value-that-must-never-be-printed-0123456789abcdefgh';
const MGMT = 'https://mgmt.example.test:6443';
const OTHER = 'https://current.example.test:6443';
const server = setupServer();
let dir: string;
let kubeconfig: string;
const asked: string[] = [];

/** Two contexts: `current` (the current context) and `mgmt`, each with its own server and bearer token. */
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: current
    cluster: { server: ${OTHER} }
  - name: mgmt
    cluster: { server: ${MGMT} }
users:
  - name: current-user
    user: { token: current-user-token }
  - name: ci
    user: { token: ci-service-account-token }
contexts:
  - name: current
    context: { cluster: current, user: current-user }
  - name: claudie-mgmt
    context: { cluster: mgmt, user: ci }
current-context: current
`;

/** A kube-apiserver Status, as it answers errors. */
function status(code: number, reason: string, message: string) {
  return HttpResponse.json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }, { status: code });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeplane-secrets-'));
  kubeconfig = join(dir, 'config');
  await writeFile(kubeconfig, KUBECONFIG, { mode: 0o600 });
  server.listen({ onUnhandledRequest: 'bypass' });
});
afterAll(() => server.close());

beforeEach(() => {
  asked.length = 0;
  server.resetHandlers(
    http.get(`${OTHER}/*`, ({ request }) => {
      asked.push(`current ${new URL(request.url).pathname}`);
      return status(500, 'InternalError', 'the current context must not be asked');
    }),
    http.get(`${MGMT}/api/v1/namespaces/:namespace/secrets/:name`, ({ request, params }) => {
      asked.push(`mgmt ${new URL(request.url).pathname} ${request.headers.get('authorization') ?? ''}`);
      const { namespace, name } = params as { namespace: string; name: string };
      if (namespace === 'locked')
        return status(
          403,
          'Forbidden',
          `secrets "${name}" is forbidden: User "system:serviceaccount:ci:kubeplane" cannot get resource "secrets" in API group "" in the namespace "locked"`,
        );
      if (name !== 'hetzner-secret') return status(404, 'NotFound', `secrets "${name}" not found`);
      return HttpResponse.json({
        kind: 'Secret',
        apiVersion: 'v1',
        metadata: { name, namespace, resourceVersion: '7' },
        type: 'Opaque',
        data: { credentials: Buffer.from(TOKEN).toString('base64') },
      });
    }),
  );
});

async function caught(promise: Promise<unknown>): Promise<KubeplaneError> {
  try {
    await promise;
  } catch (e) {
    if (isKubeplaneError(e)) return e;
    throw e;
  }
  throw new Error('expected a KubeplaneError');
}

function leaks(error: unknown): boolean {
  const texts = [String(error), JSON.stringify(error), inspect(error, { depth: 8 }), error instanceof Error ? (error.stack ?? '') : ''];
  return texts.some((t) => t.includes(TOKEN) || t.includes(Buffer.from(TOKEN).toString('base64')) || t.includes('ci-service-account-token'));
}

const resolver = (context = 'claudie-mgmt') => new KubernetesSecretResolver({ context, files: [kubeconfig] });

describe('a Kubernetes Secret read from the named context', () => {
  it("reads the key from the named context's cluster with its user's token, never asking the current context", async () => {
    const value = await resolver().resolve({ source: 'kubernetes', namespace: 'claudie', name: 'hetzner-secret', key: 'credentials' });
    expect(value.reveal()).toBe(TOKEN);
    expect(String(value)).toBe('[redacted]');
    expect(asked).toEqual(['mgmt /api/v1/namespaces/claudie/secrets/hetzner-secret Bearer ci-service-account-token']);
  });

  it('reads a Secret once for the keys of every provider that names it', async () => {
    const r = resolver();
    await r.read('claudie', 'hetzner-secret');
    await r.read('claudie', 'hetzner-secret');
    expect(asked).toHaveLength(1);
  });

  it('names the Secret, the context and the server when the Secret is not there (404)', async () => {
    const e = await caught(resolver().read('claudie', 'nope'));
    expect(e.message).toBe(
      `Secret claudie/nope is not found in the cluster of context claudie-mgmt (${MGMT}, from ${kubeconfig}); ` +
        "create it there, or correct secretRef's name and namespace",
    );
    expect(e.details.code).toBe('SecretNotFound');
  });

  it('names the key that is missing and the keys the Secret holds, never the values', async () => {
    const e = await caught(resolver().resolve({ source: 'kubernetes', namespace: 'claudie', name: 'hetzner-secret', key: 'accesskey' }));
    expect(e.message).toBe('Secret claudie/hetzner-secret (context claudie-mgmt) has no key "accesskey"; it holds: credentials');
    expect(leaks(e)).toBe(false);
  });

  it("says the context's user may not read it when RBAC refuses (403), with the server's reason and what to grant", async () => {
    const e = await caught(resolver().read('locked', 'hetzner-secret'));
    expect(e.kind).toBe('auth');
    expect(e.details.code).toBe('SecretForbidden');
    expect(e.message).toBe(
      'Secret locked/hetzner-secret: the user of context claudie-mgmt may not read it (403 Forbidden: secrets "hetzner-secret" is forbidden: ' +
        'User "system:serviceaccount:ci:kubeplane" cannot get resource "secrets" in API group "" in the namespace "locked"); ' +
        'grant it get on secrets in namespace locked (a Role and a RoleBinding), or name another context',
    );
    expect(leaks(e)).toBe(false);
  });

  it('says the cluster cannot be reached when nothing listens at its server', async () => {
    const file = join(dir, 'down');
    await writeFile(file, KUBECONFIG.replace(MGMT, 'https://127.0.0.1:1'));
    const e = await caught(new KubernetesSecretResolver({ context: 'claudie-mgmt', files: [file] }).read('claudie', 'hetzner-secret'));
    expect(e.kind).toBe('retryable');
    expect(e.message).toMatch(
      /^Secret claudie\/hetzner-secret: the cluster of context claudie-mgmt \(https:\/\/127\.0\.0\.1:1, from .*down\) cannot be reached \(.*ECONNREFUSED.*\)$/,
    );
    expect(leaks(e)).toBe(false);
  });

  it('names the contexts a kubeconfig has when the one named is not among them', async () => {
    const e = await caught(resolver('claudie').read('claudie', 'hetzner-secret'));
    expect(e.message).toBe(`secrets context claudie: kubeconfig: ${kubeconfig} has no context claudie (it has: current, claudie-mgmt)`);
    expect(asked).toEqual([]);
  });

  it('refuses a user whose credentials come from an exec plugin, rather than run it', async () => {
    const file = join(dir, 'exec');
    await writeFile(file, KUBECONFIG.replace('user: { token: ci-service-account-token }', 'user: { exec: { command: aws, args: [eks, get-token] } }'));
    const e = await caught(new KubernetesSecretResolver({ context: 'claudie-mgmt', files: [file] }).read('claudie', 'hetzner-secret'));
    expect(e.message).toContain('user ci of context claudie-mgmt gets its credentials from an exec plugin, which kubeplane does not run');
  });

  it("looks for a CA file the kubeconfig names relative to the kubeconfig's folder, as kubectl does, and names it when it cannot be read", async () => {
    const file = join(dir, 'files');
    await writeFile(file, KUBECONFIG.replace(`cluster: { server: ${MGMT} }`, `cluster: { server: ${MGMT}, certificate-authority: no-such.crt }`));
    const e = await caught(new KubernetesSecretResolver({ context: 'claudie-mgmt', files: [file] }).read('claudie', 'hetzner-secret'));
    expect(e.message).toContain(`certificate-authority ${join(dir, 'no-such.crt')} of ${file} cannot be read (ENOENT)`);
  });
});

describe('which kubeconfig files the context is looked for in', () => {
  it('takes the file named, else $KUBECONFIG, else ~/.kube/config, as kubectl', () => {
    expect(kubeconfigFiles({ context: 'x', kubeconfig: 'k.yaml' }, { KUBECONFIG: '/a' }, '/w')).toEqual(['/w/k.yaml']);
    expect(kubeconfigFiles({ context: 'x' }, { KUBECONFIG: '/a:/b', HOME: '/h' }, '/w')).toEqual(['/a', '/b']);
    expect(kubeconfigFiles({ context: 'x' }, { HOME: '/h' }, '/w')).toEqual(['/h/.kube/config']);
  });

  it('finds the context in a later file of $KUBECONFIG, skipping one that does not exist', async () => {
    const r = new KubernetesSecretResolver({ context: 'claudie-mgmt', files: [join(dir, 'missing'), kubeconfig] });
    expect((await r.read('claudie', 'hetzner-secret'))['credentials']?.reveal()).toBe(TOKEN);
  });
});
