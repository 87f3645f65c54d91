import { describe, expect, it } from 'vitest';
import { Redacted } from '@kubeplane/sdk';
import { jsonLogger } from './logger.js';

describe('jsonLogger', () => {
  it('writes one JSON object per event with secrets redacted, by type and by field name', () => {
    const lines: string[] = [];
    const log = jsonLogger((l) => lines.push(l)).child({ clusterId: 'c1' });
    log.log('info', 'step handled', {
      key: 'c1/1/2/0',
      value: Redacted.of('-----BEGIN PRIVATE KEY-----'),
      token: 'hcloud-abc',
      nested: { secretAccessKey: 'AKIA' },
    });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      level: 'info',
      message: 'step handled',
      clusterId: 'c1',
      key: 'c1/1/2/0',
      value: '[redacted]',
      token: '[redacted]',
      nested: { secretAccessKey: '[redacted]' },
    });
  });

  it('leaves out events below its level', () => {
    const lines: string[] = [];
    jsonLogger((l) => lines.push(l)).log('debug', 'noise');
    expect(lines).toEqual([]);
  });
});
