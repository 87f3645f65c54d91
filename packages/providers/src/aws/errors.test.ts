import { describe, expect, it } from 'vitest';
import { toKubeplaneError } from './errors.js';

describe('AWS errors as kubeplane errors', () => {
  it("tells how to get EC2's Spot service-linked role when a spot launch may not create it", () => {
    // The error EC2 answers a spot RunInstances with when the account has no Spot service-linked role and the caller may
    // not create it (kubernetes/kops#16475, CloudSnorkel/cdk-github-runners#182).
    const sdkError = Object.assign(new Error('The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.'), {
      name: 'AuthFailure.ServiceLinkedRoleCreationNotPermitted',
      $metadata: { httpStatusCode: 403, requestId: 'r-1' },
    });
    const e = toKubeplaneError(sdkError, 'ec2', 'RunInstances', 'c1-batch-01');
    expect(e.kind).toBe('auth');
    expect(e.message).toContain('aws iam create-service-linked-role --aws-service-name spot.amazonaws.com');
    expect(e.details).toMatchObject({ code: 'AuthFailure.ServiceLinkedRoleCreationNotPermitted', resource: 'c1-batch-01' });
  });
});
