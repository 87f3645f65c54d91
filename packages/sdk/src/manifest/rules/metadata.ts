// metadata: the project's name.
import { checkDnsName } from '../names.js';
import type { RulesContext } from './context.js';

export function checkMetadata({ m, out }: RulesContext): void {
  // metadata sits beside spec in a Claudie document, so its path takes no spec. prefix.
  const metadataError = (message: string) => out.issues.push({ severity: 'error', path: 'metadata.name', message });
  if (m.name === '') metadataError('metadata.name is required; it names the project');
  else {
    const problem = checkDnsName(m.name, 'metadata.name');
    if (problem) metadataError(problem);
  }
}
