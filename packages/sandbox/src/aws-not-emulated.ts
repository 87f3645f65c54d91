// How the served AWS APIs refuse what the sandbox does not emulate (an operation, a filter, another service): in the
// sealed sandbox's words, so a user reads that the sandbox, not AWS, refused, and never gets another operation's answer.
import { ROUTE53_OPERATIONS } from './aws-operations.js';

/**
 * The sealed sandbox's sentence for something of AWS it does not emulate (`EC2 DescribeSnapshots`, `the filter
 * 'network-interface.mac-address' of EC2 DescribeInstances`), as the other emulators word it (gcp/api.ts).
 */
export function notEmulatedMessage(what: string): string {
  return `the sandbox does not emulate ${what} (docs/sandbox.md lists what it serves; the sandbox has no network)`;
}

/** The Route 53 operation a method and path (below /2013-04-01) name, by the model's templates; undefined for none. */
export function route53OperationOf(method: string, path: string): string | undefined {
  const segments = path.split('/').filter(Boolean);
  for (const [m, template, name] of ROUTE53_OPERATIONS) {
    if (m !== method) continue;
    const parts = template.split('/').filter(Boolean);
    if (parts.length === segments.length && parts.every((p, i) => p.startsWith('{') || p === segments[i])) return name;
  }
  return undefined;
}
