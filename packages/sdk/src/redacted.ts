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

  static of<T>(value: T): Redacted<T> {
    return new Redacted(value);
  }

  /** The only way to the secret value; call it at the last moment, where the value is used. */
  reveal(): T {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/** Whether a value is a Redacted. */
export function isRedacted(value: unknown): value is Redacted<unknown> {
  return value instanceof Redacted;
}
