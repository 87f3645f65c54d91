// docs/serverless.md's AWS "Deploying" steps, run as written. The CDK app block is written to `app.ts` in a project
// directory and synthesised with the `cdk` CLI, by the deploy line with `deploy` read as `synth` (nothing here can
// deploy). The template then stands for the deployed stack: `ApiUrl` is its output (a function URL's address, as
// Lambda mints one), the API function's access grants and the step function's settings are its environment. Every
// other line of the shell block runs against the four functions in process (test/helpers/aws-functions.ts: the
// emulated Secrets Manager, SQS and DynamoDB, the sandbox clouds): `export` with `$(aws cloudformation describe-stacks
// …)`, `aws secretsmanager create-secret`, and `awscurl` as a SigV4-signed caller, the principal the app grants. A
// line the test cannot run fails it, so the docs cannot gain a step that is not checked. Then Lambda's poller runs
// the step function until the queue is idle, and the project the docs sent is DONE.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { parse as parseShell } from 'shell-quote';
import { awsClientConfig, type ApiEvent } from '@kubeplane/handlers/aws';
import { accessGrantsFromJson, FUNCTIONS, type AccessGrant } from '@kubeplane/aws-cdk';
import { bundleHandlers } from '../../packages/aws-cdk/scripts/bundle.js';
import { blocksOf } from '../docs/markdown-blocks.js';
import { AwsCallRecorder } from '../helpers/aws-call-recorder.js';
import { REGION, startAwsEmulators, type AwsEmulators } from '../helpers/aws-emulators.js';
import { deployFunctions, type DeployedFunctions } from '../helpers/aws-functions.js';
import { runEventSourceMapping } from '../helpers/lambda-simulator.js';
import { LIFECYCLE_TIMEOUT } from '../helpers/aws-world.js';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const DOC = 'docs/serverless.md';
const ACCOUNT = '123456789012';
/** What Lambda would mint for the API function's URL: `https://<url-id>.lambda-url.<region>.on.aws/`. */
const MINTED_URL = `https://k7x2q4vbn3hfdy5wzm6ga8ecpu0jtrsl.lambda-url.${REGION}.on.aws/`;
/** The user's Hetzner token, which the docs take from the environment. */
const HCLOUD_TOKEN = 'h'.repeat(64);

interface Line {
  /** `docs/serverless.md:281`. */
  where: string;
  text: string;
}

/** The ```sh block that deploys (the one with `cdk deploy`), one entry per command, comments and blank lines left out. */
function deployLines(): Line[] {
  const lines = readFileSync(join(root, DOC), 'utf8').split('\n');
  const at = lines.findIndex(
    (l, i) =>
      /^npx cdk deploy /.test(l) &&
      lines
        .slice(0, i)
        .reverse()
        .find((x) => x.startsWith('```')) === '```sh',
  );
  if (at < 0) throw new Error(`${DOC}: no \`npx cdk deploy\` line in a \`\`\`sh block`);
  const start = lines.slice(0, at).lastIndexOf('```sh');
  const out: Line[] = [];
  for (let i = start + 1; i < lines.length && !lines[i]?.startsWith('```'); i++) {
    const text = lines[i]?.trim() ?? '';
    if (text && !text.startsWith('#')) out.push({ where: `${DOC}:${i + 1}`, text });
  }
  return out;
}

type Resource = { Type: string; Properties: Record<string, unknown> };
let project = '';
let template: { Resources: Record<string, Resource>; Outputs: Record<string, { Value: unknown }> };
let emulators: AwsEmulators;
let deployed: DeployedFunctions;
let access: AccessGrant[];
const lines = deployLines();
const ran: Array<{ where: string; command: string; output: string }> = [];

const functionEnvironment = (fn: string) => {
  const f = Object.entries(template.Resources).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(fn));
  if (!f) throw new Error(`the template has no ${fn}`);
  return (f[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables;
};

/** The API function behind its URL: an IAM-authorised caller (`principal`), as the function URL delivers the request. */
async function callApi(method: string, url: string, body: string | undefined, principal: string) {
  const path = new URL(url).pathname;
  const event = {
    version: '2.0',
    rawPath: path,
    rawQueryString: '',
    headers: body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
    isBase64Encoded: false,
    requestContext: { http: { method, path, sourceIp: '203.0.113.7' }, authorizer: { iam: { userArn: principal, accountId: ACCOUNT } } },
    ...(body === undefined ? {} : { body }),
  } as unknown as ApiEvent;
  const res = await deployed.api(event, { awsRequestId: `docs-${method}-${path}` } as Context);
  return { status: res.statusCode ?? 0, body: res.body ?? '' };
}

/** Runs one command of the block; returns what it prints. */
async function runLine(line: Line, env: Record<string, string>): Promise<string> {
  // Command substitution first: `$(…)` is run as a command of its own and replaced by its output.
  const text = line.text.replace(/\$\((.*)\)/, (_m, inner: string) => `'${String(ranSync.get(inner))}'`);
  const words = parseShell(text, env).map((w) => {
    if (typeof w !== 'string') throw new Error(`${line.where}: the test runs no shell operator (${JSON.stringify(w)}): ${line.text}`);
    return w;
  });
  const [cmd, ...args] = words;
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (cmd === 'export') {
    const [name, ...value] = (args[0] ?? '').split('=');
    env[name ?? ''] = value.join('=');
    return '';
  }
  if (cmd === 'npx' && args[0] === 'cdk' && args[1] === 'deploy') return 'deployed (synthesised in beforeAll)';
  if (cmd === 'aws' && args[0] === 'secretsmanager' && args[1] === 'create-secret') {
    const sm = new SecretsManagerClient(awsClientConfig(emulators.secretsManager));
    try {
      const r = await sm.send(new CreateSecretCommand({ Name: flag('--name'), SecretString: flag('--secret-string') }));
      return JSON.stringify({ ARN: r.ARN, Name: r.Name });
    } finally {
      sm.destroy();
    }
  }
  if (cmd === 'awscurl') {
    expect(flag('--service'), `${line.where}: awscurl signs for the function URL's service`).toBe('lambda');
    const url = args.at(-1) ?? '';
    expect(url.startsWith(MINTED_URL), `${line.where}: ${url} is not under the stack's ApiUrl`).toBe(true);
    const data = flag('--data-binary');
    const body = data?.startsWith('@') ? readFileSync(join(root, data.slice(1)), 'utf8') : data;
    const res = await callApi(flag('-X') ?? (body === undefined ? 'GET' : 'POST'), url, body, access[0]?.principal ?? '');
    expect(res.status, `${line.where}: ${line.text} answered ${res.status} ${res.body}`).toBeLessThan(300);
    return res.body;
  }
  throw new Error(`${line.where}: the test cannot run \`${line.text}\`; run it here or take it out of the block`);
}

/** `$(aws cloudformation describe-stacks …)`: the one command substitution the docs use, answered from the template. */
const ranSync = {
  get(inner: string): string {
    const words = parseShell(inner).map(String);
    if (words[0] !== 'aws' || words[1] !== 'cloudformation' || words[2] !== 'describe-stacks') throw new Error(`the test cannot run \`$(${inner})\``);
    expect(words[words.indexOf('--stack-name') + 1]).toBe(project);
    expect(words[words.indexOf('--output') + 1]).toBe('text');
    const key = /OutputKey=='(\w+)'/.exec(words[words.indexOf('--query') + 1] ?? '')?.[1] ?? '';
    const output = template.Outputs[key];
    if (!output) throw new Error(`the stack has no output ${key} (outputs: ${Object.keys(template.Outputs).join(', ')})`);
    // A function URL's address is Lambda's to mint: the output must be the URL of the API function.
    expect(JSON.stringify(output.Value)).toMatch(/"Fn::GetAtt":\["ApiFunctionFunctionUrl[0-9A-F]+","FunctionUrl"\]/);
    return MINTED_URL;
  },
};

let dir = '';
beforeAll(async () => {
  const bundles = join(root, 'packages', 'aws-cdk', 'lambda');
  if (!Object.values(FUNCTIONS).every((f) => existsSync(join(bundles, f, 'index.mjs')))) await bundleHandlers(bundles);
  const app = blocksOf(root, DOC).find((b) => b.code.includes('new KubeplaneStack('));
  if (!app) throw new Error(`${DOC}: no CDK app block`);
  project = /new KubeplaneStack\(app, '([^']+)'/.exec(app.code)?.[1] ?? '';
  // Inside the repository, so `@kubeplane/aws-cdk` resolves as an installed package does (dist, the shipped bundles).
  await mkdir(join(root, 'scratch'), { recursive: true });
  dir = await mkdtemp(join(root, 'scratch', 'aws-deploy-docs-'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  await writeFile(join(dir, 'app.ts'), app.code);
  const deploy = lines.find((l) => l.text.startsWith('npx cdk deploy '));
  const appCommand = parseShell(deploy?.text ?? '')[4];
  expect(typeof appCommand, `${deploy?.where}: npx cdk deploy --app "<command>"`).toBe('string');
  await exec('npx', ['cdk', 'synth', '--app', String(appCommand), '--quiet'], {
    cwd: dir,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
    timeout: 180_000,
  });
  template = JSON.parse(readFileSync(join(dir, 'cdk.out', `${project}.template.json`), 'utf8'));
  access = accessGrantsFromJson(String(functionEnvironment('ApiFunction').KUBEPLANE_ACCESS), 'the API function');
  const step = functionEnvironment('StepFunction');
  emulators = await startAwsEmulators();
  deployed = await deployFunctions({
    emulators,
    recorder: new AwsCallRecorder(),
    seed: 7,
    secretPrefix: String(step.KUBEPLANE_SECRET_PREFIX ?? 'kubeplane/'),
    providerSecretPrefix: String(step.KUBEPLANE_PROVIDER_SECRET_PREFIX ?? 'kubeplane-providers/'),
    maxReceiveCount: Number(step.KUBEPLANE_MAX_RECEIVE_COUNT ?? 5),
    visibilitySeconds: Number(step.KUBEPLANE_VISIBILITY_SECONDS ?? 540),
    leaseSeconds: Number(step.KUBEPLANE_LEASE_SECONDS ?? 120),
    access,
  });
}, 300_000);

afterAll(async () => {
  deployed?.close();
  await emulators?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe(`${DOC}'s AWS deploy, as written`, { timeout: LIFECYCLE_TIMEOUT }, () => {
  it('synthesises a stack whose outputs are the API URL and the provider role', () => {
    expect(Object.keys(template.Outputs).sort()).toEqual(['ApiUrl', 'ProviderRoleArn']);
    expect(access.length, "the app's grants reach the API function").toBeGreaterThan(0);
  });

  it("runs every line of the deploy block, and the manifest it sends is built to DONE by the stack's functions", async () => {
    const env: Record<string, string> = { HCLOUD_TOKEN };
    for (const line of lines) ran.push({ where: line.where, command: line.text, output: await runLine(line, env) });
    expect(ran.map((r) => r.command.split(' ')[0])).toEqual(expect.arrayContaining(['npx', 'export', 'aws', 'awscurl']));
    const posted = ran.find((r) => r.command.includes('-X POST'));
    const sent = JSON.parse(posted?.output ?? '{}') as { applied?: Array<{ project: string }> };
    expect(sent.applied?.map((s) => s.project)).toEqual(['minimal']);
    const steps = await runEventSourceMapping({ queue: deployed.stepPoller, handlers: [deployed.step], clock: deployed.sandbox.clock, maxDeliveries: 2000 });
    expect(steps.stopped).toBe('idle');
    const status = await callApi('GET', `${MINTED_URL}projects/minimal`, undefined, access[0]?.principal ?? '');
    expect(status.status).toBe(200);
    expect((JSON.parse(status.body) as { clusters: Record<string, { state: string }> }).clusters.minimal?.state).toBe('DONE');
    // The token the docs stored reached Hetzner only: it is in no log line of the functions.
    expect(deployed.logs.join('\n')).not.toContain(HCLOUD_TOKEN);
  });
});
