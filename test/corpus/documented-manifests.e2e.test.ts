// Every documented manifest runs (issue 31, item 3): the InputManifests of Claudie's README, guide, docs and e2e test
// sets (test/fixtures/claudie, each with its source in a header) and kubeplane's own examples (examples/, referenced
// where they are) go through `kubeplane sandbox lifecycle` as a new user pastes them, whenever kubeplane creates on
// every provider they name. Each ends as the table says: `done` (every stage DONE, destroy DELETED, 0 leaked) or refused
// before anything is created, with a refusal the real cloud would give too.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateManifestText } from '@kubeplane/sdk';
import { isCreatableProviderType } from '@kubeplane/sdk/internal';
import { runCli } from '../helpers/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const root = join(import.meta.dirname, '..', '..');

/**
 * `done`: every stage DONE, destroy DELETED, 0 leaked. `refused`: the create ends ERROR with `refused` in its errors,
 * nothing is left, and `why` says why the real cloud would refuse it too (or, for a gap of kubeplane's, says so).
 */
type Outcome = 'done' | { refused: string; why: string };

/**
 * A manifest's runs: its outcome in the default sandbox (a new AWS account, the clouds' catalogs of 2026-01-01), and
 * where that is a refusal of the account or the day rather than of the manifest, the outcome with the explicit option a
 * real user would need too (their account's opt-in, or an earlier day), as `sandbox lifecycle <file> ...args`.
 */
type Expected = Outcome | Array<{ args: string[]; outcome: Outcome }>;

/** Zurich (eu-central-2, 2022) is an opt-in Region: a new AWS account has not enabled it. */
const ZURICH: Outcome = {
  refused: 'aws region eu-central-2 is not enabled for the account of provider aws-1: it is an opt-in region',
  why: 'AWS Regions launched since March 2019 are disabled until the account enables them; a new account has not',
};
const OPT_IN_ZURICH = ['--aws-opt-in-regions', 'eu-central-2'];

/** Hetzner deprecated cpx11-cpx51 in its EU locations on 2025-10-16 and stopped selling them there after 2025-12-31. */
const retiredCpx = (type: string, where: string): Outcome => ({
  refused: `hetzner server type ${type} was deprecated and cannot be ordered in ${where} since 2025-12-31T00:00:00Z`,
  why: `Hetzner sells ${type} in the US only since 2026-01-01 (catalogs/hetzner/hetzner-cloud.json)`,
});
const BEFORE_2026 = ['--sandbox-date', '2025-12-01'];

/**
 * The expected end of every corpus manifest kubeplane can create, by path from the repository's root. A manifest added
 * to the corpus must be added here (the first test says which are missing).
 */
const EXPECTED: Record<string, Expected> = {
  // Claudie's README quickstart (the issue's Done-when): Paris and Frankfurt, enabled in every account.
  'test/fixtures/claudie/readme/quickstart.yaml': 'done',
  // Claudie's detailed guide (the issue's Done-when), its three files: the first (kept in examples/) has its load
  // balancers in Zurich; the second adds a Hetzner pool of cpx51 in Helsinki, which Hetzner sold until 2025-12-31.
  'examples/claudie-bursting.yaml': [
    { args: [], outcome: ZURICH },
    { args: OPT_IN_ZURICH, outcome: 'done' },
  ],
  'test/fixtures/claudie/guide/bursting-hetzner.yaml': [
    { args: OPT_IN_ZURICH, outcome: retiredCpx('cpx51', 'hel1-dc2') },
    { args: [...OPT_IN_ZURICH, ...BEFORE_2026], outcome: 'done' },
  ],
  'test/fixtures/claudie/guide/bursting-https.yaml': [{ args: [...OPT_IN_ZURICH, ...BEFORE_2026], outcome: 'done' }],
  // kubeplane's own examples.
  'examples/autoscaled.yaml': 'done',
  'examples/aws/minimal.yaml': 'done',
  'examples/crusoe-cmk.yaml': 'done',
  'examples/hybrid-aws-hetzner.yaml': 'done',
  'examples/hybrid-hetzner-crusoe-gpu.yaml': 'done',
  'examples/minimal.yaml': 'done',
  'examples/static-and-dynamic.yaml': 'done',
  // Claudie's docs.
  'test/fixtures/claudie/docs/external-templates-tag.yaml': 'done',
  // g4dn.xlarge (T4) in Frankfurt.
  'test/fixtures/claudie/docs/gpu-aws.yaml': 'done',
  'test/fixtures/claudie/docs/hetzner-1.yaml': 'done',
  'test/fixtures/claudie/docs/hetzner-2.yaml': 'done',
  // Not a cloud's refusal: a gap of kubeplane's. Its API endpoint is a load balancer or a cloud's reserved IP on the
  // first control plane; a cluster of static machines only, with no API load balancer (Claudie's private on-prem
  // example), has neither, and the create fails at its networks step before anything is made.
  'test/fixtures/claudie/docs/onprem-private.yaml': {
    refused: 'the API endpoint node private-cluster-5tn5v2i-control-01 has no provider',
    why: 'kubeplane gap: a static control plane without an API load balancer has no endpoint kubeplane can give it',
  },
  'test/fixtures/claudie/docs/onpremises-hybrid.yaml': 'done',
  // Claudie's e2e test sets.
  'test/fixtures/claudie/e2e/autoscaling-2_1.yaml': 'done',
  'test/fixtures/claudie/e2e/autoscaling-2_2.yaml': 'done',
  'test/fixtures/claudie/e2e/proxy-with-hetzner_1.yaml': 'done',
  'test/fixtures/claudie/e2e/proxy-with-hetzner_2.yaml': 'done',
  'test/fixtures/claudie/e2e/proxy-with-hetzner_3.yaml': [
    { args: [], outcome: retiredCpx('cpx11', 'fsn1-dc14') },
    { args: BEFORE_2026, outcome: 'done' },
  ],
  'test/fixtures/claudie/e2e/proxy-with-hetzner_4.yaml': 'done',
  'test/fixtures/claudie/e2e/rolling-update-2_2.yaml': 'done',
  'test/fixtures/claudie/e2e/succeeds-on-last-1_1.yaml': 'done',
  'test/fixtures/claudie/e2e/succeeds-on-last-1_2.yaml': 'done',
  'test/fixtures/claudie/e2e/succeeds-on-last-2_1.yaml': 'done',
  // `<node>-storage` is a 64-character volume name here: Hetzner documents no pattern for volume names.
  'test/fixtures/claudie/e2e/succeeds-on-last-4_1.yaml': 'done',
  'test/fixtures/claudie/e2e/test-set5_1.yaml': 'done',
  'test/fixtures/claudie/e2e/test-set5_3.yaml': 'done',
};

/** Every run of the table: a manifest, the extra arguments, and the outcome. */
const RUNS = Object.entries(EXPECTED).flatMap(([file, e]) =>
  (Array.isArray(e) ? e : [{ args: [], outcome: e }]).map((r) => ({ file, args: r.args, outcome: r.outcome })),
);

function yamlFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => join(dir, f));
}

/**
 * What Claudie's testing framework does before applying a test set with static nodes (claudie-corpus.test.ts): a
 * TEST-NET-1 address (RFC 5737) for each `endpoint: replace-me`.
 */
function fillStaticEndpoints(text: string): string {
  let n = 0;
  return text.replace(/endpoint: replace-me$/gm, () => `endpoint: 192.0.2.${++n}`);
}

/** The corpus manifests whose providers kubeplane creates on, every one of them (static pools need no provider). */
const creatable = [...yamlFiles('test/fixtures/claudie'), ...yamlFiles('examples')]
  .filter((file) => {
    const r = validateManifestText(fillStaticEndpoints(readFileSync(join(root, file), 'utf8')), { file });
    return r.manifests.length > 0 && r.manifests.every((m) => m.providers.every((p) => isCreatableProviderType(p.providerType)));
  })
  .sort();

const scratch = mkdtempSync(join(tmpdir(), 'kubeplane-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Summary {
  stages?: Array<{ stage: string; state: string }>;
  leakedResources?: number;
  leaked?: unknown[];
  issues?: Array<{ severity: string; path: string; message: string }>;
  autoscale?: { pools: Array<{ pool: string; min: number; max: number; start: number; peak: number; end: number; increaseCalls: number }> };
}

/**
 * The autoscale stage of examples/autoscaled.yaml (issue 14): pending pods grow the Hetzner pool within its max and it
 * shrinks back to min; the spot pool, whose cloud has no spot capacity, is backed off after a few refusals instead of
 * asked in a loop. The sandbox refuses only RunInstances calls that ask for the spot market: an on-demand launch would
 * let the pool grow.
 */
function expectAutoscaled(summary: Summary): void {
  const pools = Object.fromEntries((summary.autoscale?.pools ?? []).map((p) => [p.pool, p]));
  const general = pools['general'];
  expect(general && general.peak > general.start && general.peak <= general.max && general.end === general.min).toBe(true);
  expect(pools['spot-batch']).toMatchObject({ start: 0, peak: 0, end: 0 });
  expect(pools['spot-batch']?.increaseCalls).toBeLessThanOrEqual(3);
}

describe('every documented manifest through kubeplane sandbox lifecycle', () => {
  it('has an expected outcome for every corpus manifest kubeplane creates, and for no other file', () => {
    expect(creatable).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(RUNS.map((r) => [`${r.file}${r.args.length ? ` ${r.args.join(' ')}` : ''}`, r] as const))(
    '%s: through sandbox lifecycle to its expected end',
    async (_name, { file, args, outcome: expected }) => {
      const text = readFileSync(join(root, file), 'utf8');
      const filled = fillStaticEndpoints(text);
      // A test set with placeholders runs from a copy with the addresses filled in, as Claudie's framework applies it.
      const path = filled === text ? file : join(scratch, file.replaceAll('/', '_'));
      if (filled !== text) writeFileSync(path, filled);
      const run = await runCli(['sandbox', 'lifecycle', path, '--json', ...args], { cwd: root });
      const summary = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as Summary;
      const states = (summary.stages ?? []).map((s) => `${s.stage}: ${s.state}`);
      const errors = (summary.issues ?? []).filter((i) => i.severity === 'error').map((i) => `${i.path}: ${i.message}`);
      const seen = { file, states, leaked: summary.leaked, errors, stderr: run.stderr.trim() };
      if (expected === 'done') {
        const stages = (summary.stages ?? []).map((s) => `${s.stage}: ${s.stage === 'destroy' ? 'DELETED' : 'DONE'}`);
        expect(seen).toEqual({ file, states: stages, leaked: [], errors: [], stderr: '' });
        expect(stages.length).toBeGreaterThanOrEqual(2);
        expect(summary.leakedResources).toBe(0);
        expect(run.code).toBe(0);
        if (file === 'examples/autoscaled.yaml') {
          expect(states).toContain('autoscale: DONE');
          expectAutoscaled(summary);
        }
      } else {
        // Refused at the create: the rest is skipped, destroy finds what there is to delete, and nothing is left.
        expect(seen).toEqual({ ...seen, states: ['create: ERROR', 'destroy: DELETED'], leaked: [] });
        expect([...errors, run.stderr].join('\n'), expected.why).toContain(expected.refused);
        expect(run.code).toBe(1);
      }
    },
  );
});
