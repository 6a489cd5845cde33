import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths that never reach a log line: credentials, secrets, postback URLs (they may carry tokens). */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.apiKey',
  '*.api_key',
  '*.key',
  '*.token',
  '*.secret',
  '*.password',
  '*.access_secret',
  '*.postbackUrl',
  '*.postback_url',
  'req.query.access_secret',
];

export function createLogger(opts: { level?: string; name?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    { level: opts.level ?? 'info', name: opts.name, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: opts.name } },
    opts.destination as never,
  );
}
