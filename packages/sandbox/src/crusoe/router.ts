// Crusoe's endpoints: most live below /projects/{project_id} and are named without it (`GET /compute/vms/instances`,
// `DELETE /compute/vms/instances/{id}`: what faults and call counts name); a few are the API's own (`GET /locations`).
import { EmulatorError, type Json, type RoutedCall, type RouteHandler, RouteTable, type WireCall } from '../emulator/index.js';
import { notFound } from './dialect.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The `{id}` of a route's path. */
export function idOf(call: Pick<WireCall, 'params'>): string {
  return call.params['id'] ?? '';
}

export class CrusoeRouter {
  readonly routes = new RouteTable<Json>();
  /** What the methods the sandbox does not model answer on a resource it knows (the resource's 404, else a 400). */
  readonly #others = new RouteTable<Json>();

  constructor(readonly projectId: string) {}

  /** An endpoint of the project (`GET /compute/vms/instances/{id}`): served below /projects/<its id>, named without it. */
  project(operation: string, handler: RouteHandler<Json>): void {
    const [method, path] = operation.split(' ');
    this.routes.add(`${method} /projects/${this.projectId}${path}`, handler, { name: operation });
  }

  /** An endpoint outside the projects (`GET /locations`, `POST /users/ssh-keys`). */
  global(operation: string, handler: RouteHandler<Json>): void {
    this.routes.add(operation, handler);
  }

  /** The answer of any other method on `path` (below the project unless `global`): the error `answer` throws or returns. */
  otherMethods(path: string, answer: (call: RoutedCall<Json>) => EmulatorError, options: { global?: boolean } = {}): void {
    this.#others.add(`{method} ${options.global ? '' : `/projects/${this.projectId}`}${path}`, (call) => {
      throw answer(call);
    });
  }

  /** The operation of a request no endpoint matches: its path below the project, every UUID as `{id}`. */
  unroutedOperation(call: Pick<WireCall, 'method' | 'path'>): string {
    return `${call.method} ${call.path.replace(`/projects/${this.projectId}`, '').replace(UUID, '{id}')}`;
  }

  /** The error for a request no endpoint matches: another project's 403, a method not modelled, else 404. */
  unknown(call: WireCall): EmulatorError {
    const parts = call.path.split('/').filter(Boolean);
    if (parts[0] === 'projects' && parts.length >= 3 && parts[1] !== this.projectId)
      return new EmulatorError(403, 'unauthorized', `no access to project ${parts[1]}`);
    const other = this.#others.match(`${call.method} ${call.path}`);
    if (other) {
      try {
        void other.route.handler({ ...call, params: other.params, body: {} });
      } catch (e) {
        if (e instanceof EmulatorError) return e;
        throw e;
      }
    }
    return notFound(`${call.method} ${call.path} is not an endpoint of this API`);
  }
}
