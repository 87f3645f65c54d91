// `kubeplane apply --sandbox` on AWS with the environment a person has after `source`-ing a served sandbox's env file
// (docs/sandbox.md): AWS_ENDPOINT_URL and the like point elsewhere, and the in-process sandbox clouds still answer.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, type CliRun } from '../../../../../test/helpers/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** One control-plane machine on AWS: the smallest cluster that makes EC2, STS (the cluster's session) calls. */
const MANIFEST = `apiVersion: kubeplane.dev/v1
kind: Manifest
metadata:
  name: aws-one
providers:
  - name: aws-1
    providerType: aws
    secretRef:
      env: { accesskey: AWS_ACCESS_KEY_ID, secretkey: AWS_SECRET_ACCESS_KEY }
nodePools:
  dynamic:
    - name: control
      providerSpec: { name: aws-1, region: eu-central-1, zone: eu-central-1a }
      count: 1
      serverType: t3.medium
      image: ami-0965bd5ba4d59211c
kubernetes:
  clusters:
    - name: aws-one
      version: "1.34.2"
      network: 10.0.0.0/24
      pools:
        control: [control]
        compute: [control]
`;

/** What the AWS SDKs read from the environment that moves requests off AWS's own endpoints; port 9 answers nothing. */
const ENVIRONMENT = {
  AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
  AWS_ENDPOINT_URL_EC2: 'http://127.0.0.1:9',
  AWS_ENDPOINT_URL_ROUTE_53: 'http://127.0.0.1:9',
  AWS_ENDPOINT_URL_STS: 'http://127.0.0.1:9',
  AWS_PROFILE: 'kubeplane-test-no-such-profile',
  AWS_REGION: 'us-west-2',
  AWS_USE_FIPS_ENDPOINT: 'true',
};

let dir: string;
let applied: CliRun;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeplane-aws-env-'));
  await writeFile(join(dir, 'aws-one.yaml'), MANIFEST);
  // The AWS SDK reads process.env; the CLI is handed the same environment, as the bin script does.
  for (const [name, value] of Object.entries(ENVIRONMENT)) vi.stubEnv(name, value);
  applied = await runCli(['apply', 'aws-one.yaml', '--sandbox', '--state-dir', 'state'], { cwd: dir, env: { ...ENVIRONMENT } });
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

describe('kubeplane apply --sandbox with AWS endpoints configured in the environment', () => {
  it("creates the cluster on the sandbox's own AWS all the same", () => {
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/\[sandbox\] aws-one: DONE after \S+ \(virtual\)/);
  });
});

describe("a file error from outside the state directory's adapters", () => {
  it("is printed with its kind and the fix, like kubeplane's own errors", async () => {
    await mkdir(join(dir, 'kubeconfig'));
    const run = await runCli(['kubeconfig', 'aws-one', '--sandbox', '--state-dir', 'state', '--out', 'kubeconfig'], { cwd: dir, env: { ...ENVIRONMENT } });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `kubeplane kubeconfig: invalid: cannot open ${join(dir, 'kubeconfig')}: it is a folder where kubeplane keeps a file (EISDIR); move that folder away\n`,
    );
  });
});
