// `apt-mark hold|unhold|showhold` in a sandbox machine, on the stand-in package database. Messages as apt-mark(8)
// prints them (apt-private/private-mark.cc, salsa.debian.org/apt-team/apt).
import { main, StandinFailure } from './control-client.js';
import { readAptState, writeAptState } from './apt-state.js';

main(async (args) => {
  const [command, ...pkgs] = args.filter((a) => !a.startsWith('-'));
  const state = readAptState();
  if (command === 'showhold') {
    for (const p of [...state.held].sort()) process.stdout.write(`${p}\n`);
    return 0;
  }
  if (command !== 'hold' && command !== 'unhold') throw new StandinFailure(`E: sandbox apt-mark: ${command ?? '(none)'} is not modelled`, 100);
  for (const pkg of pkgs) {
    if (state.installed[pkg] === undefined) throw new StandinFailure(`E: Unable to locate package ${pkg}`, 100);
    const held = state.held.includes(pkg);
    if (command === 'hold') {
      process.stdout.write(held ? `${pkg} was already set on hold.\n` : `${pkg} set on hold.\n`);
      if (!held) state.held.push(pkg);
    } else {
      process.stdout.write(held ? `Canceled hold on ${pkg}.\n` : `${pkg} was already not on hold.\n`);
      state.held = state.held.filter((p) => p !== pkg);
    }
  }
  writeAptState(state);
  return 0;
});
