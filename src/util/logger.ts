import pino, { type Logger, type LevelWithSilent } from 'pino';
import { trace } from '@opentelemetry/api';

/** Credentials redacted by path, a second line of defence: passwords are Secret objects that print as [REDACTED] anyway. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'targets[*].password',
  'authorization',
  'headers.authorization',
  'headers["x-dd-auth-token"]',
  '*.headers.authorization',
  'token',
  '*.token',
  'access_token',
  'refresh_token',
];

/** The `err` field: an Error's class (ApiError...), not pino's "Object". No stack: a failing collector logs every few minutes. */
export function serializeError(value: unknown) {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    const cause = value.cause instanceof Error ? `${value.cause.name}: ${value.cause.message}` : undefined;
    return {
      type: value.name && value.name !== 'Error' ? value.name : value.constructor.name,
      message: value.message || '(no message)',
      ...(typeof code === 'string' ? { code } : {}),
      ...(cause ? { cause } : {}),
    };
  }
  if (typeof value === 'string') return { type: 'Error', message: value };
  if (value && typeof value === 'object') {
    const { type, name, message } = value as { type?: unknown; name?: unknown; message?: unknown };
    const label = typeof type === 'string' ? type : typeof name === 'string' ? name : 'Error';
    return { type: label, message: typeof message === 'string' && message ? message : JSON.stringify(value) };
  }
  return { type: typeof value, message: String(value) };
}

/** `destination`: a file descriptor (1 stdout, 2 stderr) or a stream (tests). */
export function createLogger(level: LevelWithSilent = 'info', destination: number | pino.DestinationStream = 1): Logger {
  return pino(
    {
      level,
      base: { service: 'dataprotect-exporter' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      serializers: { err: serializeError },
      mixin() {
        const context = trace.getActiveSpan()?.spanContext();
        return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
      },
    },
    typeof destination === 'number' ? pino.destination({ fd: destination, sync: true }) : destination,
  );
}

export type { Logger };
