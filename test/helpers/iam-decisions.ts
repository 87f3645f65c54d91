// IAM's decision on each request (aws-iam-requests.ts) under a principal's identity policies, by
// @cloud-copilot/iam-simulate; each distinct request is asked once (a lifecycle repeats the same call hundreds of times).
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { IamRequest } from './aws-iam-requests.js';
import type { PolicyDocument } from './kubeplane-template.js';

export type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

export interface IamDecider {
  decide(request: IamRequest): Promise<Decision>;
  /** How many distinct requests were asked. */
  readonly distinct: number;
}

export interface IamPrincipal {
  /** The account the principal and the resources are in. */
  account: string;
  /** `arn:aws:sts::<account>:assumed-role/<role>/<session>`, or a user's ARN. */
  principal: string;
  policies: PolicyDocument[];
  /** The session's tags (aws:PrincipalTag). */
  principalTags?: Record<string, string>;
}

export function iamDecider(p: IamPrincipal): IamDecider {
  const cache = new Map<string, Promise<Decision>>();
  const principalKeys = Object.fromEntries(Object.entries(p.principalTags ?? {}).map(([k, v]) => [`aws:PrincipalTag/${k}`, v]));
  return {
    decide(r) {
      const contextVariables = { ...r.context, ...principalKeys };
      const key = JSON.stringify([r.action, r.resource, contextVariables]);
      let found = cache.get(key);
      if (!found) {
        found = runSimulation(
          {
            request: { principal: p.principal, action: r.action, resource: { resource: r.resource, accountId: p.account }, contextVariables },
            identityPolicies: p.policies.map((policy, i) => ({ name: `policy-${i}`, policy })),
            serviceControlPolicies: [],
            resourceControlPolicies: [],
          },
          {},
        ).then((result) => {
          if (result.resultType === 'error') throw new Error(`${r.action} on ${r.resource}: ${JSON.stringify(result.errors)}`);
          return result.overallResult as Decision;
        });
        cache.set(key, found);
      }
      return found;
    },
    get distinct() {
      return cache.size;
    },
  };
}
