// The CDK deploy's template as IAM sees it: the stack synthesised for one account and Region, its intrinsic functions
// resolved as CloudFormation would, and the policy documents attached to each role. The policies do not depend on the
// code, so an empty handler stands in for each bundle (no esbuild run).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { KubeplaneStack, type KubeplaneStackProps } from '@kubeplane/aws-cdk';

export interface TemplateResource {
  Type: string;
  Properties: Record<string, unknown>;
}

export type PolicyStatement = Record<string, unknown>;

export interface PolicyDocument {
  Version: string;
  Statement: PolicyStatement[];
}

export interface SynthesisedStack {
  resources: Record<string, TemplateResource>;
  /** Removes the synthesis's files. */
  close(): void;
}

/** The stack as `cdk synth` writes it for `account` and `region`; the partition stays AWS::Partition, as in any Region. */
export function synthesiseKubeplaneStack(
  options: { account: string; region: string } & Pick<KubeplaneStackProps, 'hostedZoneIds' | 'dnsDomains'>,
): SynthesisedStack {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-template-'));
  const bundle = { dir: join(dir, 'handler') };
  mkdirSync(bundle.dir);
  writeFileSync(join(bundle.dir, 'index.js'), 'export const handler = async () => {};\n');
  const app = new App({ outdir: join(dir, 'cdk.out') });
  const stack = new KubeplaneStack(app, 'Kubeplane', {
    bundles: { step: bundle, deadLetter: bundle, api: bundle, watchdog: bundle },
    access: [],
    hostedZoneIds: options.hostedZoneIds,
    dnsDomains: options.dnsDomains,
    env: { account: options.account, region: options.region },
  });
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, TemplateResource>;
  return { resources, close: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What CloudFormation would put in for the intrinsic functions a template's policies use. */
export interface Intrinsics {
  partition: string;
  account: string;
  region: string;
  /** `Fn::GetAtt` of a resource of the template (a table's or queue's ARN); without it, one throws. */
  getAtt?: (logicalId: string, attribute: string) => string;
}

/** A template value with its intrinsic functions resolved; one it cannot resolve throws, naming it. */
export function resolveIntrinsics(value: unknown, at: Intrinsics): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveIntrinsics(v, at));
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if ('Ref' in o) {
    const known: Record<string, string> = { 'AWS::Partition': at.partition, 'AWS::AccountId': at.account, 'AWS::Region': at.region };
    const ref = known[String(o.Ref)];
    if (ref === undefined) throw new Error(`cannot resolve Ref ${String(o.Ref)}`);
    return ref;
  }
  if ('Fn::Join' in o) {
    const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => resolveIntrinsics(p, at)).join(sep);
  }
  if ('Fn::GetAtt' in o && at.getAtt) {
    const [id, attribute] = o['Fn::GetAtt'] as [string, string];
    return at.getAtt(id, attribute);
  }
  const fn = Object.keys(o).find((k) => k.startsWith('Fn::'));
  if (fn) throw new Error(`cannot resolve ${fn} ${JSON.stringify(o[fn])}`);
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolveIntrinsics(v, at)]));
}

/** The one resource of `type` whose logical id starts with `prefix`. */
export function logicalIdOf(resources: Record<string, TemplateResource>, prefix: string, type: string): string {
  const found = Object.entries(resources)
    .filter(([id, r]) => id.startsWith(prefix) && r.Type === type)
    .map(([id]) => id);
  if (found.length !== 1 || found[0] === undefined) throw new Error(`${found.length} resources of type ${type} start with ${prefix}: ${found.join(', ')}`);
  return found[0];
}

/**
 * The documents of the managed and inline policies attached to a role of the template. AWS-managed policies (a role's
 * ManagedPolicyArns) are not in the template, so a role with one throws: what it allows could not be checked.
 */
export function rolePolicies(resources: Record<string, TemplateResource>, roleId: string, at: Intrinsics): PolicyDocument[] {
  const role = resources[roleId];
  if (role?.Type !== 'AWS::IAM::Role') throw new Error(`${roleId} is not a role of the template`);
  if (role.Properties.ManagedPolicyArns !== undefined)
    throw new Error(`${roleId} has AWS-managed policies, whose statements the template does not hold: ${JSON.stringify(role.Properties.ManagedPolicyArns)}`);
  const attached = (r: TemplateResource) => ((r.Properties.Roles as Array<{ Ref?: string }> | undefined) ?? []).some((x) => x.Ref === roleId);
  return Object.values(resources)
    .filter((r) => (r.Type === 'AWS::IAM::ManagedPolicy' || r.Type === 'AWS::IAM::Policy') && attached(r))
    .map((r) => resolveIntrinsics(r.Properties.PolicyDocument, at) as PolicyDocument);
}
