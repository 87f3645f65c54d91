// The packages as a new user gets them: `npm pack`ed, installed together into a fresh project outside this
// repository, and used from there: a TypeScript script (ESM, strict, NodeNext) that runs a cluster's lifecycle on the
// sandbox clouds, an ESM node:http service, and a CommonJS consumer compiled with TypeScript's defaults for CommonJS
// (module commonjs, node10 resolution). Nothing of the workspace leaks in: no source condition, no symlinks. Each
// tarball carries its licence and metadata; `npx kubeplane --version` and the README's TypeScript block run there.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksOf, promises } from '../docs/markdown-blocks.js';

const exec = promisify(execFile);
/** Every published package, by its directory under packages/. */
const PACKAGES = ['aws-cdk', 'gcp-terraform', 'handlers', 'providers', 'sandbox', 'sdk'];
/** Those of them that are JavaScript (the Terraform module is not). */
const JS = new Set(['@kubeplane/aws-cdk', '@kubeplane/handlers', '@kubeplane/providers', '@kubeplane/sandbox', '@kubeplane/sdk']);
const root = join(import.meta.dirname, '..', '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const typeRoots = [join(root, 'node_modules', '@types')];
/**
 * The environment a user's program runs in: this run's own, less the test harness's variables (the run-wide response
 * conformance check names a directory the packed sandbox, which ships without the API documents, must not act on).
 */
const userEnv: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'KUBEPLANE_OPENAPI_CONFORMANCE_DIR'));
/** The version this repository's lockfile has of `name`, so the fresh project installs what CI has cached. */
const pinned = (name: string): string => (createRequire(join(root, 'package.json'))(`${name}/package.json`) as { version: string }).version;
let dir = '';
let tarballs: Array<{ name: string; version: string; filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }> = [];
const version = (JSON.parse(await readFile(join(root, 'packages', 'handlers', 'package.json'), 'utf8')) as { version: string }).version;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeplane-fresh-project-'));
  const packed = await exec(
    'npm',
    [
      'pack',
      '--json',
      '--pack-destination',
      dir,
      '-w',
      'packages/sdk',
      '-w',
      'packages/providers',
      '-w',
      'packages/sandbox',
      '-w',
      'packages/handlers',
      '-w',
      'packages/aws-cdk',
      '-w',
      'packages/gcp-terraform',
    ],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  tarballs = JSON.parse(packed.stdout) as typeof tarballs;
  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }, null, 2));
  // All at once: each tarball's dependency on another @kubeplane package is met by the tarball beside it. With them,
  // what docs/serverless.md has a CDK user install beside @kubeplane/aws-cdk.
  const started = performance.now();
  const cdk = ['aws-cdk-lib', 'constructs', 'aws-cdk', 'tsx'].map((p) => `${p}@${pinned(p)}`);
  await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs.map((t) => join(dir, t.filename)), ...cdk], {
    cwd: app,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 600_000,
  });
  const sizes = tarballs.map((t) => `${t.name} ${(t.size / 1024).toFixed(0)} kB packed, ${(t.unpackedSize / 1024).toFixed(0)} kB unpacked`);
  console.log(`packed: ${sizes.join('; ')}; installed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}, 660_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function compile(project: string, compilerOptions: Record<string, unknown>, files: string[]): Promise<void> {
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, types: ['node'], typeRoots, outDir: 'out', ...compilerOptions }, files }),
  );
  const r = await exec(process.execPath, [tsc, '-p', project]).catch((e: { stdout?: string; stderr?: string }) => ({
    stdout: e.stdout ?? '',
    stderr: e.stderr ?? 'tsc failed',
  }));
  expect(`${r.stdout}${r.stderr}`).toBe('');
}

/** A TypeScript ESM script on the installed packages: validate, apply on the sandbox, destroy, and what is left. */
const SCRIPT = `import { createSandboxKubeplane } from '@kubeplane/handlers';
import { validateManifestFile, type Manifest } from '@kubeplane/sdk';

const result = await validateManifestFile('minimal.yaml');
const manifest: Manifest | undefined = result.manifests[0];
if (!result.ok || !manifest) throw new Error(result.errors.map((e) => e.message).join('; '));
const local = await createSandboxKubeplane();
await local.kubeplane.apply(manifest);
await local.kubeplane.run();
const state = (await local.kubeplane.status(manifest.name)).state;
await local.kubeplane.destroy(manifest.name);
await local.kubeplane.run();
console.log(JSON.stringify({ state, gone: (await local.kubeplane.findStatus(manifest.name)) === null, left: local.sandbox.inventory().length }));
await local.close();
`;
/** The README's block that uses the packages ("In a TypeScript script or service"), run as a reader pastes it. */
const readmeBlocks = blocksOf(root, 'README.md').filter((b) => b.code.includes("from '@kubeplane/handlers'"));
const readmeBlock = readmeBlocks[0] ?? { where: 'README.md', mode: 'run', code: '', file: '' };
let esm: Promise<void> | undefined;

/** script.ts and the README's block (readme.ts), compiled once together: tsc's check of the installed types is the cost. */
function compiledEsm(): Promise<void> {
  esm ??= (async () => {
    const app = join(dir, 'app');
    const manifest = await readFile(join(root, 'examples', 'minimal.yaml'));
    await mkdir(join(app, 'examples'), { recursive: true });
    await writeFile(join(app, 'minimal.yaml'), manifest);
    await writeFile(join(app, 'examples', 'minimal.yaml'), manifest);
    await writeFile(join(app, 'script.ts'), SCRIPT);
    await writeFile(join(app, 'readme.ts'), readmeBlock.code);
    // A consumer whose monorepo resolves its own packages through a source condition (issue 39): the published
    // packages name none, so it type-checks their built types.
    await compile(
      app,
      { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', noUncheckedIndexedAccess: true, customConditions: ['source', '@kubeplane/source'] },
      ['script.ts', 'readme.ts'],
    );
  })();
  return esm;
}

describe('the packed packages', () => {
  it('hold built files and types, the licence, the notice and a README, and no tests, test support, sources or source maps', async () => {
    expect(tarballs.map((t) => t.name).sort()).toEqual(PACKAGES.map((p) => `@kubeplane/${p}`));
    for (const t of tarballs) {
      const paths = t.files.map((f) => f.path);
      expect(paths, t.name).toEqual(expect.arrayContaining(['package.json', 'LICENSE', 'NOTICE', 'README.md']));
      if (!JS.has(t.name)) continue;
      expect(paths, t.name).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts']));
      // No export points at sources the package does not ship (the workspace's condition is stripped at pack time).
      const installed = JSON.stringify(
        (JSON.parse(await readFile(join(dir, 'app', 'node_modules', ...t.name.split('/'), 'package.json'), 'utf8')) as { exports: unknown }).exports,
      );
      expect(installed, t.name).not.toContain('@kubeplane/source');
      expect(installed, t.name).not.toMatch(/"\.\/src\//);
      // No built file points at a source map it does not ship.
      const entry = await readFile(join(dir, 'app', 'node_modules', ...t.name.split('/'), 'dist', 'index.js'), 'utf8');
      expect(entry, t.name).not.toContain('sourceMappingURL');
      expect(
        paths.filter((p) => /\.test\.|\.bench\.|test-support|\/testing\/machine|fixture\.|tsbuildinfo|\.map$/.test(p)),
        t.name,
      ).toEqual([]);
      // Of src/, only the vendored protos and Kubernetes OpenAPI documents (NOTICE names them and their licences) and the
      // catalog snapshots (each names its sources) the code reads at run time.
      const readAtRunTime = [/^src\/(gcp|autoscaler)\/protos\//, /^src\/kubernetes\/openapi-spec\//, /^src\/catalogs\/[a-z0-9-]+\/[^/]+\.json$/];
      expect(
        paths.filter((p) => p.startsWith('src/') && !readAtRunTime.some((r) => r.test(p))),
        t.name,
      ).toEqual([]);
    }
    const paths = (name: string) => tarballs.find((t) => t.name === name)?.files.map((f) => f.path) ?? [];
    expect(paths('@kubeplane/sandbox')).toEqual(
      expect.arrayContaining([
        'src/gcp/protos/google/firestore/v1/firestore.proto',
        'src/gcp/protos/google/protobuf/descriptor.proto',
        'src/catalogs/hetzner/hetzner-cloud.json',
        'src/catalogs/crusoe/crusoe-cloud.json',
        'src/catalogs/cloudflare/cloudflare-api.json',
        'src/kubernetes/openapi-spec/LICENSE',
        'src/kubernetes/openapi-spec/swagger-v1.36.json.gz',
      ]),
    );
    expect(paths('@kubeplane/handlers')).toEqual(expect.arrayContaining(['src/autoscaler/protos/externalgrpc.proto', 'bin/kubeplane.js']));
    // The deploys ship the functions' bundles, so a user needs neither esbuild nor kubeplane's sources.
    expect(paths('@kubeplane/gcp-terraform').sort()).toEqual(
      [
        'LICENSE',
        'NOTICE',
        'README.md',
        'THIRD-PARTY-LICENSES.md',
        'functions.tf',
        'functions/index.js',
        'functions/package.json',
        'iam.tf',
        'main.tf',
        'package.json',
        'variables.tf',
        'versions.tf',
      ].sort(),
    );
    expect(paths('@kubeplane/aws-cdk')).toEqual(
      expect.arrayContaining(['lambda/step/index.mjs', 'lambda/api/index.mjs', 'lambda/dead-letter/index.mjs', 'lambda/watchdog/index.mjs']),
    );
  });

  it("synthesise docs/serverless.md's CDK app with `cdk synth`, from the installed @kubeplane/aws-cdk alone: the stack outputs the API URL", async () => {
    const project = join(dir, 'cdk-app');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'cdk-app', private: true, type: 'module' }));
    const appBlock = blocksOf(root, 'docs/serverless.md').find((b) => b.code.includes('new KubeplaneStack('));
    await writeFile(join(project, 'app.ts'), appBlock?.code ?? '');
    // The installed packages of the fresh project, as `npm install` in this directory would give them.
    await symlink(join(dir, 'app', 'node_modules'), join(project, 'node_modules'));
    await exec('npx', ['cdk', 'synth', '--app', 'npx tsx app.ts', '--quiet'], {
      cwd: project,
      env: { ...userEnv, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
      timeout: 180_000,
    });
    const template = JSON.parse(await readFile(join(project, 'cdk.out', 'Kubeplane.template.json'), 'utf8')) as {
      Outputs: Record<string, { Value: unknown }>;
      Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
    };
    expect(JSON.stringify(template.Outputs.ApiUrl?.Value)).toMatch(/ApiFunctionFunctionUrl[0-9A-F]+","FunctionUrl/);
    // Each function's asset is the bundle the package shipped.
    const functions = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions).toHaveLength(4);
    for (const f of functions) {
      const asset = f.Metadata?.['aws:asset:path'] ?? '';
      expect((await readdir(join(project, 'cdk.out', asset))).sort()).toEqual(['index.mjs']);
    }
  }, 240_000);

  it('install the CLI without the sandbox or Google: no optional peer in node_modules, validate works, --sandbox names the package to add', async () => {
    // What a CLI user (or a Lambda user of @kubeplane/handlers/aws) installs: the three packages, nothing optional.
    const cli = join(dir, 'cli-only');
    await mkdir(cli);
    await writeFile(join(cli, 'package.json'), JSON.stringify({ name: 'cli-only', private: true, type: 'module' }));
    const only = tarballs.filter((t) => ['@kubeplane/sdk', '@kubeplane/providers', '@kubeplane/handlers'].includes(t.name));
    await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...only.map((t) => join(dir, t.filename))], {
      cwd: cli,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
    const modules = await readdir(join(cli, 'node_modules'));
    const scoped = async (scope: string) => (modules.includes(scope) ? await readdir(join(cli, 'node_modules', scope)) : []);
    expect(await scoped('@google-cloud')).toEqual([]);
    expect(modules.filter((m) => ['google-auth-library', 'msw', 'graphql'].includes(m))).toEqual([]);
    expect((await scoped('@kubeplane')).sort()).toEqual(['handlers', 'providers', 'sdk']);
    await writeFile(join(cli, 'minimal.yaml'), await readFile(join(root, 'examples', 'minimal.yaml')));
    expect((await exec('npx', ['kubeplane', 'validate', 'minimal.yaml'], { cwd: cli, env: userEnv })).stdout).toContain('minimal.yaml: ok');
    const sandboxed = await exec('npx', ['kubeplane', 'apply', 'minimal.yaml', '--sandbox'], { cwd: cli, env: userEnv }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code ?? -1, stderr: e.stderr ?? '' }),
    );
    expect(sandboxed.code).toBe(1);
    expect(sandboxed.stderr).toContain(`needs @kubeplane/sandbox, which is not installed: npm install @kubeplane/sandbox@${version}`);
    expect(sandboxed.stderr).not.toMatch(/^\s+at /m);
    // The AWS runtime loads with what was installed: a Lambda function needs neither the sandbox nor Google.
    const aws = await exec(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('@kubeplane/handlers/aws'); console.log(typeof m.createStepHandler)"],
      {
        cwd: cli,
        env: { ...userEnv, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
    );
    expect(aws.stdout.trim()).toBe('function');
  }, 660_000);

  it('answer `npx kubeplane --version` and `-V` with the version, exit 0', async () => {
    const app = join(dir, 'app');
    for (const flag of ['--version', '-V']) {
      const r = await exec('npx', ['kubeplane', flag], { cwd: app, env: userEnv });
      expect(r.stdout).toBe(`${version}\n`);
    }
  });

  it('show the Apache-2.0 licence of every @kubeplane package in `npm ls --long`, and carry the metadata a registry page shows', async () => {
    const app = join(dir, 'app');
    const r = await exec('npm', ['ls', '--json', '--long'], { cwd: app, maxBuffer: 64 * 1024 * 1024 });
    const deps = (JSON.parse(r.stdout) as { dependencies: Record<string, { version: string; license?: string }> }).dependencies;
    const listed = Object.entries(deps)
      .filter(([name]) => name.startsWith('@kubeplane/'))
      .map(([name, d]) => [name, d.version, d.license]);
    expect(listed.sort()).toEqual(PACKAGES.map((p) => [`@kubeplane/${p}`, version, 'Apache-2.0']));
    for (const p of PACKAGES) {
      const pkg = JSON.parse(await readFile(join(app, 'node_modules', '@kubeplane', p, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(pkg, p).toMatchObject({
        description: expect.stringMatching(/\S/),
        keywords: expect.arrayContaining(['kubernetes']),
        repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\//), directory: `packages/${p}` },
        homepage: expect.stringMatching(/^https:\/\//),
        bugs: { url: expect.stringMatching(/\/issues$/) },
      });
      expect(await readFile(join(app, 'node_modules', '@kubeplane', p, 'LICENSE'), 'utf8'), p).toBe(await readFile(join(root, 'LICENSE'), 'utf8'));
      expect(await readFile(join(app, 'node_modules', '@kubeplane', p, 'NOTICE'), 'utf8'), p).toBe(await readFile(join(root, 'NOTICE'), 'utf8'));
    }
  });

  it("run the README's TypeScript block as written: it compiles strict against the installed types and prints DONE", async () => {
    const app = join(dir, 'app');
    expect(readmeBlocks.map((b) => b.mode)).toEqual(['run']);
    await compiledEsm();
    const r = await exec(process.execPath, [join(app, 'out', 'readme.js')], {
      cwd: app,
      env: { ...userEnv, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    expect(promises(readmeBlock.code)).toEqual(['DONE']);
    for (const word of promises(readmeBlock.code)) expect(r.stdout, `${readmeBlock.where} promised "${word}"`).toContain(word);
  }, 180_000);

  it('keep the sandbox clouds out of the real providers: no emulator in @kubeplane/providers, no test tooling among its dependencies', async () => {
    const providers = tarballs.find((t) => t.name === '@kubeplane/providers');
    expect(providers?.files.map((f) => f.path).filter((p) => /sandbox|emulator/i.test(p))).toEqual([]);
    const installed = JSON.parse(await readFile(join(dir, 'app', 'node_modules', '@kubeplane', 'providers', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(installed.dependencies).filter((d) => /msw|vitest|fast-check|@kubeplane\/sandbox/.test(d))).toEqual([]);
    // Importing the providers loads no AWS SDK client until an AWS provider makes a call (a Hetzner user never pays
    // for it): with the EC2 client's package moved away, the import still succeeds.
    const app = join(dir, 'app');
    const ec2 = dirname(createRequire(join(app, 'node_modules', '@kubeplane', 'providers', 'package.json')).resolve('@aws-sdk/client-ec2/package.json'));
    await rename(ec2, `${ec2}.away`);
    try {
      const r = await exec(
        process.execPath,
        ['--input-type=module', '-e', "const p = await import('@kubeplane/providers'); console.log(typeof p.AwsProvider)"],
        { cwd: app, env: userEnv },
      );
      expect(r.stdout.trim()).toBe('function');
    } finally {
      await rename(`${ec2}.away`, ec2);
    }
  });

  it('run a TypeScript ESM script: validate, apply on the sandbox, DONE, destroy, nothing left', async () => {
    const app = join(dir, 'app');
    await compiledEsm();
    const r = await exec(process.execPath, [join(app, 'out', 'script.js')], {
      cwd: app,
      env: { ...userEnv, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    expect(JSON.parse(r.stdout.trim().split('\n').pop() ?? '')).toEqual({ state: 'DONE', gone: true, left: 0 });
  }, 180_000);

  it('serve from an ESM node:http service: a manifest POSTed is planned on the real providers without credentials', async () => {
    const app = join(dir, 'app');
    await writeFile(
      join(app, 'service.mjs'),
      `import { createServer } from 'node:http';
import { createKubeplane } from '@kubeplane/handlers';
import { validateManifestText } from '@kubeplane/sdk';

const local = await createKubeplane({ memory: true });
const server = createServer(async (req, res) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  const result = validateManifestText(text);
  if (!result.ok) return res.writeHead(400).end(JSON.stringify(result.errors));
  const planned = await local.kubeplane.plan(result.manifests[0]);
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ operations: planned.ok ? planned.plan.operations.length : -1 }));
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
process.once('SIGTERM', () => server.close(() => local.close()));
`,
    );
    const child = spawn(process.execPath, [join(app, 'service.mjs')], { cwd: app, env: userEnv, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /port (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', () => reject(new Error(`the service ended: ${out}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: await readFile(join(root, 'examples', 'minimal.yaml')) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { operations: number }).operations).toBeGreaterThan(5);
      const bad = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        body: 'apiVersion: kubeplane.dev/v1\nkind: Manifest\nmetadata: {name: Bad_Name}\n',
      });
      expect(bad.status).toBe(400);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 120_000);

  it('load in a CommonJS project compiled with TypeScript defaults for CommonJS (require of ES modules)', async () => {
    const cjs = join(dir, 'app', 'cjs');
    await mkdir(cjs, { recursive: true });
    await writeFile(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-consumer', private: true, type: 'commonjs' }));
    await writeFile(
      join(cjs, 'consumer.ts'),
      `import { validateManifestText } from '@kubeplane/sdk';
import { createKubeplane } from '@kubeplane/handlers';

const result = validateManifestText('apiVersion: kubeplane.dev/v1\\nkind: Manifest\\nmetadata: {name: demo}\\n');
console.log(JSON.stringify({ ok: result.ok, name: result.manifests[0]?.name, createKubeplane: typeof createKubeplane }));
`,
    );
    await compile(cjs, { target: 'ES2022', module: 'commonjs', esModuleInterop: true }, ['consumer.ts']);
    expect(await readFile(join(cjs, 'out', 'consumer.js'), 'utf8')).toContain('require("@kubeplane/sdk")');
    const r = await exec(process.execPath, ['--no-warnings', join(cjs, 'out', 'consumer.js')], { cwd: cjs, env: userEnv });
    expect(JSON.parse(r.stdout.trim())).toEqual({ ok: true, name: 'demo', createKubeplane: 'function' });
  }, 120_000);
});
