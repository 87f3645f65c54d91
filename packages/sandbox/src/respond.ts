// Answers one fetch Request from the sandbox's emulators without intercepting anything, for servers that bridge
// real HTTP to the sandbox (`kubeplane sandbox serve`). The request's URL must name the cloud's real host.
import { getResponse } from 'msw';
import type { Sandbox } from './sandbox.js';

/**
 * Answers a fetch Request addressed to a cloud's real host from the sandbox's emulators; undefined when no emulator
 * claims it.
 */
export type SandboxResponder = (request: Request) => Promise<Response | undefined>;

/** The sandbox's handlers, in the order its own msw server uses them; undefined when no emulator claims the request. */
export function sandboxResponder(sandbox: Sandbox): SandboxResponder {
  const handlers = sandbox.handlers();
  return (request) => getResponse(handlers, request);
}
