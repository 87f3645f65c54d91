// SelfSubjectAccessReview (authorization.k8s.io/v1): "can I do this?", answered in the response to the POST and never
// stored (https://kubernetes.io/docs/reference/access-authn-authz/authorization/#checking-api-access). The served
// kubeconfig's client certificate is the admin's, in the system:masters group, which the API server's privileged
// group authorizer allows everything before RBAC is asked (pkg/kubeapiserver/authorizer: authorizerfactory
// privileged groups), so every review is allowed.
import { decodeEnvelope, message, str } from './protobuf-wire.js';
import { ApiError, obj, type Json } from './store.js';

/**
 * A review sent as protobuf (kubectl's typed client does, and does not retry as JSON), read into its JSON form:
 * SelfSubjectAccessReview{metadata=1, spec=2}, spec{resourceAttributes=1, nonResourceAttributes=2},
 * ResourceAttributes{namespace=1, verb=2, group=3, version=4, resource=5, subresource=6, name=7},
 * NonResourceAttributes{path=1, verb=2} (k8s.io/api/authorization/v1/generated.proto).
 */
export function reviewFromProtobuf(body: Buffer): Json {
  const { object } = decodeEnvelope(body);
  const spec = message(object, 2);
  const r = message(spec, 1);
  const n = message(spec, 2);
  const pick = (fields: typeof r, names: string[]): Json =>
    Object.fromEntries(names.flatMap((name, i) => (str(fields, i + 1) !== undefined ? [[name, str(fields, i + 1)]] : [])));
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: {
      ...(r ? { resourceAttributes: pick(r, ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name']) } : {}),
      ...(n ? { nonResourceAttributes: pick(n, ['path', 'verb']) } : {}),
    },
  };
}

export function selfSubjectAccessReview(body: Json): Json {
  const spec = obj(body['spec']);
  const resourceAttributes = obj(spec?.['resourceAttributes']);
  const nonResourceAttributes = obj(spec?.['nonResourceAttributes']);
  // validation.ValidateSelfSubjectAccessReviewSpec: exactly one of the two.
  if (!resourceAttributes === !nonResourceAttributes) {
    throw new ApiError(422, 'Invalid', 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified', {
      kind: 'SelfSubjectAccessReview',
      group: 'authorization.k8s.io',
    });
  }
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status: { allowed: true },
  };
}
