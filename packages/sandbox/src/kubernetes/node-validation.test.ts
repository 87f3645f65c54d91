// ValidateNodeUpdate's providerID rule (kubernetes/kubernetes pkg/apis/core/validation/validation.go) as the emulated
// API server applies it to Node writes.
import { describe, expect, it } from 'vitest';
import { validateNodeUpdate } from './node-validation.js';
import { ApiError, type KubeObject } from './store.js';

const node = (providerID?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'w-1' },
  spec: providerID === undefined ? {} : { providerID },
});

function refusal(current: KubeObject, next: KubeObject): ApiError | undefined {
  try {
    validateNodeUpdate(current, next);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

describe('a Node update and its providerID', () => {
  it('may set a providerID the Node does not have yet, or keep the one it has', () => {
    expect(refusal(node(), node('hcloud://42'))).toBeUndefined();
    expect(refusal(node(''), node('hcloud://42'))).toBeUndefined();
    expect(refusal(node('hcloud://42'), node('hcloud://42'))).toBeUndefined();
    expect(refusal(node(), node())).toBeUndefined();
  });

  it('may not change a set providerID, nor clear it: 422 Invalid, Forbidden on spec.providerID, worded as the API server words it', () => {
    for (const next of [node('hcloud://43'), node(''), node()]) {
      const error = refusal(node('hcloud://42'), next);
      expect(error?.code).toBe(422);
      expect(error?.status()).toMatchObject({
        reason: 'Invalid',
        message: 'Node "w-1" is invalid: spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
        details: {
          name: 'w-1',
          kind: 'Node',
          causes: [
            { reason: 'FieldValueForbidden', field: 'spec.providerID', message: 'Forbidden: node updates may not change providerID except from "" to valid' },
          ],
        },
      });
    }
  });

  it('does not apply to a Node being created', () => {
    expect(() => validateNodeUpdate(null, node('aws:///eu-central-1a/i-0123'))).not.toThrow();
  });
});
