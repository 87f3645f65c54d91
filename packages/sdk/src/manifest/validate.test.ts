import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serializeManifest } from './serialize.js';
import { validateManifestFile, validateManifestObject, validateManifestText } from './validate.js';

const examples = join(import.meta.dirname, '..', '..', '..', '..', 'examples');
const example = (name: string) => readFileSync(join(examples, name), 'utf8');

describe('validating manifests', () => {
  it('accepts the bursting InputManifest from the Claudie guide verbatim, warning that 1.27 is past support and its labels go nowhere', async () => {
    const r = await validateManifestFile(join(examples, 'claudie-bursting.yaml'));
    expect(r.errors).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.manifests[0]?.source).toBe('claudie');
    expect(r.manifests[0]?.nodePools.dynamic.map((p) => p.name)).toEqual(['aws-control', 'aws-worker', 'aws-lb']);
    expect(r.warnings.map((w) => [w.path, w.line])).toEqual([
      ['metadata.labels', 7],
      ['spec.kubernetes.clusters[0].version', 51],
    ]);
    expect(r.warnings[0]?.message).toContain('put on nothing kubeplane makes');
    expect(r.warnings[1]?.message).toContain('Claudie supports 1.34–1.36, Crusoe Managed Kubernetes 1.30–1.33');
  });

  // Every example but the Claudie guide's, whose 1.27 is past support on purpose.
  const ours = readdirSync(examples).filter((f) => f.endsWith('.yaml') && f !== 'claudie-bursting.yaml');
  it.each(ours)('accepts the example %s without warnings', async (name) => {
    const r = await validateManifestFile(join(examples, name));
    expect(r.issues).toEqual([]);
    expect(r.manifests[0]?.source).toBe('kubeplane');
  });

  it('parses Claudie and native documents of the same cluster to the same model', () => {
    const native = validateManifestText(example('hybrid-aws-hetzner.yaml')).manifests[0];
    expect(native).toBeDefined();
    if (!native) return;
    const claudieText = serializeManifest(native, 'yaml', 'claudie');
    const claudie = validateManifestText(claudieText).manifests[0];
    expect({ ...claudie, source: 'kubeplane' }).toEqual(native);
  });

  it('reads every document of a multi-document stream and names the line of each issue', () => {
    const text = `${example('minimal.yaml')}\n---\n${example('autoscaled.yaml').replace('count: 3', 'count: 0')}`;
    const r = validateManifestText(text, { file: 'two.yaml' });
    expect(r.manifests.map((m) => m.name)).toEqual(['minimal', 'elastic']);
    expect(r.errors).toHaveLength(1);
    const line = text.split('\n').findIndex((l) => l.includes('count: 0')) + 1;
    expect(r.errors[0]).toMatchObject({ file: 'two.yaml', line, path: 'nodePools.dynamic[0].count' });
  });

  it('reads JSON and reports lines in it', () => {
    const doc = validateManifestText(example('minimal.yaml')).manifests[0];
    const json = serializeManifest({ ...doc!, kubernetes: { clusters: [{ ...doc!.kubernetes.clusters[0]!, network: '10.0.0.0/33' }] } }, 'json');
    const r = validateManifestText(json, { file: 'm.json' });
    const line = json.split('\n').findIndex((l) => l.includes('10.0.0.0/33')) + 1;
    expect(r.errors).toEqual([expect.objectContaining({ path: 'kubernetes.clusters[0].network', line, file: 'm.json' })]);
  });

  it('collects every error at once instead of stopping at the first', () => {
    const text = example('hybrid-aws-hetzner.yaml')
      .replace('count: 3', 'count: 0')
      .replace('version: "1.34.2"', 'version: "1.34"')
      .replace('port: 443', 'port: 65100')
      .replace('hostname: hybrid', 'hostname: Hybrid_LB');
    const r = validateManifestText(text);
    expect(r.errors.map((e) => e.path).sort()).toEqual([
      'kubernetes.clusters[0].version',
      'loadBalancers.clusters[0].dns.hostname',
      'loadBalancers.roles[1].port',
      'nodePools.dynamic[0].count',
    ]);
  });

  it('does not report references to an element that is itself broken twice', () => {
    const text = example('minimal.yaml').replace('serverType: cpx22', 'serverType: 22');
    const r = validateManifestText(text);
    expect(r.errors.map((e) => e.path)).toEqual(['nodePools.dynamic[0].serverType']);
  });

  it('accepts a plain object and never throws on garbage', () => {
    for (const junk of [null, 42, 'text', [], { apiVersion: 'kubeplane.dev/v1' }, { apiVersion: 'claudie.io/v1beta1', kind: 'InputManifest', spec: 7 }]) {
      const r = validateManifestObject(junk);
      expect(r.ok).toBe(false);
      expect(r.errors.length).toBeGreaterThan(0);
    }
  });

  it('says what to do when an immutable field of an existing pool changes, and about the network', () => {
    const before = validateManifestText(example('minimal.yaml')).manifests;
    const changed = example('minimal.yaml').replace('serverType: cpx32', 'serverType: cpx42').replace('10.0.0.0/24', '10.9.0.0/24');
    const r = validateManifestText(changed, { previous: before });
    expect(r.errors.map((e) => e.path)).toEqual(['nodePools.dynamic[1].serverType', 'kubernetes.clusters[0].network']);
    expect(r.errors[0]?.message).toContain('rename the pool');
    expect(r.errors[0]?.message).toContain('cpx32 -> cpx42');
  });

  it('refuses a change of spot on an existing pool (a machine cannot change market), and takes spot: false for unset', () => {
    const text = example('hybrid-aws-hetzner.yaml');
    const before = validateManifestText(text).manifests;
    const spot = text.replace('serverType: t3.large\n', 'serverType: t3.large\n      spot: true\n');
    const r = validateManifestText(spot, { previous: before });
    expect(r.errors.map((e) => [e.path, e.message])).toEqual([
      [
        'nodePools.dynamic[1].spot',
        'spot of existing pool "aws-worker" cannot change (false -> true); rename the pool instead: kubeplane adds the new pool before it removes the old one',
      ],
    ]);
    const explicit = text.replace('serverType: t3.large\n', 'serverType: t3.large\n      spot: false\n');
    expect(validateManifestText(explicit, { previous: before }).errors).toEqual([]);
  });

  it("refuses spot on a Crusoe pool at the field, saying that Crusoe's API cannot ask for a spot VM", () => {
    const text = example('crusoe-cmk.yaml').replace('serverType: c1a.16x\n', 'serverType: c1a.16x\n      spot: true\n');
    expect(text).toContain('spot: true');
    const r = validateManifestText(text);
    expect(r.errors.map((e) => e.path)).toEqual(['nodePools.dynamic[1].spot']);
    expect(r.errors[0]?.message).toMatch(
      /^provider type crusoe has no spot machines \(Crusoe's API cannot ask for a spot VM: its create request \(InstancesPostRequestV1\) has no spot field/,
    );
  });

  it("refuses a new storageDiskSize on an existing pool, comparing it with the document kind's default filled in", () => {
    const before = validateManifestText(example('hybrid-aws-hetzner.yaml')).manifests;
    const changed = example('hybrid-aws-hetzner.yaml').replace('storageDiskSize: 100', 'storageDiskSize: 200');
    const r = validateManifestText(changed, { previous: before });
    expect(r.errors.map((e) => [e.path, e.message])).toEqual([
      ['nodePools.dynamic[1].storageDiskSize', expect.stringContaining('(100 -> 200); rename the pool instead')],
    ]);
    // A native pool without the field has no disk: writing 0 changes nothing, writing 50 does.
    const htz = (line: string) => example('hybrid-aws-hetzner.yaml').replace('serverType: cpx42\n', `serverType: cpx42\n      ${line}\n`);
    expect(validateManifestText(htz('storageDiskSize: 0'), { previous: before }).errors).toEqual([]);
    expect(validateManifestText(htz('storageDiskSize: 50'), { previous: before }).errors.map((e) => e.message)).toEqual([
      expect.stringContaining('storageDiskSize of existing pool "htz-worker" cannot change (0 -> 50)'),
    ]);
  });

  it("lets a managed cluster's pool take a new node image (its machines are rotated), but not a new instance type", () => {
    const before = validateManifestText(example('crusoe-cmk.yaml')).manifests;
    const image = example('crusoe-cmk.yaml').replace(/(serverType: c1a\.16x\n\s+image: )1\.33\.4-cmk\.4/, '$11.33.4-cmk.6');
    expect(validateManifestText(image, { previous: before }).errors).toEqual([]);
    const type = example('crusoe-cmk.yaml').replace('serverType: c1a.16x', 'serverType: c1a.32x');
    expect(validateManifestText(type, { previous: before }).errors.map((e) => e.path)).toEqual(['nodePools.dynamic[1].serverType']);
  });

  it('rejects two documents with one name', () => {
    const r = validateManifestText(`${example('minimal.yaml')}\n---\n${example('minimal.yaml')}`);
    expect(r.errors.map((e) => e.message)).toEqual(['2 documents are named "minimal"; each manifest needs its own name']);
  });

  it('warns, with the path, when a CMK worker image is older than the first one with NFS pre-installed', () => {
    const text = example('crusoe-cmk.yaml').replace('image: 1.33.4-cmk.4', 'image: 1.33.4-cmk.1');
    const r = validateManifestText(text, { file: 'cmk.yaml' });
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([
      expect.objectContaining({ path: 'nodePools.dynamic[0].image', line: text.split('\n').findIndex((l) => l.includes('cmk.1')) + 1 }),
    ]);
    expect(r.warnings[0]?.message).toContain('NFS');
  });

  it('understands CMK build suffixes in versions', () => {
    const r = validateManifestText(example('minimal.yaml').replace('"1.34.2"', '"1.33.4-cmk.15"'));
    expect(r.issues).toEqual([]);
  });
});

describe('AWS credentials by role', () => {
  const hybrid = readFileSync(join(examples, 'hybrid-aws-hetzner.yaml'), 'utf8');
  const withEnv = (env: string) => hybrid.replace('env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY }', `env: ${env}`);

  it("accepts a role alone (assumed with the runtime's own identity), or with keys and an external id", () => {
    expect(validateManifestText(withEnv('{ rolearn: KUBEPLANE_AWS_ROLE }')).errors).toEqual([]);
    expect(validateManifestText(withEnv('{ accesskey: K, secretkey: S, sessiontoken: T, rolearn: R, externalid: E }')).errors).toEqual([]);
  });

  it('asks for the missing half of a key pair, saying a role would do instead', () => {
    const r = validateManifestText(withEnv('{ accesskey: AWS_ACCESS_KEY_ID }'));
    expect(r.errors.map((e) => [e.path, e.message])).toEqual([
      ['providers[0].secretRef.env', 'credential key "secretkey" is missing; name the environment variable that holds it (or give rolearn)'],
    ]);
  });
});

describe('providerSpec.subnet (an existing Crusoe subnet)', () => {
  const cmk = example('crusoe-cmk.yaml');
  const errors = (text: string) => validateManifestText(text).errors.map((i) => `${i.path}: ${i.message}`);

  it('is taken on the Crusoe pools of a provider region when all of them name the same subnet', () => {
    const both = cmk.replaceAll(
      'providerSpec: { name: crusoe-1, region: us-east1-a }',
      'providerSpec: { name: crusoe-1, region: us-east1-a, subnet: team-subnet }',
    );
    expect(errors(both)).toEqual([]);
  });

  it('is refused when the pools of one provider region name different subnets, at the pool that differs', () => {
    const one = cmk.replace(
      'providerSpec: { name: crusoe-1, region: us-east1-a }',
      'providerSpec: { name: crusoe-1, region: us-east1-a, subnet: team-subnet }',
    );
    expect(errors(one)).toEqual([
      expect.stringMatching(
        /^nodePools\.dynamic\[1\]\.providerSpec\.subnet: pool "cpu" names subnet \(none\), pool "h100" of the same provider and region team-subnet/,
      ),
    ]);
  });

  it('is refused on a pool of another provider type', () => {
    const hetzner = example('minimal.yaml');
    const text = hetzner.replaceAll('providerSpec: { name: hetzner-1, region: fsn1 }', 'providerSpec: { name: hetzner-1, region: fsn1, subnet: s-1 }');
    expect(text).not.toBe(hetzner);
    expect(errors(text)).toContainEqual(
      expect.stringMatching(
        /^nodePools\.dynamic\[0\]\.providerSpec\.subnet: providerSpec\.subnet names an existing Crusoe subnet; provider "hetzner-1" is of type hetzner/,
      ),
    );
  });
});
