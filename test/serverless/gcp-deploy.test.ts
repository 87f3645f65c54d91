// The Terraform deploy example (@kubeplane/gcp-terraform, packages/gcp-terraform/*.tf), checked offline: parsed with hcl2json (HashiCorp's HCL parser,
// compiled to wasm) and its expressions evaluated for the subset it uses, with the variables' defaults. It keeps the
// rules: the queue has retry limits and the step handler's last attempt is the queue's (the dead-letter path Cloud
// Tasks lacks), every function's timeout fits the task dispatch deadline, no identity holds a primitive role, the API
// is never public, the scheduler calls the watchdog with OIDC, and every function's environment is the contract's.
// Each rule is also run against a broken copy of the text, so none of them can pass by accident.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleGcpFunctions } from '../../packages/gcp-terraform/scripts/bundle.js';

// Loaded untyped: its declarations pull in the DOM lib (`/// <reference lib="dom" />`), whose fetch types then clash
// with Node's across the whole type check.
const { parse } = createRequire(import.meta.url)('@cdktf/hcl2json') as { parse: (file: string, text: string) => Promise<unknown> };
const dir = join(import.meta.dirname, '..', '..', 'packages', 'gcp-terraform');
const sources = Object.fromEntries(
  readdirSync(dir)
    .filter((f) => f.endsWith('.tf'))
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
);

// ---- a Terraform configuration as hcl2json gives it, and an evaluator for the expressions it uses ----------------

type Body = Record<string, unknown>;
interface Config {
  resources: Record<string, Record<string, Body>>;
  variables: Record<string, Body>;
  locals: Record<string, unknown>;
}

/** A value known only after apply (a resource's computed attribute): kept as the reference it is. */
class Ref {
  constructor(readonly path: string) {}
  toString(): string {
    return `<${this.path}>`;
  }
}
type Value = string | number | boolean | null | Ref | Value[] | { [k: string]: Value };

async function load(files: Record<string, string>): Promise<Config> {
  const config: Config = { resources: {}, variables: {}, locals: {} };
  for (const [name, text] of Object.entries(files)) {
    const json = (await parse(name, text)) as { resource?: Record<string, Record<string, Body[]>>; variable?: Record<string, Body[]>; locals?: Body[] };
    for (const [type, byName] of Object.entries(json.resource ?? {})) {
      for (const [id, [body]] of Object.entries(byName)) (config.resources[type] ??= {})[id] = body ?? {};
    }
    for (const [id, [body]] of Object.entries(json.variable ?? {})) config.variables[id] = body ?? {};
    for (const block of json.locals ?? []) Object.assign(config.locals, block);
  }
  return config;
}

/** The first block of a nested block list (hcl2json gives every block as a list). */
const block = (body: unknown, name: string): Body | undefined => ((body as Body | undefined)?.[name] as Body[] | undefined)?.[0];

/**
 * Evaluates a value of the configuration: "${…}" expressions of references (var., local., each., resources'
 * attributes), numbers, strings, + - <= == != && ! ?:, and the functions tostring, min, max, merge, toset.
 * A resource attribute written in the configuration (a queue's name) resolves to it; a computed one stays a Ref.
 */
function evaluator(config: Config, vars: Record<string, Value> = {}, each?: Value) {
  const value = (v: unknown): Value => {
    if (typeof v === 'string') return interpolate(v);
    if (Array.isArray(v)) return v.map(value);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x)]));
    return v as Value;
  };
  const interpolate = (s: string): Value => {
    const whole = /^\$\{([\s\S]*)\}$/.exec(s);
    if (whole && !whole[1]?.includes('${')) return expression(whole[1] ?? '');
    return s.replace(/\$\{([^}]*)\}/g, (_, e: string) => String(expression(e)));
  };
  const reference = (path: string): Value => {
    const [head, name, ...rest] = path.split('.');
    if (head === 'var') {
      if (name !== undefined && name in vars) return vars[name] ?? null;
      const variable = config.variables[name ?? ''];
      if (!variable) throw new Error(`no variable ${name}`);
      if (!('default' in variable)) throw new Error(`variable ${name} has no default; give it`);
      return value(variable['default']);
    }
    if (head === 'local') {
      if (!(name !== undefined && name in config.locals)) throw new Error(`no local ${name}`);
      return rest.reduce<Value>((o, k) => (o as Record<string, Value>)[k] ?? null, value(config.locals[name]));
    }
    if (head === 'each') return name === 'value' ? (each ?? null) : null;
    const body = config.resources[head ?? '']?.[name ?? ''];
    const attribute = rest[0];
    if (body && rest.length === 1 && attribute && typeof body[attribute] === 'string') return value(body[attribute]);
    return new Ref(path);
  };

  function expression(text: string): Value {
    const tokens = text.match(/"(?:[^"\\]|\\.)*"|[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[\d+\])*|\d+(?:\.\d+)?|==|!=|<=|>=|&&|\|\||[-+!?:(),<>{}=[\]]/g) ?? [];
    let i = 0;
    const peek = () => tokens[i];
    const take = (expected?: string) => {
      const t = tokens[i++];
      if (expected !== undefined && t !== expected) throw new Error(`expected ${expected} in ${text}, found ${t}`);
      return t ?? '';
    };
    const primary = (): Value => {
      const t = take();
      if (t === '(') {
        const v = ternary();
        take(')');
        return v;
      }
      if (t === '!') return !truthy(primary());
      if (t === '-') return -Number(primary());
      if (/^\d/.test(t)) return Number(t);
      if (t.startsWith('"')) return interpolate(JSON.parse(t) as string);
      if (t === 'true' || t === 'false') return t === 'true';
      if (t === '[') {
        const list: Value[] = [];
        while (peek() !== ']') {
          list.push(ternary());
          if (peek() === ',') take();
        }
        take(']');
        return list;
      }
      if (t === '{') {
        const o: Record<string, Value> = {};
        while (peek() !== '}') {
          const key = take();
          take('=');
          o[key.startsWith('"') ? (JSON.parse(key) as string) : key] = ternary();
          if (peek() === ',') take();
        }
        take('}');
        return o;
      }
      if (peek() === '(') {
        take('(');
        const args: Value[] = [];
        while (peek() !== ')') {
          args.push(ternary());
          if (peek() === ',') take();
        }
        take(')');
        return call(t, args);
      }
      return reference(t.replace(/\[(\d+)\]/g, '.$1'));
    };
    const sum = (): Value => {
      let v = primary();
      while (peek() === '+' || peek() === '-') v = take() === '+' ? Number(v) + Number(primary()) : Number(v) - Number(primary());
      return v;
    };
    const comparison = (): Value => {
      const a = sum();
      const op = peek();
      if (op === '<=' || op === '>=' || op === '<' || op === '>' || op === '==' || op === '!=') {
        take();
        const b = sum();
        if (op === '==' || op === '!=') return (JSON.stringify(a) === JSON.stringify(b)) === (op === '==');
        const [x, y] = [Number(a), Number(b)];
        return op === '<=' ? x <= y : op === '>=' ? x >= y : op === '<' ? x < y : x > y;
      }
      return a;
    };
    const and = (): Value => {
      let v = comparison();
      while (peek() === '&&') {
        take();
        const w = comparison();
        v = truthy(v) && truthy(w);
      }
      return v;
    };
    const ternary = (): Value => {
      const c = and();
      if (peek() !== '?') return c;
      take('?');
      const a = ternary();
      take(':');
      const b = ternary();
      return truthy(c) ? a : b;
    };
    const v = ternary();
    if (i !== tokens.length) throw new Error(`cannot evaluate ${text} (stopped at ${peek()})`);
    return v;
  }
  return { value, expression };
}

const truthy = (v: Value): boolean => v === true;
function call(fn: string, args: Value[]): Value {
  switch (fn) {
    case 'tostring':
      return String(args[0]);
    case 'min':
      return Math.min(...args.map(Number));
    case 'max':
      return Math.max(...args.map(Number));
    case 'merge':
      return Object.assign({}, ...(args as object[])) as Value;
    case 'toset':
      return [...new Set((args[0] as Value[]).map((v) => JSON.stringify(v instanceof Ref ? v.toString() : v)))].map((v) => JSON.parse(v) as Value);
    default:
      throw new Error(`the test's evaluator has no ${fn}()`);
  }
}

// ---- what the configuration declares, resolved --------------------------------------------------------------------

const PROJECT = 'kp-test-123';

function deployment(config: Config, vars: Record<string, Value> = {}) {
  const ev = evaluator(config, { project: PROJECT, ...vars });
  const resources = (type: string) => Object.entries(config.resources[type] ?? {});
  const functions = Object.fromEntries(
    resources('google_cloudfunctions2_function').map(([id, body]) => {
      const service = block(body, 'service_config');
      const build = block(body, 'build_config');
      return [
        id,
        {
          timeout: Number(ev.value(service?.['timeout_seconds'])),
          env: ev.value(service?.['environment_variables']) as Record<string, Value>,
          entryPoint: ev.value(build?.['entry_point']),
          runtime: ev.value(build?.['runtime']),
          name: ev.value(body['name']),
          serviceAccount: ev.value(service?.['service_account_email']),
          preconditions: ((body['lifecycle'] as Body[] | undefined) ?? [])
            .flatMap((l) => (l['precondition'] as Body[] | undefined) ?? [])
            .map((p) => ev.value(p['condition'])),
        },
      ];
    }),
  );
  /** Every grant of a role to a member, whatever the resource: each *_iam_member, each member of each *_iam_binding, for_each expanded. */
  const grants = Object.entries(config.resources)
    .filter(([type]) => /^google_.*_iam_(member|binding|policy)$/.test(type))
    .flatMap(([type, byId]) =>
      Object.entries(byId).flatMap(([id, body]) => {
        if (type.endsWith('_policy'))
          return [{ type, id, role: 'policy', member: 'authoritative policy', resource: null as Value, condition: undefined as Value | undefined }];
        const forEach =
          body['for_each'] === undefined
            ? [undefined]
            : ((v) => (Array.isArray(v) ? v : Object.values(v as Record<string, Value>)))(ev.value(body['for_each']));
        return forEach.flatMap((each) => {
          const e = evaluator(config, { project: PROJECT, ...vars }, each);
          const members = type.endsWith('_binding') ? (e.value(body['members']) as Value[]) : [e.value(body['member'])];
          const condition = block(body, 'condition');
          return members.map((member) => ({
            type,
            id,
            role: String(e.value(body['role'])),
            member,
            resource: e.value(body['name'] ?? body['service_account_id'] ?? body['project'] ?? null),
            condition: condition ? e.value(condition['expression']) : undefined,
          }));
        });
      }),
    );
  return { ev, resources, functions, grants };
}

let config: Config;
beforeAll(async () => {
  config = await load(sources);
});

/** The configuration with one file's text changed: the rule under test must fail on it. */
async function broken(file: string, change: (text: string) => string): Promise<Config> {
  const text = sources[file];
  if (text === undefined) throw new Error(`no ${file}`);
  const changed = change(text);
  if (changed === text) throw new Error(`the change to ${file} changed nothing`);
  return load({ ...sources, [file]: changed });
}

// ---- the rules, each a function of a configuration, so the broken copies run the same code ------------------------

function queueRetryLimits(c: Config): void {
  const { ev, resources } = deployment(c);
  const queues = resources('google_cloud_tasks_queue');
  expect(queues.length).toBeGreaterThan(0);
  for (const [id, q] of queues) {
    const retry = ev.value(block(q, 'retry_config') ?? null) as Record<string, Value> | null;
    expect(retry, `${id}: retry_config`).not.toBeNull();
    // -1 is "unlimited" to Cloud Tasks: a poison task would be retried forever and never reach the dead-letter path.
    expect(Number(retry?.['max_attempts']), `${id}: max_attempts`).toBeGreaterThan(0);
    expect(String(retry?.['min_backoff']), `${id}: min_backoff`).toMatch(/^\d+(\.\d+)?s$/);
    expect(String(retry?.['max_backoff']), `${id}: max_backoff`).toMatch(/^\d+(\.\d+)?s$/);
    expect(parseFloat(String(retry?.['max_backoff']))).toBeGreaterThanOrEqual(parseFloat(String(retry?.['min_backoff'])));
    expect(Number(retry?.['max_doublings']), `${id}: max_doublings`).toBeGreaterThanOrEqual(0);
    expect(block(q, 'rate_limits'), `${id}: rate_limits`).toBeDefined();
  }
}

function deadLetterPath(c: Config): void {
  const { ev, resources, functions } = deployment(c);
  const [[, queue] = []] = resources('google_cloud_tasks_queue');
  const maxAttempts = (ev.value(block(queue, 'retry_config') ?? null) as Record<string, Value>)['max_attempts'];
  // The step handler's last attempt (X-CloudTasks-TaskRetryCount + 1 == KUBEPLANE_MAX_ATTEMPTS) is the queue's last:
  // it records the pending dead letter and marks the cluster; any other number, and Cloud Tasks drops the task unmarked.
  for (const [id, f] of Object.entries(functions)) expect(f.env['KUBEPLANE_MAX_ATTEMPTS'], `${id}: KUBEPLANE_MAX_ATTEMPTS`).toBe(String(maxAttempts));
  // Dead letters go to <prefix>-dead-letters in the database every function uses.
  const database = ev.value(resources('google_firestore_database')[0]?.[1]['name']);
  for (const [id, f] of Object.entries(functions)) {
    expect(f.env['KUBEPLANE_FIRESTORE_DATABASE'], id).toBe(database);
    expect(String(f.env['KUBEPLANE_COLLECTION_PREFIX']), id).toMatch(/^[a-z][a-z0-9-]*$/);
  }
  // And the watchdog, which marks clusters whose last attempt crashed or timed out, runs on a schedule.
  const jobs = resources('google_cloud_scheduler_job').map(([, j]) => ev.value(block(j, 'http_target')?.['uri']));
  expect(jobs.map(String)).toContain('<google_cloudfunctions2_function.watchdog.url>');
}

function timeoutsFitTheDeadline(c: Config, vars: Record<string, Value> = {}): void {
  const { functions } = deployment(c, vars);
  const step = functions['step'];
  expect(step).toBeDefined();
  const deadline = Number(step?.env['KUBEPLANE_TASK_DEADLINE_SECONDS']);
  // Cloud Tasks' dispatch deadline for HTTP targets is 15 s to 30 min.
  expect(deadline).toBeGreaterThanOrEqual(15);
  expect(deadline).toBeLessThanOrEqual(1800);
  for (const [id, f] of Object.entries(functions)) {
    expect(f.env['KUBEPLANE_TASK_DEADLINE_SECONDS'], id).toBe(String(deadline));
    expect(f.timeout, `${id}: timeout_seconds`).toBeGreaterThan(0);
    expect(f.timeout, `${id}: timeout ${f.timeout} s fits the ${deadline} s dispatch deadline`).toBeLessThanOrEqual(deadline);
  }
  // The lease outlasts a step.
  expect(Number(step?.env['KUBEPLANE_LEASE_SECONDS'])).toBeGreaterThan(step?.timeout ?? Infinity);
}

const PRIMITIVE = new Set(['roles/owner', 'roles/editor', 'roles/viewer']);
function noPrimitiveRole(c: Config): void {
  const { grants } = deployment(c);
  expect(grants.length).toBeGreaterThan(5);
  expect(
    grants.filter((g) => g.type.endsWith('_policy')),
    "an authoritative IAM policy would replace the project's",
  ).toEqual([]);
  expect(grants.filter((g) => PRIMITIVE.has(g.role)).map((g) => `${g.type}.${g.id}: ${g.role} to ${String(g.member)}`)).toEqual([]);
}

function apiNotPublic(c: Config, vars: Record<string, Value> = {}): void {
  const { grants, ev } = deployment(c, vars);
  const publicGrants = grants.filter((g) => g.member === 'allUsers' || g.member === 'allAuthenticatedUsers');
  expect(publicGrants.map((g) => `${g.type}.${g.id}`)).toEqual([]);
  // The API's invokers come from a variable that refuses both.
  const validation = block(c.variables['api_invokers'], 'validation');
  expect(String(validation?.['condition'])).toMatch(/allUsers.*allAuthenticatedUsers/);
  const apiAuth = ev.expression('var.api_auth');
  expect(['iam', 'id-token']).toContain(apiAuth);
}

function schedulerUsesOidc(c: Config): void {
  const { ev, resources, grants } = deployment(c);
  const jobs = resources('google_cloud_scheduler_job');
  expect(jobs).toHaveLength(1);
  for (const [id, job] of jobs) {
    const target = block(job, 'http_target');
    const oidc = ev.value(block(target, 'oidc_token') ?? null) as Record<string, Value> | null;
    expect(oidc, `${id}: oidc_token`).not.toBeNull();
    expect(String(oidc?.['service_account_email'])).toBe('<google_service_account.scheduler.email>');
    expect(String(oidc?.['audience'])).toBe(String(ev.value(target?.['uri'])));
    expect(ev.value(job['schedule'])).toBe('*/5 * * * *');
  }
  // The scheduler identity holds one role: run.invoker on the watchdog's service.
  expect(grants.filter((g) => String(g.member) === '<google_service_account.scheduler.member>').map((g) => [g.role, String(g.resource)])).toEqual([
    ['roles/run.invoker', '<google_cloudfunctions2_function.watchdog.service_config.0.service>'],
  ]);
}

/** The contract's table (/work/notes/s12-contracts.md, gcpRuntimeFromEnv): what every function gets, and the API alone. */
const COMMON_ENV = [
  'GOOGLE_CLOUD_PROJECT',
  'KUBEPLANE_LOCATION',
  'KUBEPLANE_TASKS_QUEUE',
  'KUBEPLANE_STEP_URL',
  'KUBEPLANE_TASKS_SERVICE_ACCOUNT',
  'KUBEPLANE_MAX_ATTEMPTS',
  'KUBEPLANE_TASK_DEADLINE_SECONDS',
  'KUBEPLANE_FIRESTORE_DATABASE',
  'KUBEPLANE_COLLECTION_PREFIX',
  'KUBEPLANE_SECRET_PREFIX',
  'KUBEPLANE_PROVIDER_SECRET_PREFIX',
  'KUBEPLANE_LEASE_SECONDS',
];
const API_ENV = ['KUBEPLANE_ACCESS', 'KUBEPLANE_API_AUTH', 'KUBEPLANE_API_AUDIENCE'];
function environmentIsTheContract(c: Config): void {
  const { ev, resources, functions, grants } = deployment(c);
  expect(Object.keys(functions).sort()).toEqual(['api', 'step', 'watchdog']);
  const [[, queue] = []] = resources('google_cloud_tasks_queue');
  const region = ev.expression('var.region');
  for (const [id, f] of Object.entries(functions)) {
    expect(Object.keys(f.env).sort(), id).toEqual((id === 'api' ? [...COMMON_ENV, ...API_ENV] : COMMON_ENV).sort());
    expect(f.env['GOOGLE_CLOUD_PROJECT'], id).toBe(PROJECT);
    expect(f.env['KUBEPLANE_TASKS_QUEUE'], id).toBe(ev.value(queue?.['name']));
    expect(f.env['KUBEPLANE_LOCATION'], id).toBe(ev.value(queue?.['location']));
    // The step function's URL as Cloud Functions gives a gen2 function (https://<region>-<project>.cloudfunctions.net/<name>).
    expect(f.env['KUBEPLANE_STEP_URL'], id).toBe(`https://${String(region)}-${PROJECT}.cloudfunctions.net/${String(functions['step']?.name)}`);
    expect(String(f.env['KUBEPLANE_TASKS_SERVICE_ACCOUNT']), id).toBe('<google_service_account.tasks.email>');
    expect(f.runtime, id).toBe('nodejs22');
    expect(String(f.serviceAccount), id).toBe(`<google_service_account.${id}.email>`);
  }
  expect(Object.fromEntries(Object.entries(functions).map(([id, f]) => [id, f.entryPoint]))).toEqual({
    step: 'kubeplaneStep',
    api: 'kubeplaneApi',
    watchdog: 'kubeplaneWatchdog',
  });
  expect(functions['api']?.env['KUBEPLANE_API_AUTH']).toBe('iam');
  expect(functions['api']?.env['KUBEPLANE_API_AUDIENCE']).toBe(`https://${String(region)}-${PROJECT}.cloudfunctions.net/${String(functions['api']?.name)}`);
  // The identity tasks carry may invoke the step function, and only it.
  expect(grants.filter((g) => String(g.member) === '<google_service_account.tasks.member>').map((g) => [g.role, String(g.resource)])).toEqual([
    ['roles/run.invoker', '<google_cloudfunctions2_function.step.service_config.0.service>'],
  ]);
}

describe('the Google Cloud deploy module (@kubeplane/gcp-terraform, offline)', () => {
  it('pins the google provider to ~> 6', () => {
    expect(sources['versions.tf']).toMatch(/google\s*=\s*\{\s*source\s*=\s*"hashicorp\/google"\s*version\s*=\s*"~> 6\.0"/);
  });

  it('gives every Cloud Tasks queue finite retry limits with backoffs, and rate limits', async () => {
    queueRetryLimits(config);
    await expect(broken('main.tf', (t) => t.replace(/\n {2}retry_config \{[\s\S]*?\n {2}\}\n/, '\n'))).resolves.toSatisfy((c: Config) =>
      fails(() => queueRetryLimits(c)),
    );
    await expect(broken('main.tf', (t) => t.replace('max_attempts = var.max_attempts', 'max_attempts = -1'))).resolves.toSatisfy((c: Config) =>
      fails(() => queueRetryLimits(c)),
    );
  });

  it("has a dead-letter path: the step handler's last attempt is the queue's, dead letters in the database every function uses, the watchdog on a schedule", async () => {
    deadLetterPath(config);
    await expect(broken('main.tf', (t) => t.replace('max_attempts = var.max_attempts', 'max_attempts = 7'))).resolves.toSatisfy((c: Config) =>
      fails(() => deadLetterPath(c)),
    );
    await expect(
      broken('functions.tf', (t) => t.replace('KUBEPLANE_MAX_ATTEMPTS           = tostring(var.max_attempts)', 'KUBEPLANE_MAX_ATTEMPTS           = "3"')),
    ).resolves.toSatisfy((c: Config) => fails(() => deadLetterPath(c)));
  });

  it("keeps every function's timeout within the task dispatch deadline (at most 30 min), and the lease past the step", async () => {
    timeoutsFitTheDeadline(config);
    timeoutsFitTheDeadline(config, { task_deadline_seconds: 1800, step_timeout_seconds: 1700 });
    await expect(
      broken('functions.tf', (t) => t.replace('timeout_seconds                  = var.step_timeout_seconds', 'timeout_seconds                  = 900')),
    ).resolves.toSatisfy((c: Config) => fails(() => timeoutsFitTheDeadline(c)));
    await expect(
      broken('main.tf', (t) => t.replace('watchdog_timeout_seconds = min(120, var.task_deadline_seconds)', 'watchdog_timeout_seconds = 300')),
    ).resolves.toSatisfy((c: Config) => fails(() => timeoutsFitTheDeadline(c)));
    // A step timeout past the deadline, given as variables, is refused by the step function's precondition.
    const { functions } = deployment(config, { step_timeout_seconds: 600 });
    expect(functions['step']?.preconditions).toEqual([false]);
    expect(deployment(config).functions['step']?.preconditions).toEqual([true]);
  });

  it('grants no primitive role (owner, editor, viewer) to anyone, through any IAM resource', async () => {
    noPrimitiveRole(config);
    await expect(broken('iam.tf', (t) => t.replace('"roles/storage.objectViewer"]', '"roles/storage.objectViewer", "roles/editor"]'))).resolves.toSatisfy(
      (c: Config) => fails(() => noPrimitiveRole(c)),
    );
    await expect(
      broken(
        'iam.tf',
        (t) =>
          `${t}\nresource "google_project_iam_binding" "ops" {\n  project = var.project\n  role    = "roles/owner"\n  members = [google_service_account.step.member]\n}\n`,
      ),
    ).resolves.toSatisfy((c: Config) => fails(() => noPrimitiveRole(c)));
  });

  it('scopes each grant to the narrowest resource: the queue, the one service, the tasks identity; Firestore and Secret Manager by condition', () => {
    const { grants } = deployment(config);
    const byRole = (role: string) => grants.filter((g) => g.role === role);
    expect(byRole('roles/cloudtasks.enqueuer').map((g) => [g.type, String(g.resource)])).toEqual(
      Array(3).fill(['google_cloud_tasks_queue_iam_member', 'kubeplane-steps']),
    );
    expect(byRole('roles/iam.serviceAccountUser').map((g) => [g.type, String(g.resource)])).toEqual(
      Array(3).fill(['google_service_account_iam_member', '<google_service_account.tasks.name>']),
    );
    expect(new Set(byRole('roles/run.invoker').map((g) => g.type))).toEqual(new Set(['google_cloud_run_v2_service_iam_member']));
    for (const g of byRole('roles/datastore.user')) expect(g.condition).toBe(`resource.name == "projects/${PROJECT}/databases/kubeplane"`);
    const secretGrants = grants.filter((g) => g.role.includes('secretmanager') || g.role.includes('cluster_secrets'));
    expect(secretGrants.map((g) => String(g.member))).toEqual(['<google_service_account.step.member>', '<google_service_account.step.member>']);
    for (const g of secretGrants)
      expect(String(g.condition)).toMatch(/^resource\.name\.startsWith\("projects\/<data\.google_project\.this\.number>\/secrets\/kubeplane-/);
    // The cluster secrets' prefix is a prefix of the providers': the condition excludes the providers' explicitly.
    expect(String(secretGrants.find((g) => !g.role.startsWith('roles/'))?.condition)).toContain(
      '&& !resource.name.startsWith("projects/<data.google_project.this.number>/secrets/kubeplane-providers-")',
    );
    // The custom role is what SecretManagerStore calls: no IAM policy changes, no listing (unscopable by name).
    const custom = deployment(config)
      .resources('google_project_iam_custom_role')
      .flatMap(([, r]) => r['permissions'] as string[]);
    expect(custom.length).toBeGreaterThan(0);
    expect(custom.filter((p) => /IamPolicy|secrets\.list$|\*/.test(p))).toEqual([]);
    // The API and the watchdog touch no secret at all.
    expect(grants.filter((g) => /api|watchdog/.test(String(g.member)) && g.role.includes('secret'))).toEqual([]);
  });

  it('never lets the API be invoked by allUsers or allAuthenticatedUsers', async () => {
    apiNotPublic(config);
    apiNotPublic(config, { api_invokers: ['group:platform@example.com'] });
    await expect(
      broken(
        'iam.tf',
        (t) =>
          `${t}\nresource "google_cloudfunctions2_function_iam_member" "public" {\n  cloud_function = google_cloudfunctions2_function.api.name\n  role           = "roles/cloudfunctions.invoker"\n  member         = "allUsers"\n}\n`,
      ),
    ).resolves.toSatisfy((c: Config) => fails(() => apiNotPublic(c)));
    // Through the variable: the for_each over api_invokers would grant it, which is why the variable refuses it.
    expect(fails(() => apiNotPublic(config, { api_invokers: ['allAuthenticatedUsers'] }))).toBe(true);
  });

  it('calls the watchdog every 5 minutes with an OIDC token of the scheduler identity, which may invoke nothing else', async () => {
    schedulerUsesOidc(config);
    await expect(broken('functions.tf', (t) => t.replace('oidc_token {', 'oauth_token {'))).resolves.toSatisfy((c: Config) =>
      fails(() => schedulerUsesOidc(c)),
    );
    await expect(
      broken('functions.tf', (t) =>
        t.replace('service_account_email = google_service_account.scheduler.email', 'service_account_email = google_service_account.watchdog.email'),
      ),
    ).resolves.toSatisfy((c: Config) => fails(() => schedulerUsesOidc(c)));
  });

  it("sets exactly the contract's environment on each function, the access grants on the API alone", async () => {
    environmentIsTheContract(config);
    await expect(
      broken('functions.tf', (t) =>
        t.replace(
          'environment_variables            = local.environment\n    ingress_settings                 = "ALLOW_ALL"',
          'environment_variables            = merge(local.environment, local.api_only_environment)\n    ingress_settings                 = "ALLOW_ALL"',
        ),
      ),
    ).resolves.toSatisfy((c: Config) => fails(() => environmentIsTheContract(c)));
    await expect(
      broken('functions.tf', (t) => t.replace('KUBEPLANE_TASKS_QUEUE            = local.queue', 'KUBEPLANE_TASKS_QUEUE            = "steps"')),
    ).resolves.toSatisfy((c: Config) => fails(() => environmentIsTheContract(c)));
  });

  it('protects the Firestore database from deletion and keeps point-in-time recovery on', () => {
    const [[, db] = []] = deployment(config).resources('google_firestore_database');
    expect(db?.['delete_protection_state']).toBe('DELETE_PROTECTION_ENABLED');
    expect(db?.['point_in_time_recovery_enablement']).toBe('POINT_IN_TIME_RECOVERY_ENABLED');
  });
});

describe('the Cloud Functions bundle (packages/gcp-terraform/scripts/bundle.ts)', () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'kubeplane-gcp-bundle-'));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('writes index.js and a package.json naming functions-framework 5.0.5 and the clients at the tested versions', async () => {
    const bundle = await bundleGcpFunctions(join(out, 'functions'));
    expect(bundle.bytes).toBeGreaterThan(0);
    const manifest = JSON.parse(readFileSync(join(out, 'functions', 'package.json'), 'utf8')) as {
      main: string;
      type: string;
      dependencies: Record<string, string>;
    };
    expect(manifest).toMatchObject({ main: 'index.js', type: 'module' });
    expect(manifest.dependencies['@google-cloud/functions-framework']).toBe('5.0.5');
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@google-cloud/firestore',
      '@google-cloud/functions-framework',
      '@google-cloud/secret-manager',
      '@google-cloud/tasks',
      'google-auth-library',
    ]);
    // The framework is imported, not bundled: the runtime's instance is the one the functions register with.
    const code = readFileSync(join(out, 'functions', 'index.js'), 'utf8');
    expect(code).toMatch(/from"@google-cloud\/functions-framework"/);
    // The three entry points functions.tf names are registered by the bundled module (packages/handlers/src/gcp/functions.ts).
    for (const name of ['kubeplaneStep', 'kubeplaneApi', 'kubeplaneWatchdog']) expect(code, name).toContain(`"${name}"`);
    // No emulator rides along: the sandbox stays out of the function.
    expect(code).not.toMatch(/\bmsw\b/);
    process.stdout.write(`Cloud Functions bundle (minified, clients installed by Cloud Build): ${(bundle.bytes / 1024 / 1024).toFixed(2)} MB\n`);
  }, 120_000);
});

/** Whether a rule fails on a configuration by one of its assertions (not by the evaluator giving up on it). */
function fails(rule: () => void): boolean {
  try {
    rule();
    return false;
  } catch (e) {
    if (e instanceof Error && e.name === 'AssertionError') return true;
    throw e;
  }
}
