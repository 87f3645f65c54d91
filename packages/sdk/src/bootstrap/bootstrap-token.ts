// Bootstrap tokens after the first: the token in the InitConfiguration expires after 24 hours, so nodes added later
// join with a token the engine creates in the cluster as a Secret (what `kubeadm token create` would write).
import { toYaml } from '../yaml-text.js';
import { Redacted } from '../redacted.js';

const TOKEN_FORMAT = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

/** The `bootstrap-token-<id>` Secret for kube-system; apply it before rendering the nodes that use the token. */
export function renderBootstrapTokenSecret(token: Redacted<string>, expiration: Date): Redacted<string> {
  const match = TOKEN_FORMAT.exec(token.reveal());
  if (!match?.[1] || !match[2]) throw new Error('a bootstrap token must match [a-z0-9]{6}.[a-z0-9]{16}');
  const doc = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${match[1]}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      description: 'kubeplane node bootstrap token',
      'token-id': match[1],
      'token-secret': match[2],
      expiration: expiration.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
    },
  };
  return Redacted.of(toYaml(doc));
}
