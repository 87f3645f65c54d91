// `sleep` inside a sandbox machine: a virtual sleep on the sandbox clock (control socket POST /sleep).
// Argument syntax as GNU coreutils sleep(1): NUMBER[smhd]..., summed.
import { main, StandinFailure, virtualSleep } from './control-client.js';

export function parseSleepArgs(args: string[]): number {
  if (args.length === 0) throw new StandinFailure('sleep: missing operand', 1);
  let total = 0;
  for (const arg of args) {
    if (arg === 'infinity' || arg === 'inf') return Number.MAX_SAFE_INTEGER / 1000;
    const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
    if (!m) throw new StandinFailure(`sleep: invalid time interval '${arg}'`, 1);
    const unit = m[2] === 'm' ? 60 : m[2] === 'h' ? 3600 : m[2] === 'd' ? 86400 : 1;
    total += Number(m[1]) * unit;
  }
  return total;
}

main(async (args) => {
  await virtualSleep(parseSleepArgs(args));
});
