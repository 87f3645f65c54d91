// `curl` in a sandbox machine: nothing outside the sandbox is reachable. It serves the sandbox package mirror
// (pkgs.k8s.io Release.key = the run's own signing key; the cilium-cli release tarball and its .sha256sum holding the
// cilium stand-in), hands URLs of sandbox machines (addresses the sandbox's DNS knows) to the real curl, and fails
// every other URL loudly with exit 6, curl's "Couldn't resolve host" (https://curl.se/libcurl/c/libcurl-errors.html).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ENV, main, resolve, StandinFailure } from './control-client.js';

const REAL_CURL = '/usr/bin/curl';
/** Options of curl(1) that take a value (so the value is not mistaken for the URL). */
const SHORT_WITH_VALUE = new Set([
  'o',
  'H',
  'X',
  'd',
  'u',
  'm',
  'w',
  'e',
  'A',
  'T',
  'E',
  'K',
  'r',
  'y',
  'Y',
  'z',
  'b',
  'c',
  'F',
  'x',
  'U',
  'C',
  'D',
  'P',
  'Q',
  't',
]);
const LONG_WITH_VALUE = new Set([
  '--output',
  '--header',
  '--request',
  '--data',
  '--data-raw',
  '--data-binary',
  '--data-urlencode',
  '--user',
  '--max-time',
  '--write-out',
  '--referer',
  '--user-agent',
  '--upload-file',
  '--cert',
  '--key',
  '--cacert',
  '--capath',
  '--config',
  '--range',
  '--retry',
  '--retry-delay',
  '--retry-max-time',
  '--connect-timeout',
  '--resolve',
  '--connect-to',
  '--proxy',
  '--form',
  '--cookie',
  '--cookie-jar',
  '--dump-header',
  '--unix-socket',
  '--interface',
]);

interface CurlArgs {
  url?: string;
  output?: string;
  remoteName: boolean;
  fail: boolean;
  silent: boolean;
}

export function parseCurlArgs(args: string[]): CurlArgs {
  const out: CurlArgs = { remoteName: false, fail: false, silent: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a.startsWith('--')) {
      const [name = '', inline] = a.split('=', 2);
      const value = inline ?? (LONG_WITH_VALUE.has(name) ? args[++i] : undefined);
      if (name === '--output') out.output = value;
      else if (name === '--remote-name') out.remoteName = true;
      else if (name === '--fail' || name === '--fail-with-body') out.fail = true;
      else if (name === '--silent') out.silent = true;
      else if (name === '--url') out.url = value;
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j] ?? '';
        if (SHORT_WITH_VALUE.has(c)) {
          const value = j + 1 < a.length ? a.slice(j + 1) : args[++i];
          if (c === 'o') out.output = value;
          break;
        }
        if (c === 'O') out.remoteName = true;
        if (c === 'f') out.fail = true;
        if (c === 's') out.silent = true;
      }
      continue;
    }
    out.url ??= a;
  }
  return out;
}

function mirrorFile(url: URL): string | undefined | null {
  const dir = process.env[ENV.mirror];
  if (!dir) throw new StandinFailure(`sandbox: ${ENV.mirror} is not set`, 1);
  if (url.hostname === 'pkgs.k8s.io') {
    // One repository per minor (https://kubernetes.io/blog/2023/08/15/pkgs-k8s-io-introduction/), one signing key.
    return /^\/core:\/stable:\/v\d+\.\d+\/deb\/Release\.key$/.test(url.pathname) ? `${dir}/Release.key` : null;
  }
  if (url.hostname === 'github.com') {
    // https://github.com/cilium/cilium-cli/releases/download/<version>/cilium-linux-<arch>.tar.gz[.sha256sum]
    const m = /^\/cilium\/cilium-cli\/releases\/download\/v[^/]+\/(cilium-linux-(?:amd64|arm64)\.tar\.gz(?:\.sha256sum)?)$/.exec(url.pathname);
    if (m) return existsSync(`${dir}/${m[1] ?? ''}`) ? `${dir}/${m[1] ?? ''}` : null;
    return undefined;
  }
  return undefined;
}

function isIPv4(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Addresses a sandbox machine can reach: the machines' public range 198.18.0.0/15 (RFC 2544), private ranges
 * (RFC 1918, RFC 6598: overlays, pod and service networks) and loopback. Any other address is the Internet.
 */
function sandboxAddress(ip: string): boolean {
  const [a = 0, b = 0] = ip.split('.').map(Number);
  return (
    (a === 198 && (b === 18 || b === 19)) ||
    a === 10 ||
    a === 127 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

main(async (args) => {
  const parsed = parseCurlArgs(args);
  if (!parsed.url) throw new StandinFailure('curl: no URL specified!', 2);
  let url: URL;
  try {
    url = new URL(/^[a-z]+:\/\//i.test(parsed.url) ? parsed.url : `http://${parsed.url}`);
  } catch {
    throw new StandinFailure(`curl: (3) URL using bad/illegal format or missing URL`, 3);
  }
  const file = mirrorFile(url);
  if (file === null) {
    if (parsed.fail)
      throw new StandinFailure(
        parsed.silent && !args.some((a) => /^-[a-zA-Z]*S/.test(a) || a === '--show-error') ? '' : `curl: (22) The requested URL returned error: 404`,
        22,
      );
    process.stdout.write('404 Not Found\n');
    return 0;
  }
  if (file !== undefined) {
    const bytes = readFileSync(file);
    const target = parsed.output ?? (parsed.remoteName ? (url.pathname.split('/').pop() ?? 'index.html') : undefined);
    if (target) writeFileSync(target, bytes);
    else process.stdout.write(bytes);
    return 0;
  }
  // A sandbox machine (its public address, or a name the sandbox's DNS resolves): the real curl over the bridge.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = (isIPv4(host) ? [host] : await resolve(host)).filter(sandboxAddress);
  if (addresses.length === 0) throw new StandinFailure(`sandbox: no network: ${parsed.url} is not reachable from a sandbox machine`, 6);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const extra = isIPv4(host) ? [] : ['--resolve', `${host}:${port}:${addresses.join(',')}`];
  const result = spawnSync(REAL_CURL, [...extra, ...args], { stdio: 'inherit' });
  return result.status ?? 1;
});
