// Names the sections check alike (DNS-1123 labels within a limit), and the list of defined names a reference error offers.
import type { IssueCollector, Path } from '../issues.js';
import { checkDns1123Label } from '../names.js';

export function checkName(out: IssueCollector, path: Path, name: string, what: string, max: number): void {
  const problem = checkDns1123Label(name, what, max);
  if (problem) out.error(path, problem);
}

export function listOf(names: Iterable<string>): string {
  const all = [...names];
  return all.length ? ` (defined: ${all.join(', ')})` : ' (none are defined)';
}
