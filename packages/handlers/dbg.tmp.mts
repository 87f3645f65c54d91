import { readFileSync } from 'node:fs';
import { validateManifestText } from '@kubeplane/sdk';
import { LocalRuntime } from './src/runtime/local.ts';
const m = validateManifestText(readFileSync('/work/main/examples/minimal.yaml', 'utf8')).manifests[0]!;
const rt = await LocalRuntime.open({ stateDir: '/tmp/x', sandbox: true, memory: true, env: process.env, cwd: '/work/main', netns: true });
try {
  await rt.kubeplane.apply(m);
  await rt.kubeplane.run();
  await rt.netns!.pass(150_000);
  for (const vm of rt.sandbox!.listVms()) {
    const r = await rt.netns!.world.exec(vm, 'wg show; echo ---; ls /var/log/kubeplane-netns/ 2>&1; tail -5 /var/log/kubeplane-netns/*mesh* 2>&1; journal=1; cat /etc/wireguard/wg0.conf | grep -v PrivateKey');
    console.log('=====', vm.name, r.code, r.stdout.slice(0, 3000), r.stderr.slice(0, 500));
  }
  console.log(JSON.stringify(await rt.netns!.handshakes()));
} finally { await rt.close(); }
