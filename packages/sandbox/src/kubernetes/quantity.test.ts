import { describe, expect, it } from 'vitest';
import { milliValue, parseQuantity, QuantityError } from './quantity.js';

describe('Kubernetes quantities', () => {
  it('read binary, decimal and exponent forms', () => {
    expect(parseQuantity('128Mi')).toBe(128 * 1024 * 1024);
    expect(parseQuantity('1Gi')).toBe(2 ** 30);
    expect(parseQuantity('1G')).toBe(1e9);
    expect(parseQuantity('8388608Ki')).toBe(8 * 2 ** 30);
    expect(parseQuantity('1e3')).toBe(1000);
    expect(parseQuantity('2')).toBe(2);
    expect(parseQuantity(4)).toBe(4);
    expect(milliValue('250m')).toBe(250);
    expect(milliValue('0.5')).toBe(500);
    expect(milliValue('1')).toBe(1000);
    expect(milliValue('100u')).toBe(1);
  });

  it('refuse what the API server refuses', () => {
    expect(() => parseQuantity('1.5.5')).toThrow(QuantityError);
    expect(() => parseQuantity('12 cores')).toThrow(QuantityError);
    expect(() => parseQuantity('Mi')).toThrow(QuantityError);
  });
});
