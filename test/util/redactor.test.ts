import { inspect } from 'node:util';
import { Redactor } from '../../src/util/secret';

const PASSWORD = 'p"a\\ss w/rd+&';

describe('Redactor', () => {
  it('replaces a credential as sent and as an echo may spell it', () => {
    const redactor = new Redactor([PASSWORD, `admin:${PASSWORD}`]);
    const json = JSON.stringify(PASSWORD).slice(1, -1);
    const spellings = [
      PASSWORD,
      json,
      JSON.stringify(json).slice(1, -1),
      encodeURIComponent(PASSWORD),
      Buffer.from(PASSWORD).toString('base64'),
      Buffer.from(PASSWORD).toString('base64url'),
      Buffer.from(`admin:${PASSWORD}`).toString('base64'),
    ];
    for (const spelling of spellings) expect(redactor.redact(`before ${spelling} after`)).toBe('before [REDACTED] after');
  });

  it('replaces a credential URL-encoded the other usual ways: as a form (Java URLEncoder, URLSearchParams), strictly, in lower case', () => {
    const password = "Simulat0r! it's (mine)~*";
    const redactor = new Redactor([password]);
    const form = new URLSearchParams({ password }).toString().slice('password='.length); // Simulat0r%21+it%27s+%28mine%29%7E*
    const strict = encodeURIComponent(password).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    for (const spelling of [form, strict, form.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()), strict.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())]) {
      expect(redactor.redact(`username=admin&password=${spelling}&x=1`)).toBe('username=admin&password=[REDACTED]&x=1');
    }
  });

  it('replaces a text that holds a credential whole: the Basic header value, not its password inside it', () => {
    const redactor = new Redactor(['pw', 'admin:pw']);
    expect(redactor.redact('credentials admin:pw refused')).toBe('credentials [REDACTED] refused');
  });

  it('remembers the last four tokens issued', () => {
    const redactor = new Redactor([]);
    expect(redactor.redact('token t-1')).toBe('token t-1');
    for (let i = 1; i <= 5; i++) redactor.addToken(`token-number-${i}`);
    expect(redactor.redact('token-number-1 token-number-2 token-number-5')).toBe('token-number-1 [REDACTED] [REDACTED]');
  });

  it('prints none of its credentials', () => {
    const redactor = new Redactor([PASSWORD]);
    redactor.addToken('tok-secret');
    for (const printed of [String(redactor), JSON.stringify({ redactor }), inspect(redactor)]) {
      expect(printed).not.toContain('w/rd');
      expect(printed).not.toContain('tok-secret');
    }
  });
});
