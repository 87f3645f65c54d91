// Structured logs for the handlers: one JSON object per line, redacted by construction — Redacted values print
// as [redacted] through JSON, and fields whose names say they hold a secret are masked whatever their value.
import { errorText } from '@kubeplane/sdk/internal';
import { isKubeplaneError } from '@kubeplane/sdk';

/** The level of a log event. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** The fields of a log event. */
export type LogFields = Record<string, unknown>;

/** A structured logger: events with a level, a message and fields, and children with fields of their own. */
export interface Logger {
  /** Logs an event: its level, message and fields. */
  log(level: LogLevel, message: string, fields?: LogFields): void;
  /** A logger that adds these fields to every event. */
  child(fields: LogFields): Logger;
}

const SECRET_FIELD = /secret|password|token|credential|authorization|private|kubeconfig/i;

/** A Logger that writes one redacted JSON object per line. */
export function jsonLogger(
  sink: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  base: LogFields = {},
  minLevel: LogLevel = 'info',
): Logger {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  return {
    log(level, message, fields = {}) {
      if (order.indexOf(level) < order.indexOf(minLevel)) return;
      sink(
        JSON.stringify({ level, message, ...base, ...fields }, (key, value: unknown) =>
          key !== '' && SECRET_FIELD.test(key) && value !== undefined ? '[redacted]' : value,
        ),
      );
    },
    child(fields) {
      return jsonLogger(sink, { ...base, ...fields }, minLevel);
    },
  };
}

/** An error as log fields: its kind and message, never its cause chain (which may quote a request). */
export function errorFields(e: unknown): LogFields {
  if (isKubeplaneError(e)) return { errorKind: e.kind, error: e.message, ...(e.details.resource ? { resource: e.details.resource } : {}) };
  return { errorKind: 'unexpected', error: errorText(e) };
}
