#!/usr/bin/env node
// The kubeplane CLI entry: runs the compiled CLI (built by `npm ci` through the root `prepare` script).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
});
