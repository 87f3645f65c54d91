// Claudie InputManifests that Claudie accepts are accepted here too, and the messages for the ones it refuses
// say what and where (issue 15, items 1–5 and 9).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDesiredState } from '../model/desired-state.js';
import { bootstrapClusterFromSpec } from '../bootstrap/from-spec.js';
import { plan } from '../plan/plan.js';
import { emptyState } from '../model/types.js';
import { validateManifestText } from './validate.js';

/** A Claudie manifest with a dynamic pool in both control and compute, as Claudie's e2e sets build them. */
const BOTH = `apiVersion: claudie.io/v1beta1
kind: InputManifest
metadata:
  name: both-roles
spec:
  providers:
    - name: hetzner-1
      providerType: hetzner
      secretRef:
        name: hetzner-secret
        namespace: e2e-secrets
  nodePools:
    dynamic:
      - name: htz-nodes
        providerSpec:
          name: hetzner-1
          region: fsn1
          zone: fsn1-dc14
        count: 1
        serverType: cpx22
        image: ubuntu-24.04
      - name: htz-lb
        providerSpec:
          name: hetzner-1
          region: nbg1
        count: 1
        serverType: cpx22
        image: ubuntu-24.04
  kubernetes:
    clusters:
      - name: both
        version: v1.34.2
        network: 192.168.2.0/24
        pools:
          control:
            - htz-nodes
          compute:
            - htz-nodes
  loadBalancers:
    roles:
      - name: apiserver
        protocol: tcp
        port: 6443
        targetPort: 6443
        targetPools:
          - htz-nodes
      - name: https
        protocol: tcp
        port: 443
        targetPort: 30443
        targetPools:
          - htz-nodes
    clusters:
      - name: both-lb
        roles:
          - apiserver
          - https
        dns:
          dnsZone: example.com
          provider: hetzner-1
          hostname: both
        targetedK8s: both
        pools:
          - htz-lb
`;

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('a dynamic pool in both control and compute of one cluster', () => {
  it('is accepted, as Claudie accepts it', () => {
    const r = validateManifestText(BOTH, { file: 'both.yaml' });
    expect(r.errors).toEqual([]);
  });

  it('is built twice, as Claudie builds it: control planes under its name, as many workers under <name>-w', () => {
    const m = validateManifestText(BOTH).manifests[0]!;
    const cluster = buildDesiredState(m).clusters[0]!;
    expect(cluster.pools.map((p) => [p.name, p.role, p.count, p.blueprint])).toEqual([
      ['htz-nodes', 'control', 1, undefined],
      ['htz-nodes-w', 'compute', 1, 'htz-nodes'],
    ]);
    const names = cluster.pools.flatMap((p) => p.nodes.map((n) => n.name));
    expect(new Set(names).size).toBe(names.length);
  });

  it('plans both copies, and a role naming the pool reaches both while the API role reaches the control planes only', () => {
    const m = validateManifestText(BOTH).manifests[0]!;
    const desired = buildDesiredState(m);
    const planned = plan(desired, emptyState(m.name));
    expect(planned.ok).toBe(true);
    if (!planned.ok) return;
    expect(planned.plan.summary['create-node']).toBe(3);
    const cluster = desired.clusters[0]!;
    for (const [i, p] of cluster.pools.entries()) for (const [j, n] of p.nodes.entries()) n.overlayIp = `192.168.2.${10 + i * 10 + j}`;
    const rendered = bootstrapClusterFromSpec(cluster, { apiHost: '203.0.113.1' });
    const roles = rendered.loadBalancers[0]!.roles;
    expect(roles.find((r) => r.name === 'apiserver')?.targets).toEqual(['192.168.2.10']);
    expect(roles.find((r) => r.name === 'https')?.targets).toEqual(['192.168.2.10', '192.168.2.20']);
  });

  it('is still refused twice in one list, and a static pool in both is refused', () => {
    const twice = BOTH.replace('          compute:\n            - htz-nodes', '          compute:\n            - htz-nodes\n            - htz-nodes');
    const r = validateManifestText(twice);
    expect(r.errors.map((e) => [e.path, e.message])).toEqual([
      ['spec.kubernetes.clusters[0].pools.compute[1]', expect.stringContaining('listed twice in the compute pools')],
    ]);
  });
});

describe("Claudie's CRD fields", () => {
  it('accepts autoscaler {max} without min, reading min as 0', () => {
    const text = BOTH.replace(
      '        count: 1\n        serverType: cpx22\n        image: ubuntu-24.04\n      - name: htz-lb',
      '        autoscaler:\n          max: 5\n        serverType: cpx22\n        image: ubuntu-24.04\n      - name: htz-lb',
    );
    const r = validateManifestText(text);
    expect(r.errors).toEqual([]);
    expect(r.manifests[0]?.nodePools.dynamic[0]?.autoscaler).toEqual({ min: 0, max: 5 });
  });

  it('accepts taints[].timeAdded and refuses one that is not an RFC 3339 time, with its line', () => {
    const good = BOTH.replace(
      '        image: ubuntu-24.04\n      - name: htz-lb',
      '        image: ubuntu-24.04\n        taints:\n          - key: gpu\n            value: "true"\n            effect: NoExecute\n            timeAdded: "2024-05-01T12:00:00Z"\n      - name: htz-lb',
    );
    expect(validateManifestText(good).errors).toEqual([]);
    const bad = good.replace('"2024-05-01T12:00:00Z"', 'yesterday');
    const r = validateManifestText(bad, { file: 'm.yaml' });
    expect(r.errors).toEqual([expect.objectContaining({ path: 'spec.nodePools.dynamic[0].taints[0].timeAdded', line: lineOf(bad, 'timeAdded') })]);
  });

  it('warns that taints[].timeAdded is not applied, naming the field with its path and line', () => {
    const text = BOTH.replace(
      '        image: ubuntu-24.04\n      - name: htz-lb',
      '        image: ubuntu-24.04\n        taints:\n          - key: gpu\n            effect: NoExecute\n            timeAdded: "2024-05-01T12:00:00Z"\n      - name: htz-lb',
    );
    const r = validateManifestText(text, { file: 'm.yaml' });
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([
      expect.objectContaining({ path: 'spec.nodePools.dynamic[0].taints[0].timeAdded', file: 'm.yaml', line: lineOf(text, 'timeAdded') }),
    ]);
    expect(r.warnings[0]?.message).toMatch(/^timeAdded is not applied: the taint is put on the nodes without it/);
    // Without it, no warning.
    expect(validateManifestText(BOTH).warnings).toEqual([]);
  });

  it("refuses a pool annotation under kubeplane.dev/, kubeplane's own prefix on the nodes, with its line", () => {
    const text = BOTH.replace(
      '        image: ubuntu-24.04\n      - name: htz-lb',
      '        image: ubuntu-24.04\n        annotations:\n          kubeplane.dev/annotations: x\n      - name: htz-lb',
    );
    const r = validateManifestText(text, { file: 'm.yaml' });
    expect(r.errors).toEqual([
      expect.objectContaining({ path: 'spec.nodePools.dynamic[0].annotations["kubeplane.dev/annotations"]', line: lineOf(text, 'kubeplane.dev/annotations') }),
    ]);
    expect(r.errors[0]?.message).toContain("the kubeplane.dev/ prefix is kubeplane's own");
  });

  it.each([
    ['templates', '      templates:\n        repository: https://github.com/berops/claudie-config\n        tag: v0.9.8\n'],
    ['templatesRef', '      templatesRef:\n        name: pinned-templates\n        namespace: claudie\n'],
  ])("warns that a provider's %s is not used, since kubeplane renders its own machines, with its path and line", (field, yaml) => {
    const text = BOTH.replace('        namespace: e2e-secrets\n', `        namespace: e2e-secrets\n${yaml}`);
    const r = validateManifestText(text, { file: 'm.yaml' });
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([expect.objectContaining({ path: `spec.providers[0].${field}`, file: 'm.yaml', line: lineOf(text, `${field}:`) })]);
    expect(r.warnings[0]?.message).toContain(`${field} is not used`);
    expect(r.warnings[0]?.message).toContain('kubeplane renders its own machines');
  });

  it('refuses an OpenStack pool without providerSpec.externalNetworkName, with its line', () => {
    const text = BOTH.replace('providerType: hetzner', 'providerType: openstack').replace(/dnsZone: example.com\n\s+provider: hetzner-1/, (m) => m);
    const r = validateManifestText(text, { file: 'os.yaml' });
    const os = r.errors.filter((e) => e.path.endsWith('externalNetworkName'));
    expect(os.map((e) => e.path)).toEqual([
      'spec.nodePools.dynamic[0].providerSpec.externalNetworkName',
      'spec.nodePools.dynamic[1].providerSpec.externalNetworkName',
    ]);
    expect(os[0]?.line).toBe(lineOf(text, 'providerSpec:'));
    expect(os[0]?.message).toContain('OpenStack pools need providerSpec.externalNetworkName');
    const fixed = text.replace(/region: (fsn1|nbg1)\n/g, 'region: $1\n          externalNetworkName: public\n');
    expect(validateManifestText(fixed).errors.filter((e) => e.path.endsWith('externalNetworkName'))).toEqual([]);
  });
});

describe('messages', () => {
  it('reports metadata.name problems as metadata.name in a Claudie document', () => {
    const r = validateManifestText(BOTH.replace('name: both-roles', 'name: Both_Roles'), { file: 'm.yaml' });
    expect(r.errors).toEqual([expect.objectContaining({ path: 'metadata.name', line: 4 })]);
  });

  it('never suggests the word that was typed, and lists what is allowed instead', () => {
    const text = BOTH.replace('        count: 1\n        serverType: cpx22', '        count: 1\n        region: fsn1\n        serverType: cpx22');
    const r = validateManifestText(text);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.message).not.toContain('did you mean "region"');
    expect(r.errors[0]?.message).toContain('allowed here: name, providerSpec');
    const typo = validateManifestText(BOTH.replace('serverType: cpx22', 'servertype: cpx22'));
    expect(typo.errors.map((e) => e.message)).toEqual(['unknown field "servertype"; did you mean "serverType"?']);
  });

  it('says which field is out of range and the limit, in words', () => {
    const r = validateManifestText(BOTH.replace('targetPort: 30443', 'targetPort: 70000'));
    expect(r.errors.map((e) => e.message)).toEqual(['targetPort must be at most 65535']);
  });

  it('says in one line what a Claudie TemplateGitReference is and what kubeplane reads', () => {
    const text = `apiVersion: claudie.io/v1beta1
kind: TemplateGitReference
metadata:
  name: pinned-templates
spec:
  endpoint:
    url: github.com/berops/claudie-config
    protocol: https
  commit: v0.9.8
  paths:
    terraformer: templates/terraformer
`;
    const r = validateManifestText(text, { file: 'templates.yaml' });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ path: 'kind', line: 2 });
    expect(r.errors[0]?.message).toContain('this is a Claudie TemplateGitReference');
    expect(r.errors[0]?.message).toContain('kind InputManifest');
    // Beside a manifest it is skipped with a warning.
    const both = validateManifestText(`${BOTH}---\n${text}`);
    expect(both.ok).toBe(true);
    expect(both.warnings.map((w) => w.message)).toEqual([expect.stringContaining('this document is skipped')]);
  });

  it('names the versions Claudie and CMK support in the warning for an old minor', () => {
    const r = validateManifestText(BOTH.replace('v1.34.2', 'v1.27.0'));
    expect(r.warnings[0]?.message).toContain('Claudie supports 1.34–1.36, Crusoe Managed Kubernetes 1.30–1.33');
  });
});

describe('reading the text: linear, with limits', () => {
  it('refuses a duplicate key with the line of the second one', () => {
    const text = BOTH.replace('        count: 1\n        serverType: cpx22', '        count: 1\n        count: 2\n        serverType: cpx22');
    const r = validateManifestText(text, { file: 'dup.yaml' });
    expect(r.errors).toEqual([
      expect.objectContaining({ file: 'dup.yaml', line: lineOf(text, 'count: 2'), message: 'duplicate key "count": a mapping may hold each key once' }),
    ]);
  });

  it('refuses a text over the size limit before reading it', () => {
    const r = validateManifestText(BOTH, { limits: { bytes: 100 } });
    expect(r.errors.map((e) => e.message)).toEqual([expect.stringContaining('at most 100 bytes is accepted (size limit)')]);
  });

  it('refuses nesting past the depth limit, with the line', () => {
    const text = `${BOTH}    extra: ${'['.repeat(80)}${']'.repeat(80)}\n`;
    const r = validateManifestText(text, { file: 'deep.yaml' });
    expect(r.errors).toEqual([
      expect.objectContaining({ message: 'the manifest is nested more than 64 levels deep (depth limit)', line: lineOf(text, 'extra:') }),
    ]);
  });

  it('refuses more keys than the limit, an alias bomb included, in bounded time', () => {
    const labels = Array.from({ length: 50 }, (_, i) => `          k${i}: v`).join('\n');
    const many = BOTH.replace(
      '        image: ubuntu-24.04\n      - name: htz-lb',
      `        image: ubuntu-24.04\n        labels:\n${labels}\n      - name: htz-lb`,
    );
    expect(validateManifestText(many).errors).toEqual([]);
    expect(validateManifestText(many, { limits: { keys: 60 } }).errors.map((e) => e.message)).toEqual([
      expect.stringContaining('more than 60 keys and list entries'),
    ]);
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    expect(validateManifestText(bomb).errors.map((e) => e.message)).toEqual([expect.stringContaining('keys and list entries')]);
  });
});

describe('a provider type Claudie accepts and kubeplane has no provider for yet', () => {
  const corpus = join(import.meta.dirname, '..', '..', '..', '..', 'test', 'fixtures', 'claudie');
  const read = (file: string) => readFileSync(join(corpus, file), 'utf8');

  it("is accepted with a warning at its providerType, with the line, saying apply refuses it (Claudie's Verda example)", () => {
    const text = read('docs/verda-1.yaml');
    const r = validateManifestText(text, { file: 'verda-1.yaml' });
    expect(r.ok).toBe(true);
    const warning = r.warnings.find((w) => w.path === 'spec.providers[0].providerType');
    expect(warning).toEqual(expect.objectContaining({ file: 'verda-1.yaml', line: lineOf(text, 'providerType: verda') }));
    expect(warning?.message).toBe(
      'kubeplane has no verda provider yet: apply refuses the pools and DNS of provider "verda-1" (kubeplane creates on aws, hetzner, crusoe, ' +
        'cloudflare); the entry is checked as Claudie checks it',
    );
  });

  it('is warned of for each such entry of a manifest that mixes them with clouds kubeplane creates on, and only those', () => {
    const text = read('e2e/test-set2_1.yaml');
    const r = validateManifestText(text, { file: 'ts2.yaml' });
    expect(r.errors).toEqual([]);
    const types = r.manifests[0]?.providers.map((p) => p.providerType);
    expect(types).toEqual(['gcp', 'hetzner', 'oci', 'oci', 'aws', 'azure', 'openstack']);
    const lines = text.split('\n').flatMap((l, i) => (l.includes('providerType:') ? [i + 1] : []));
    expect(r.warnings.filter((w) => w.path.endsWith('.providerType')).map((w) => [w.path, w.line, w.message.split(':')[0]])).toEqual(
      [0, 2, 3, 5, 6].map((i) => [`spec.providers[${i}].providerType`, lines[i], `kubeplane has no ${types?.[i]} provider yet`]),
    );
  });
});
