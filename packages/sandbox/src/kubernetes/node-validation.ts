// The API server's rules for updating a Node that the emulator enforces on every client write (update, every PATCH
// type, server-side apply): kubernetes/kubernetes pkg/apis/core/validation/validation.go, ValidateNodeUpdate.
import { ApiError, obj, type KubeObject } from './store.js';

const PROVIDER_ID_MESSAGE = 'Forbidden: node updates may not change providerID except from "" to valid';

function providerIdOf(node: KubeObject): string {
  const id = obj(node['spec'])?.['providerID'];
  return typeof id === 'string' ? id : '';
}

/**
 * ValidateNodeUpdate: `spec.providerID` may go from "" to a value, never from one value to another (or back to "").
 * Refused as the real API server refuses it: 422 Invalid, cause FieldValueForbidden on `spec.providerID`.
 */
export function validateNodeUpdate(current: KubeObject | null, next: KubeObject): void {
  if (!current) return;
  const old = providerIdOf(current);
  if (old === '' || old === providerIdOf(next)) return;
  const name = next.metadata.name;
  throw new ApiError(422, 'Invalid', `Node "${name}" is invalid: spec.providerID: ${PROVIDER_ID_MESSAGE}`, {
    name,
    kind: 'Node',
    causes: [{ reason: 'FieldValueForbidden', message: PROVIDER_ID_MESSAGE, field: 'spec.providerID' }],
  });
}
