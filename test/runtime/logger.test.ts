import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/logger';
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
});
