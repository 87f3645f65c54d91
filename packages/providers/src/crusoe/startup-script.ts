// Crusoe VMs take a startup script, not cloud-init user data (whether `#cloud-config` is accepted is not
// documented, crusoe-notes.md §2.3). A rendered cloud-config is handed to cloud-init as a NoCloud seed by a script.

/**
 * Crusoe documents no size limit for startup scripts; 32 KiB (Hetzner's user-data limit) is our own bound, so a
 * rendered config that would not fit elsewhere is rejected before any call rather than after.
 */
export const STARTUP_SCRIPT_LIMIT = 32 * 1024;

/** The startup script for a node: a script as it is, a cloud-config wrapped for cloud-init. */
export function startupScript(userData: string): string {
  if (userData.startsWith('#!')) return userData;
  const encoded = Buffer.from(userData, 'utf8').toString('base64');
  return [
    '#!/bin/bash',
    '# kubeplane: the API takes a startup script, so this hands the rendered cloud-config to cloud-init (NoCloud seed).',
    'set -eu',
    'seed=/var/lib/cloud/seed/nocloud',
    'install -d -m 0700 "$seed"',
    `echo '${encoded}' | base64 -d > "$seed/user-data"`,
    'chmod 0600 "$seed/user-data"',
    'printf "instance-id: %s\\n" "$(cat /etc/machine-id)" > "$seed/meta-data"',
    'cloud-init clean --logs',
    'cloud-init init --local && cloud-init init && cloud-init modules --mode=config && cloud-init modules --mode=final',
    '',
  ].join('\n');
}

/** The cloud-config inside a script made by `startupScript` (the sandbox's kubelets read it back). */
export function userDataFromStartupScript(script: string): string | undefined {
  const m = /echo '([A-Za-z0-9+/=]+)' \| base64 -d > "\$seed\/user-data"/.exec(script);
  return m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : script.startsWith('#!') ? script : undefined;
}
