// SelfSubjectAccessReview (authorization.k8s.io/v1): "can I do this?", answered in the response to the POST and never
// stored (https://kubernetes.io/docs/reference/access-authn-authz/authorization/#checking-api-access). The served
// kubeconfig's client certificate is the admin's, in the system:masters group, which the API server's privileged
// group authorizer allows everything before RBAC is asked (pkg/kubeapiserver/authorizer: authorizerfactory
// privileged groups), so every review is allowed.
import type { ClusterIdentity } from './cluster.js';
import { ApiError, obj, type Json } from './store.js';

export function selfSubjectAccessReview(body: Json): Json {
  const spec = obj(body['spec']);
  const resourceAttributes = obj(spec?.['resourceAttributes']);
  const nonResourceAttributes = obj(spec?.['nonResourceAttributes']);
  // validation.ValidateSelfSubjectAccessReviewSpec: exactly one of the two.
  if (!resourceAttributes === !nonResourceAttributes) {
    throw new ApiError(
      422,
      'Invalid',
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid ' +
        'value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      {
        kind: 'SelfSubjectAccessReview',
        group: 'authorization.k8s.io',
      },
    );
  }
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status: { allowed: true },
  };
}

/**
 * SelfSubjectReview (`kubectl auth whoami`): the user the served kubeconfig's client certificate authenticates as.
 * A kubeadm cluster's is kubeplane's admin certificate, `CN=kubeplane-admin` in kubeadm's admin group
 * (`kubeadm:cluster-admins` from 1.29, `system:masters` before: bootstrap/pki.ts adminGroup); a CMK cluster's is the
 * certificate get-credentials gives, `CN=admin, O=system:masters` (crusoe/cmk-pki.ts). Every authenticated user is
 * also in `system:authenticated`.
 */
export function selfSubjectReview(identity: ClusterIdentity): Json {
  const minor = Number(/^v?1\.(\d+)/.exec(identity.kubernetesVersion)?.[1] ?? 0);
  const [username, group] = identity.serving ? ['admin', 'system:masters'] : ['kubeplane-admin', minor >= 29 ? 'kubeadm:cluster-admins' : 'system:masters'];
  return {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: null },
    status: { userInfo: { username, groups: [group, 'system:authenticated'] } },
  };
}
