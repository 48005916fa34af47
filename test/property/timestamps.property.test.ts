/**
 * The management client's timestamp reader: every instant in the forms the
 * service sends is read exactly, and what is not an ISO 8601 timestamp is
 * refused rather than read as some other instant.
 */
import fc from 'fast-check';
import { parseTimestamp } from '../../src/clients/management/schemas';

const instants = fc.integer({ min: Date.parse('1970-01-01T00:00:00Z'), max: Date.parse('2200-12-31T23:59:59.999Z') });

describe('parseTimestamp', () => {
  it('reads every instant in the forms the service sends', () => {
    fc.assert(
      fc.property(instants, (ms) => {
        const withMillis = new Date(ms).toISOString(); // 2026-11-21T10:00:00.123Z
        const withoutMillis = `${withMillis.slice(0, 19)}Z`;
        const withOffset = `${new Date(ms + 2 * 3_600_000).toISOString().slice(0, 23)}+02:00`;
        expect(parseTimestamp(withMillis)).toBe(ms);
        expect(parseTimestamp(withoutMillis)).toBe(ms - (ms % 1000));
        expect(parseTimestamp(withOffset)).toBe(ms);
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses impossible dates and non-timestamps instead of reading a wrong instant', () => {
    for (const text of ['2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-21T24:00:00Z', '12', '', 'soon', '2026-11-21 10:00:00']) {
      expect(Number.isNaN(parseTimestamp(text)) || parseTimestamp(text) === Date.parse(text)).toBe(true);
    }
    expect(parseTimestamp('12')).toBeNaN();
    expect(parseTimestamp('2026-13-01T00:00:00Z')).toBeNaN();
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        const ms = parseTimestamp(text);
        // whatever it accepts is an instant Date.parse agrees on
        if (!Number.isNaN(ms)) expect(ms).toBe(Date.parse(text));
      }),
      { numRuns: 5_000 },
    );
  });
});
