// A served sandbox for tests that drive it with real clients: a state directory with clusters applied by
// `kubeplane apply --sandbox`, and `kubeplane sandbox serve` running on it as its own process on ephemeral loopback
// ports. Each test file starts its own (they run in parallel forks).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_CREDENTIALS, CONFORMANCE_DIR_ENV, type ServedFile } from '@kubeplane/sandbox';
import { runCli } from '../../../../../../test/helpers/cli.js';

export const repositoryRoot = join(import.meta.dirname, '..', '..', '..', '..', '..', '..');
const tsx = join(repositoryRoot, 'node_modules', '.bin', 'tsx');
const entry = join(import.meta.dirname, 'cli-process.ts');

export interface ServedWorldOptions {
  /** Manifests applied (in order) before the server starts, relative to the repository root. */
  manifests: string[];
  /** Run on the state directory before the manifests are applied (applies of its own, with other options). */
  prepare?: (stateDir: string) => Promise<void>;
  /** Virtual seconds per real second while the server runs (10 by default). */
  speed?: number;
  /** More arguments of each apply (`--aws-opt-in-regions eu-central-2` for a manifest with a pool in Zurich). */
  applyArgs?: string[];
}

/** The run's response-conformance directory (test/setup/openapi-conformance.global.ts), for the served sandbox too. */
function conformanceEnv(): NodeJS.ProcessEnv {
  const dir = process.env[CONFORMANCE_DIR_ENV];
  return dir ? { [CONFORMANCE_DIR_ENV]: dir } : {};
}

export class ServedWorld {
  readonly dir: string;
  served!: ServedFile;
  #child: ChildProcess | undefined;
  output = '';

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** Applies the manifests and starts `kubeplane sandbox serve`; resolves once it prints that it is ready. */
  static async start(options: ServedWorldOptions): Promise<ServedWorld> {
    const world = new ServedWorld(await mkdtemp(join(tmpdir(), 'kubeplane-serve-')));
    await options.prepare?.(world.dir);
    for (const manifest of options.manifests) {
      const applied = await runCli(['apply', manifest, '--sandbox', '--state-dir', world.dir, ...(options.applyArgs ?? [])], { cwd: repositoryRoot });
      if (applied.code !== 0) throw new Error(`apply ${manifest} failed:\n${applied.stderr}${applied.stdout}`);
    }
    await world.serve(options.speed ?? 10);
    return world;
  }

  async serve(speed: number): Promise<void> {
    const child = spawn(
      tsx,
      ['--conditions=@kubeplane/source', entry, 'sandbox', 'serve', '--state-dir', this.dir, '--port-base', '0', '--speed', String(speed)],
      {
        cwd: repositoryRoot,
        env: { PATH: process.env.PATH ?? '', HOME: this.dir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...conformanceEnv() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.#child = child;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kubeplane sandbox serve did not get ready in 60 s:\n${this.output}`)), 60_000);
      const onData = (chunk: Buffer) => {
        this.output += chunk.toString('utf8');
        if (this.output.includes('[sandbox] ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`kubeplane sandbox serve exited (${String(code)}) before it was ready:\n${this.output}`));
      });
    });
    this.served = JSON.parse(await readFile(join(this.dir, 'sandbox', 'served.json'), 'utf8')) as ServedFile;
  }

  /** Stops the server with `signal`; its exit code (SIGKILL after 30 s without one). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000).unref());
    const result = await Promise.race([exited, timeout]);
    if (result === 'timeout') {
      child.kill('SIGKILL');
      throw new Error(`kubeplane sandbox serve did not stop on ${signal} in 30 s`);
    }
    return result;
  }

  /** Stops the server and removes the state directory. */
  async dispose(): Promise<void> {
    await this.stop('SIGTERM').catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  /** The environment the AWS CLI (and boto3) need for the served EC2 and Route 53: the sandbox's keys, no config files. */
  awsEnv(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH ?? '',
      HOME: this.dir,
      AWS_CONFIG_FILE: join(this.dir, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(this.dir, 'no-aws-credentials'),
      AWS_ACCESS_KEY_ID: SANDBOX_CREDENTIALS.awsAccessKeyId,
      AWS_SECRET_ACCESS_KEY: SANDBOX_CREDENTIALS.awsSecretAccessKey,
      AWS_DEFAULT_REGION: 'eu-central-1',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_PAGER: '',
    };
  }

  /** Writes the served kubeconfig of `cluster` (a name, or a CMK cluster's id) to a file and returns its path. */
  async kubeconfigFile(cluster: string): Promise<string> {
    const run = await runCli(['kubeconfig', cluster, '--sandbox', '--served', '--state-dir', this.dir], { cwd: repositoryRoot });
    if (run.code !== 0) throw new Error(`kubeconfig ${cluster}: ${run.stderr}`);
    const file = join(this.dir, `${cluster}.kubeconfig`);
    await writeFile(file, run.stdout, { mode: 0o600 });
    return file;
  }

  servedCluster(name: string): ServedFile['clusters'][number] {
    const c = this.served.clusters.find((x) => x.name === name);
    if (!c) throw new Error(`${name} is not served: ${JSON.stringify(this.served.clusters.map((x) => x.name))}`);
    return c;
  }
}
