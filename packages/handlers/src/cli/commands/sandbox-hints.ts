// What a user of the sandbox can do about a refusal that comes from its account or its day rather than the manifest:
// the sandbox's AWS account is a new one (no opt-in Region enabled) and its clock starts on a fixed day, so a refusal
// of either kind gets one line naming the explicit option that changes it (sandbox-world.ts), as the real account's
// owner or an earlier day would.
import type { ValidationIssue } from '@kubeplane/sdk';

/** The hint lines for the errors of a failed preflight on the sandbox, one per kind of refusal that has one. */
export function sandboxRefusalHints(issues: readonly ValidationIssue[], now: number): string[] {
  const optIn = new Set<string>();
  let deprecated = false;
  for (const i of issues) {
    if (i.severity !== 'error') continue;
    const region = /^aws region (\S+) is not enabled for the account of provider /.exec(i.message)?.[1];
    if (region) optIn.add(region);
    if (/ server type \S+ was deprecated and cannot be ordered in /.test(i.message)) deprecated = true;
  }
  const hints: string[] = [];
  if (optIn.size > 0)
    hints.push(`the sandbox's AWS account is a new account, with no opt-in region enabled: --aws-opt-in-regions ${[...optIn].join(',')} enables them`);
  if (deprecated)
    hints.push(
      `the sandbox's clouds sell what they sell on its day, ${new Date(now).toISOString().slice(0, 10)}: ` +
        '--sandbox-date YYYY-MM-DD starts its clock on an earlier day, when the type was still sold',
    );
  return hints;
}
