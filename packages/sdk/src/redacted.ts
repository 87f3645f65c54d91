// A wrapper for secret values (tokens, private keys): it prints as [redacted] through toString, JSON,
// util.inspect and template literals, so a secret cannot leak into logs, state, plans or errors by accident.
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/** A secret value that prints as `[redacted]` everywhere; `reveal()` gives the value where it is used. */
export class Redacted<T = string> {
  readonly #value: T;

  private constructor(value: T) {
    this.#value = value;
  }

  /** Wraps a secret value. */
  static of<T>(value: T): Redacted<T> {
    return new Redacted(value);
  }

  /** The only way to the secret value; call it at the last moment, where the value is used. */
  reveal(): T {
    return this.#value;
  }

  /** Always `[redacted]`; `reveal()` gives the value. */
  toString(): string {
    return REDACTED;
  }

  /** What `JSON.stringify` writes: `[redacted]`. */
  toJSON(): string {
    return REDACTED;
  }

  /** What template literals and string conversion give: `[redacted]`. */
  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  /** What `util.inspect` and `console.log` print: `[redacted]`. */
  [inspect.custom](): string {
    return REDACTED;
  }
}

/** Whether a value is a Redacted. */
export function isRedacted(value: unknown): value is Redacted<unknown> {
  return value instanceof Redacted;
}
