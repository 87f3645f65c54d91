// `node --import ./test/helpers/record-imports.mjs ...`: appends the URL of every module the process imports (ESM
// resolution, which the sandbox, msw and kubeplane's packages all go through) to the file named by
// KUBEPLANE_IMPORT_LOG, one per line, as it happens: a process killed midway still leaves what it loaded.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
let log = '';
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (log) appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

const log = process.env.KUBEPLANE_IMPORT_LOG;
if (log) register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { log } });
