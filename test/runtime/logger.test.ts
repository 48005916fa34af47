import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/logger';
import { ApiError } from '../../src/clients/errors';
import { parseConfig } from '../../src/config/load';

function capture(): { stream: Writable; lines: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, lines: () => text };
}

describe('logs', () => {
  it('are JSON lines that never carry a credential, however it is logged', () => {
    const out = capture();
    const logger = createLogger('debug', out.stream);
    const config = parseConfig({ targets: [{ name: 't', kind: 'management', url: 'https://x', username: 'u', password: 'pw-in-config-1' }] });
    logger.info({ config }, 'whole config');
    logger.info({ target: config.targets[0] }, 'one target');
    logger.info({ password: 'pw-plain-2', token: 'tok-3', access_token: 'tok-4' }, 'fields');
    logger.info({ headers: { authorization: 'Bearer tok-5', 'x-dd-auth-token': 'tok-6' } }, 'headers');
    logger.info({ request: { headers: { authorization: 'Basic dXNlcjpwdy03' } } }, 'nested headers');
    const text = out.lines();
    for (const secret of ['pw-in-config-1', 'pw-plain-2', 'tok-3', 'tok-4', 'tok-5', 'tok-6', 'dXNlcjpwdy03']) expect(text).not.toContain(secret);
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'whole config', service: 'dataprotect-exporter' });
    expect(text).toContain('[REDACTED]');
  });

  it('log an error with its class and message, whatever form it is passed in', () => {
    const out = capture();
    const logger = createLogger('debug', out.stream);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    logger.warn({ err: new TypeError('x is not a function') }, 'a');
    logger.warn({ err: new Error('fetch failed', { cause: refused }) }, 'b');
    logger.warn({ err: refused }, 'c');
    logger.warn({ err: 'plain text' }, 'd');
    logger.warn({ err: { type: 'ApiError', message: 'HTTP 500' } }, 'e');
    logger.warn({ err: {} }, 'f');
    const errs = out.lines().trim().split('\n').map((line) => (JSON.parse(line) as { err: unknown }).err);
    expect(errs).toEqual([
      { type: 'TypeError', message: 'x is not a function' },
      { type: 'Error', message: 'fetch failed', cause: 'Error: connect ECONNREFUSED 127.0.0.1:9' },
      { type: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:9', code: 'ECONNREFUSED' },
      { type: 'Error', message: 'plain text' },
      { type: 'ApiError', message: 'HTTP 500' },
      { type: 'Error', message: '{}' },
    ]);
    // the exporter's own error classes keep their name
    const api = capture();
    createLogger('debug', api.stream).warn({ err: new ApiError('network', '/api/v2/assets', 'connection refused') }, 'g');
    expect((JSON.parse(api.lines()) as { err: { type: string; message: string } }).err).toMatchObject({ type: 'ApiError', message: expect.stringContaining('connection refused') });
  });
});
