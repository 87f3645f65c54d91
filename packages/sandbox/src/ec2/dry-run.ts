// EC2's `DryRun` parameter: "Checks whether you have the required permissions for the action, without actually making
// the request, and provides an error response. If you have the required permissions, the error response is
// DryRunOperation. Otherwise, it is UnauthorizedOperation" (every action's reference, e.g. API_RunInstances.html). EC2
// also checks the request as it would check it for real, so a dry run of a call that would fail gets that call's error.
import { EmulatorError, type RouteHandler } from '../emulator/index.js';
import type { Ec2Routes, Query } from './dialect.js';
import type { Ec2World } from './world.js';

/** EC2's answer to a dry run of a call that would succeed (HTTP 412, as EC2 sends it). */
export const dryRunOperation = (): EmulatorError => new EmulatorError(412, 'DryRunOperation', 'Request would have succeeded, but DryRun flag is set.');

/**
 * `routes` with DryRun honoured: a request with `DryRun=true` runs the action against the world and then puts the world
 * back as it was, answering DryRunOperation when the action succeeded and the action's own error when it failed. The
 * sandbox has no IAM policies, so every signed caller may call every action (never UnauthorizedOperation).
 */
export function withDryRun(w: Ec2World, routes: Ec2Routes): Ec2Routes {
  return routes.map(([action, handler]): [string, RouteHandler<Query>] => [
    action,
    async (call) => {
      if (call.body.get('DryRun') !== 'true') return handler(call);
      const before = w.store.state();
      w.dryRun = true;
      try {
        await handler(call);
      } finally {
        w.dryRun = false;
        w.store.restore(before);
      }
      throw dryRunOperation();
    },
  ]);
}
