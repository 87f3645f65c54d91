// Protobuf request bodies as kubectl 1.32 sends them.
import { describe, expect, it } from 'vitest';
import { decodeProtobufBody } from './protobuf.js';
import type { ApiError } from './store.js';

// `kubectl create configmap x --from-literal=a=b`, as kubectl 1.32.4 sent it (its -v=8 log prints the body).
const KUBECTL_CONFIGMAP = Buffer.from(
  '6b3873000a0f0a0276311209436f6e6669674d6170121b0a110a01781200' + '1a0022002a003200380042001206' + '0a01611201621a002200',
  'hex',
);

describe('protobuf request bodies', () => {
  it('decodes the ConfigMap kubectl create configmap sends into the JSON object it stands for', () => {
    expect(decodeProtobufBody(KUBECTL_CONFIGMAP)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } });
  });

  it('answers 415 rather than drop a field it does not know that the body sets, and takes one sent empty', () => {
    const withField = (extra: number[]) => {
      const raw = [0x0a, 0x03, 0x0a, 0x01, 0x78, ...extra];
      return Buffer.from([
        0x6b,
        0x38,
        0x73,
        0x00,
        0x0a,
        0x0f,
        0x0a,
        0x02,
        ...Buffer.from('v1'),
        0x12,
        0x09,
        ...Buffer.from('ConfigMap'),
        0x12,
        raw.length,
        ...raw,
      ]);
    };
    // Field 9 is no ConfigMap field the sandbox describes: set, it is refused; empty, it is what Go sends for unset.
    expect(() => decodeProtobufBody(withField([0x4a, 0x01, 0x41]))).toThrow(expect.objectContaining({ code: 415 }) as ApiError);
    expect(decodeProtobufBody(withField([0x4a, 0x00]))).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
  });

  it('answers 415 for a kind it cannot decode, and 400 for bytes that are not the envelope', () => {
    const statefulSet = Buffer.concat([
      Buffer.from('6b387300', 'hex'),
      Buffer.from([0x0a, 0x16, 0x0a, 0x07, ...Buffer.from('apps/v1'), 0x12, 0x0b, ...Buffer.from('StatefulSet'), 0x12, 0x00]),
    ]);
    expect(() => decodeProtobufBody(statefulSet)).toThrow(expect.objectContaining({ code: 415, reason: 'UnsupportedMediaType' }) as ApiError);
    expect(() => decodeProtobufBody(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(expect.objectContaining({ code: 400 }) as ApiError);
  });
});

// `kubectl create service nodeport np --tcp=80:web --node-port=30080`, as kubectl 1.32.4 sent it.
const KUBECTL_SERVICE = Buffer.from(
  '6b3873000a0d0a0276311207536572766963651268' +
    '0a1d0a026e7012001a0022002a003200380042005a090a036170701202' +
    '6e70' +
    '12430a1e0a0638302d776562120354435018502209080110001a03776562' +
    '2880eb01' +
    '12090a03617070' +
    '12026e70' +
    '1a0022084e6f6465506f72743a00' +
    '42005200' +
    '5a00' +
    '60006800' +
    '1a020a00' +
    '1a002200',
  'hex',
);

describe('protobuf Services', () => {
  it('decodes the Service kubectl create service sends, a named target port as its name', () => {
    expect(decodeProtobufBody(KUBECTL_SERVICE)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'np', labels: { app: 'np' } },
      spec: { ports: [{ name: '80-web', protocol: 'TCP', port: 80, targetPort: 'web', nodePort: 30080 }], selector: { app: 'np' }, type: 'NodePort' },
    });
  });
});
