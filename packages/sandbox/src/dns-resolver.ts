// The sandbox's DNS as a resolver sees it: the A records of every zone the DNS clouds hold (each cloud's descriptor,
// `dns`), following CNAMEs. The netns mode gives it to the machines, which have no other DNS: the name of an API
// load balancer resolves to the load-balancer machines' addresses only once the engine's dns step wrote the record.
import { canonicalName } from './clouds/descriptor.js';
import type { Sandbox } from './sandbox.js';

function records(sandbox: Sandbox, name: string): Array<{ type: string; value: string }> {
  const want = canonicalName(name);
  return sandbox.clouds.flatMap(({ cloud, emulator }) => cloud.dns?.records(emulator, want) ?? []);
}

/** IPv4 addresses `name` resolves to in the sandbox (CNAMEs followed, at most 8 deep); [] when nothing answers. */
export function resolveSandboxName(sandbox: Sandbox, name: string, depth = 0): string[] {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return [name];
  const found = records(sandbox, name);
  const a = found.filter((r) => r.type === 'A').map((r) => r.value);
  if (a.length > 0 || depth >= 8) return [...new Set(a)];
  return [...new Set(found.filter((r) => r.type === 'CNAME').flatMap((r) => resolveSandboxName(sandbox, r.value, depth + 1)))];
}
