// `swapoff` in a sandbox machine records the request only: machines share the host's kernel, and a real
// swapoff(8) would turn off the HOST's swap. kubeadm's preflight (Swap check) reads this record instead.
import { main } from './control-client.js';
import { appendLine, RUNTIME_RECORD_DIR } from './records.js';

main(async (args) => {
  appendLine(`${RUNTIME_RECORD_DIR}/swapoff`, args.join(' ') || '-a');
});
