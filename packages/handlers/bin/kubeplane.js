#!/usr/bin/env node
// The kubeplane CLI entry: runs the compiled CLI (built by `npm ci` through the root `prepare` script).
import { main } from '../dist/cli/main.js';

// A reader that went away (`kubeplane ... | head`) ends the command quietly, as for any Unix tool.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
});
