// User-data is carried to the machine, not read there: the shell scripts it writes go without their comment lines,
// which are a fifth of their size (EC2 takes 16 KB of user-data, and a control plane's keys fill most of it). The
// commented source stays where people read it: the renderers, and the golden files under test/golden.

/**
 * `script` without its comment-only lines, except the header: the `#!` line and the first two comment lines after
 * it, which say on the node what the file is. Heredoc bodies are data and stay as they are; so do comments after code
 * on a line, which would need a shell parser to find safely.
 */
export function withoutShellComments(script: string): string {
  const out: string[] = [];
  let heredoc: string | undefined;
  let header = script.startsWith('#!');
  for (const [i, line] of script.split('\n').entries()) {
    if (heredoc !== undefined) {
      out.push(line);
      if (line.trim() === heredoc) heredoc = undefined;
      continue;
    }
    if (header && (i === 0 || (i <= 2 && line.startsWith('#')))) {
      out.push(line);
      continue;
    }
    header = false;
    if (/^\s*#/.test(line)) continue;
    const opens = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/.exec(line.replace(/<<</g, ''));
    if (opens) heredoc = opens[2];
    out.push(line);
  }
  return out.join('\n');
}
