// The GPU operator's toolkit adds the nvidia runtime to /etc/containerd/config.toml after a node joined: the
// bootstrap must write that file only once, before the join, and never on a later run of the script.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateManifestText } from '../manifest/validate.js';
import { buildDesiredState } from '../model/desired-state.js';
import { renderBootstrapScript } from './bootstrap-script.js';
import { bootstrapClusterFromSpec } from './from-spec.js';
import { DEFAULT_VERSIONS } from './versions.js';

const here = dirname(fileURLToPath(import.meta.url));
const CONFIG = '/etc/containerd/config.toml';

function scripts(): Array<{ mode: 'init' | 'join'; text: string }> {
  const r = validateManifestText(readFileSync(join(here, '../../../../examples/minimal.yaml'), 'utf8'));
  if (!r.ok || !r.manifests[0]) throw new Error('examples/minimal.yaml does not validate');
  const cluster = bootstrapClusterFromSpec(buildDesiredState(r.manifests[0]).clusters[0]!, { apiHost: '203.0.113.10' });
  const control = cluster.nodes.find((n) => n.role === 'control')!;
  const worker = cluster.nodes.find((n) => n.role === 'compute')!;
  return [
    { mode: 'init', text: renderBootstrapScript({ cluster, node: control, mode: 'init', versions: DEFAULT_VERSIONS }) },
    { mode: 'join', text: renderBootstrapScript({ cluster, node: worker, mode: 'join', versions: DEFAULT_VERSIONS }) },
  ];
}

/** The body of a shell function `name() { … }` (to the first line that is a lone closing brace). */
function functionBody(text: string, name: string): string {
  const start = text.indexOf(`\n${name}() {\n`);
  expect(start, `${name}() is defined`).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf('\n}\n', start));
}

describe('containerd configuration and the GPU operator', () => {
  it.each(scripts())("writes $mode nodes' containerd config only in configure_containerd", ({ text }) => {
    const writers = text
      .split('\n')
      .filter((line) => line.includes(CONFIG) && !/grep -q/.test(line) && (/>\s*\/etc\/containerd\/config\.toml/.test(line) || /sed -i/.test(line)));
    expect(writers.length).toBeGreaterThan(0);
    const body = functionBody(text, 'configure_containerd');
    for (const line of writers) expect(body).toContain(line);
    expect(text.split('configure_containerd').length - 1).toBe(2); // defined once, called once
  });

  it.each(scripts())("ends a later run of a $mode node's script before configure_containerd, once the node is bootstrapped", ({ text }) => {
    const main = functionBody(text, 'main');
    const doneCheck = main.indexOf('already bootstrapped; nothing to do');
    expect(doneCheck).toBeGreaterThanOrEqual(0);
    expect(main.indexOf('return 0')).toBeGreaterThan(doneCheck);
    expect(main.indexOf('configure_containerd')).toBeGreaterThan(main.indexOf('return 0'));
  });
});
