import { describe, expect, it } from 'vitest';
import { withoutShellComments } from './shell-comments.js';

describe('shell scripts carried in user-data', () => {
  it('lose their comment lines but keep the shebang and header, code, trailing comments and heredoc bodies', () => {
    const script = [
      '#!/bin/sh',
      '# header: what this file is',
      'set -eu',
      '# why this step',
      '  # indented note',
      'echo a # stays',
      "cat <<'EOF'",
      '# data, not a comment',
      'EOF',
      'x=$(cat <<<"# here-string")',
      '# gone',
    ].join('\n');
    expect(withoutShellComments(script)).toBe(
      [
        '#!/bin/sh',
        '# header: what this file is',
        'set -eu',
        'echo a # stays',
        "cat <<'EOF'",
        '# data, not a comment',
        'EOF',
        'x=$(cat <<<"# here-string")',
      ].join('\n'),
    );
  });
});
