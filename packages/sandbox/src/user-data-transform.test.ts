// The seam for defects: a transform of the files a machine's user-data writes, applied before it boots.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseCloudConfig } from '@kubeplane/sdk/internal';
import type { SandboxVm } from './kubernetes/vm-source.js';
import { transformedUserData, UserDataTransformer, UserDataTransformError } from './user-data-transform.js';

const text = [
  '#cloud-config',
  '# kubeplane node web-1 (join) of cluster demo [c-123]',
  'hostname: web-1',
  'write_files:',
  '  - path: /etc/wireguard/wg0.conf',
  '    owner: root:root',
  '    permissions: "0600"',
  '    content: |',
  '      [Interface]',
  '      ListenPort = 51820',
  '  - path: /usr/local/sbin/kubeplane-bootstrap',
  '    permissions: "0700"',
  '    encoding: gz+b64',
  `    content: ${gzipSync(Buffer.from('#!/bin/bash\necho hi\n')).toString('base64')}`,
  'runcmd:',
  '  - [/usr/local/sbin/kubeplane-bootstrap]',
  '',
].join('\n');

const vm = (userData: string | Uint8Array): SandboxVm => ({ cloud: 'hetzner', name: 'web-1', state: 'running', userData, publicIPv4: '198.18.0.5' });

describe('a user-data transform', () => {
  it('gets the decoded files and the machine, and what it returns is what boots; the rest stays as rendered', () => {
    let seen: unknown;
    const out = transformedUserData(vm(Buffer.from(text).toString('base64')), (machine, files) => {
      seen = { machine, paths: files.map((f) => f.path), script: files[1]?.content };
      return [
        ...files.map((f) => (f.path.endsWith('wg0.conf') ? { ...f, content: f.content.replace('51820', '51821') } : f)),
        { path: '/etc/extra', content: 'x\u0001', owner: 'root:root', permissions: '0644' },
      ];
    });
    expect(seen).toEqual({
      machine: { cloud: 'hetzner', name: 'web-1', publicIPv4: '198.18.0.5', node: 'web-1', mode: 'join', cluster: 'demo' },
      paths: ['/etc/wireguard/wg0.conf', '/usr/local/sbin/kubeplane-bootstrap'],
      script: '#!/bin/bash\necho hi\n',
    });
    expect(typeof out === 'string' && out.split('\n').slice(0, 2)).toEqual(['#cloud-config', '# kubeplane node web-1 (join) of cluster demo [c-123]']);
    const config = parseCloudConfig(out);
    expect(config.hostname).toBe('web-1');
    expect(config.runcmd).toEqual([['/usr/local/sbin/kubeplane-bootstrap']]);
    expect(config.files.map((f) => [f.path, f.permissions, f.content.toString('utf8')])).toEqual([
      ['/etc/wireguard/wg0.conf', '0600', '[Interface]\nListenPort = 51821\n'],
      ['/usr/local/sbin/kubeplane-bootstrap', '0700', '#!/bin/bash\necho hi\n'],
      ['/etc/extra', '0644', 'x\u0001'],
    ]);
  });

  it('fails loudly, naming the machine, when it throws or returns no list of files', () => {
    expect(() =>
      transformedUserData(vm(text), () => {
        throw new Error('boom');
      }),
    ).toThrow(new UserDataTransformError('hetzner/web-1', 'it threw: boom'));
    expect(() => transformedUserData(vm(text), () => 'nope' as never)).toThrow('user-data transform for hetzner/web-1: it returned no list of files');
    expect(() => transformedUserData(vm(text), () => [{ path: 'relative', content: '' }] as never)).toThrow(
      'file 1 of the list it returned has no absolute path',
    );
  });

  it('leaves user-data that is no #cloud-config alone, and runs once per machine and user-data', () => {
    expect(transformedUserData(vm('#!/bin/sh\necho plain\n'), () => [])).toBe('#!/bin/sh\necho plain\n');
    let calls = 0;
    const t = new UserDataTransformer((_m, files) => {
      calls += 1;
      return files;
    });
    const machine = vm(text);
    t.apply(machine);
    t.apply(machine);
    expect(calls).toBe(1);
    t.apply({ ...machine, userData: `${text}\n` });
    expect(calls).toBe(2);
  });
});
