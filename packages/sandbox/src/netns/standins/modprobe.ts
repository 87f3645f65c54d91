// `modprobe` in a sandbox machine records the module as loaded: the host kernel is shared and namespaces cannot
// load modules. modprobe(8) is silent on success, so is this.
import { main, StandinFailure } from './control-client.js';
import { appendLine, RUNTIME_RECORD_DIR } from './records.js';

main(async (args) => {
  const modules = args.filter((a) => !a.startsWith('-'));
  if (modules.length === 0) throw new StandinFailure('modprobe: ERROR: missing parameters. See -h.', 1);
  for (const m of modules) appendLine(`${RUNTIME_RECORD_DIR}/modules`, m);
});
