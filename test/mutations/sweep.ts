// Tries every defect (or those named) in one mode and prints a row per defect (full outputs in /tmp/defects):
// node --import tsx --conditions=@kubeplane/source test/mutations/sweep.ts fast|netns [id …]
import { mkdirSync, writeFileSync } from 'node:fs';
import { catalogue, tryDefect } from './catalogue.js';

const [mode = 'fast', ...only] = process.argv.slice(2);
if (mode !== 'fast' && mode !== 'netns') throw new Error('mode: fast or netns');
for (const d of await catalogue()) {
  if (only.length > 0 && !only.includes(d.id)) continue;
  const t0 = Date.now();
  const t = await tryDefect(d, mode);
  mkdirSync('/tmp/defects', { recursive: true });
  writeFileSync(`/tmp/defects/${mode}-${d.id}.log`, t.output);
  const line =
    t.output.split('\n').find((l) => d.message.test(l)) ?? t.output.split('\n').find((l) => /failed:|ERROR|refused|without a WireGuard/.test(l)) ?? '';
  console.log(
    JSON.stringify({
      id: d.id,
      create: t.create,
      handshakes: t.handshakes,
      caught: t.caught,
      worded: t.worded,
      s: (Date.now() - t0) / 1000,
      line: line.trim().slice(0, 300),
    }),
  );
}
