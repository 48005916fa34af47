import pino, { type Logger, type LevelWithSilent } from 'pino';
import { trace } from '@opentelemetry/api';

/**
 * JSON logs on stdout. Credentials are redacted by path as a second line of
 * defence (passwords are Secret objects that print as [REDACTED] anyway), and
 * each line written inside a traced collector run carries its trace and span ids.
 */
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

/** `destination`: a file descriptor (1 stdout, 2 stderr) or a stream (tests). */
export function createLogger(level: LevelWithSilent = 'info', destination: number | pino.DestinationStream = 1): Logger {
  return pino(
    {
      level,
      base: { service: 'dataprotect-exporter' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      mixin() {
        const context = trace.getActiveSpan()?.spanContext();
        return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
      },
    },
    typeof destination === 'number' ? pino.destination({ fd: destination, sync: true }) : destination,
  );
}

export type { Logger };
