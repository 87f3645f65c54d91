// The sweep's table in docs/sandbox.md, rendered from the operation lists: per client, each operation and the
// answer it must get. `table.test.ts` checks the document holds it; `npx tsx <this file> --write` rewrites it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliOp, PythonOp, SweepClient } from './ops.js';
import { SWEEPS } from './sweeps.js';
import { withSection } from '../../../../../../test/helpers/doc-section.js';

export const DOC = join(import.meta.dirname, '..', '..', '..', '..', '..', '..', 'docs', 'sandbox.md');
const BEGIN = '<!-- sweep table: rendered from packages/handlers/src/cli/served-sandbox/sweep (table.ts) -->';
const END = '<!-- end of sweep table -->';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The section between the markers: a count per client and API, then every operation. */
export function renderTable(sweeps: ReadonlyArray<{ client: SweepClient; ops: ReadonlyArray<CliOp | PythonOp> }> = SWEEPS): string {
  const lines: string[] = [BEGIN, ''];
  const total = sweeps.reduce((n, s) => n + s.ops.length, 0);
  const refused = sweeps.reduce((n, s) => n + s.ops.filter((o) => o.outcome === 'refused').length, 0);
  // A client may have several lists (one per part of an API): its counts are summed per API.
  const clients = [...new Set(sweeps.map((s) => s.client))];
  lines.push(`${total} operations through ${clients.length} clients: ${total - refused} answered as the cloud answers, ${refused} refused.`, '');
  lines.push('| Client | API | Right | Refused |', '|---|---|---:|---:|');
  for (const client of clients) {
    const all = sweeps.filter((s) => s.client === client).flatMap((s) => [...s.ops]);
    for (const api of [...new Set(all.map((o) => o.api))]) {
      const ops = all.filter((o) => o.api === api);
      lines.push(`| ${client} | ${api} | ${ops.filter((o) => o.outcome === 'right').length} | ${ops.filter((o) => o.outcome === 'refused').length} |`);
    }
  }
  lines.push('', '<details><summary>Every operation</summary>', '', '| Client | API | Operation | Answer | What it must do |', '|---|---|---|---|---|');
  for (const s of sweeps) {
    for (const o of s.ops) lines.push(`| ${s.client} | ${o.api} | ${cell(o.operation)} | ${o.outcome} | ${cell(o.expect)} |`);
  }
  lines.push('', '</details>', '', END);
  return lines.join('\n');
}

/** docs/sandbox.md with its sweep section replaced by `table`. */
export function withTable(doc: string, table: string): string {
  return withSection(doc, BEGIN, END, table);
}

if (process.argv.includes('--write')) {
  writeFileSync(DOC, withTable(readFileSync(DOC, 'utf8'), renderTable()));
}
