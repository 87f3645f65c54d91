// Route tables whose templates also name the wire operations. A REST template is `METHOD /path/{param}`; a query API
// (EC2) routes by its Action, so its templates are bare action names. `{rest*}` matches the remaining segments.
import type { WireCall } from './dialect.js';
import type { RouteAnswer } from './reply.js';

export interface RoutedCall<Body> extends WireCall {
  readonly body: Body;
}

export type RouteHandler<Body> = (call: RoutedCall<Body>) => RouteAnswer | Promise<RouteAnswer>;

export interface RouteOptions {
  /** Served without authentication (the route checks what it needs itself, like Cloudflare's token verification). */
  public?: boolean;
  /** The wire operation's name when the vendor names it otherwise than the template (Route 53: `GET /hostedzone/{id}` is `GetHostedZone`). */
  name?: string;
}

export interface Route<Body> extends RouteOptions {
  /** The template as written. */
  readonly template: string;
  /** The wire operation: the route's `name`, else its template. */
  readonly operation: string;
  readonly handler: RouteHandler<Body>;
}

export interface RouteMatch<Body> {
  readonly route: Route<Body>;
  readonly params: Record<string, string>;
}

type Token = { literal: string } | { param: string } | { rest: string };

interface Compiled<Body> {
  route: Route<Body>;
  tokens: Token[];
  /** Its specificity, computed once. */
  score: number[];
}

/** `GET /servers/{id}` → GET, servers, {id}; `RunInstances` → RunInstances. */
function tokenize(text: string): string[] {
  return text.split(/[ /]+/).filter(Boolean);
}

function compile(template: string): Token[] {
  return tokenize(template).map((t) => {
    const param = /^\{([A-Za-z_][\w-]*)(\*)?\}$/.exec(t);
    if (!param) return { literal: t };
    return param[2] ? { rest: param[1]! } : { param: param[1]! };
  });
}

/** A route's specificity at each segment: a literal beats a parameter, which beats a rest. */
function score(tokens: Token[]): number[] {
  return tokens.map((t) => ('literal' in t ? 2 : 'param' in t ? 1 : 0));
}

export class RouteTable<Body> {
  readonly #routes: Array<Compiled<Body>> = [];
  /** The routes that can match a key of this first token and length (a key's method or action, its segment count). */
  readonly #index = new Map<string, Array<Compiled<Body>>>();
  /** Routes with a `{rest*}` or a parameter first: tried for every key. */
  readonly #loose: Array<Compiled<Body>> = [];

  constructor(routes: Array<[template: string, handler: RouteHandler<Body>, options?: RouteOptions]> = []) {
    for (const [template, handler, options] of routes) this.add(template, handler, options);
  }

  add(template: string, handler: RouteHandler<Body>, options: RouteOptions = {}): this {
    const tokens = compile(template);
    const restAt = tokens.findIndex((t) => 'rest' in t);
    if (restAt !== -1 && restAt !== tokens.length - 1) throw new Error(`route ${template}: a {rest*} parameter must come last`);
    if (this.#routes.some((r) => r.route.template === template)) throw new Error(`route ${template} is defined twice`);
    const compiled = { route: { template, operation: options.name ?? template, handler, ...options }, tokens, score: score(tokens) };
    this.#routes.push(compiled);
    const first = tokens[0];
    if (restAt !== -1 || !first || !('literal' in first)) this.#loose.push(compiled);
    else {
      const key = `${first.literal} ${tokens.length}`;
      const bucket = this.#index.get(key);
      if (bucket) bucket.push(compiled);
      else this.#index.set(key, [compiled]);
    }
    return this;
  }

  /** Every wire operation, in the order the routes were added (for documentation and conformance tables). */
  operations(): string[] {
    return this.#routes.map((r) => r.route.operation);
  }

  /** The most specific route for `key` (`GET /servers/42`, `RunInstances`), with its decoded parameters. */
  match(key: string): RouteMatch<Body> | undefined {
    const parts = tokenize(key);
    const candidates = [...(this.#index.get(`${parts[0]} ${parts.length}`) ?? []), ...this.#loose];
    let best: { match: RouteMatch<Body>; score: number[] } | undefined;
    for (const { route, tokens, score: s } of candidates) {
      const params = matchTokens(tokens, parts);
      if (!params) continue;
      if (!best || compareScores(s, best.score) > 0) best = { match: { route, params }, score: s };
    }
    return best?.match;
  }
}

function matchTokens(tokens: Token[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if ('rest' in token) {
      if (i >= parts.length) return undefined;
      params[token.rest] = parts.slice(i).map(decode).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if ('literal' in token) {
      if (token.literal !== part) return undefined;
    } else params[token.param] = decode(part);
  }
  return tokens.length === parts.length ? params : undefined;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}
