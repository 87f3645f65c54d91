#!/usr/bin/env node
// The kubeplane CLI entry: runs the compiled CLI (built by `npm ci` through the root `prepare` script).
import { handlesInterrupts, main } from '../dist/cli/main.js';

// A reader that went away (`kubeplane ... | head`) ends the command quietly, as for any Unix tool.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const argv = process.argv.slice(2);
// apply and destroy finish the step in hand on the first Ctrl-C or SIGTERM, save, and exit 130; a second one
// stops at once (the sandbox world and the state are durable either way). Other commands stop at once.
const interrupt = new AbortController();
if (handlesInterrupts(argv)) {
  for (const name of ['SIGINT', 'SIGTERM']) {
    process.on(name, () => {
      if (interrupt.signal.aborted) process.exit(130);
      interrupt.abort(name);
    });
  }
}

process.exitCode = await main(argv, {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
  signal: interrupt.signal,
  stdin: process.stdin,
});
