// The help of the sandbox commands, apart from the commands themselves: `kubeplane --help` lists them without loading
// the sandbox clouds, which only `kubeplane sandbox ...` and `--sandbox` need.
import { OPTIONS, type CommandHelp } from '../help.js';

export const lifecycleUsage = 'kubeplane sandbox lifecycle <manifest> [--netns] [--seed N] [--without-dns-zones] [--json] [-v]';

export const lifecycleHelp: CommandHelp = {
  name: 'sandbox lifecycle',
  usage: [lifecycleUsage],
  summary: 'create, scale, add and remove a pool, upgrade and destroy on the sandbox clouds',
  description: 'In memory and in virtual time; ends with the resources left in the sandbox clouds. Exit 0 only if every stage passed and nothing is left.',
  options: [
    ['--netns', 'boot the machines in network namespaces with real WireGuard, nginx, etcd and TLS'],
    ['--seed N', "the seed of the sandbox's randomness and faults (default 1)"],
    ['--without-dns-zones', "leave the manifest's DNS zones out of the sandbox accounts, to see the refusal"],
    OPTIONS.json,
    OPTIONS.verbose,
  ],
};

export const serveUsage = 'kubeplane sandbox serve [--state-dir DIR] [--speed N] [--port-base P]';
export const DEFAULT_PORT_BASE = 7400;

export const serveHelp: CommandHelp = {
  name: 'sandbox serve',
  usage: [serveUsage],
  summary: 'serve the sandbox world to real clients (AWS CLI, hcloud, kubectl) until Ctrl-C',
  description: "Holds the state directory's writer lock while it runs and saves the world as it changes and when it stops.",
  options: [
    OPTIONS.stateDir,
    ['--speed N', 'virtual seconds per real second (1: real time, 60: a minute a second, 0: stopped)'],
    ['--port-base P', `the first of the local ports (default ${DEFAULT_PORT_BASE}; 0: any free ports)`],
  ],
};
