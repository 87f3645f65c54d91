// Protobuf request bodies as kubectl 1.32 sends them.
import { describe, expect, it } from 'vitest';
import { decodeProtobufBody } from './protobuf.js';
import { ApiError } from './store.js';

// `kubectl create configmap x --from-literal=a=b`, as kubectl 1.32.4 sent it (its -v=8 log prints the body).
const KUBECTL_CONFIGMAP = Buffer.from(
  '6b3873000a0f0a0276311209436f6e6669674d6170121b0a110a01781200' + '1a0022002a003200380042001206' + '0a01611201621a002200',
  'hex',
);

describe('protobuf request bodies', () => {
  it('decodes the ConfigMap kubectl create configmap sends into the JSON object it stands for', () => {
    expect(decodeProtobufBody(KUBECTL_CONFIGMAP)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } });
  });

  it('answers 415 for a kind it cannot decode, and 400 for bytes that are not the envelope', () => {
    const deployment = Buffer.concat([Buffer.from('6b387300', 'hex'), Buffer.from([0x0a, 0x15, 0x0a, 0x07, ...Buffer.from('apps/v1'), 0x12, 0x0a, ...Buffer.from('Deployment')])]);
    expect(() => decodeProtobufBody(deployment)).toThrow(expect.objectContaining({ code: 415, reason: 'UnsupportedMediaType' }) as ApiError);
    expect(() => decodeProtobufBody(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(expect.objectContaining({ code: 400 }) as ApiError);
  });
});
