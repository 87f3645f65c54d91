// SDK_VERSION names the images kubeplane deploys (the autoscaler adapter): it must be the package's version.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { SDK_VERSION } from './version.js';

it("is the version in the package's package.json", () => {
  const pkg = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../package.json'), 'utf8')) as { version: string };
  expect(SDK_VERSION).toBe(pkg.version);
});
