import { and, eq, ge, isIn, isNull, not, quote, lt } from '../../src/clients/management/filter';

describe('management filter builder', () => {
  it('quotes strings and escapes double quotes and backslashes', () => {
    expect(eq('name', 'web "frontend" 1').toString()).toBe('name eq "web \\"frontend\\" 1"');
    expect(eq('name', 'C:\\Data\\share').toString()).toBe('name eq "C:\\\\Data\\\\share"');
    expect(quote('quote\\"mix')).toBe('"quote\\\\\\"mix"');
  });

  it('renders dates as quoted ISO strings, numbers and booleans bare, null as a literal', () => {
    expect(ge('updateTime', new Date(Date.UTC(2026, 10, 20))).toString()).toBe('updateTime ge "2026-11-20T00:00:00.000Z"');
    expect(lt('size', 1024).toString()).toBe('size lt 1024');
    expect(eq('deleted', false).toString()).toBe('deleted eq false');
    expect(isNull('x').toString()).toBe('x eq null');
  });

  it('builds lists, dotted fields and and-chains', () => {
    expect(isIn('assetId', ['a', 'b"c']).toString()).toBe('assetId in ("a","b\\"c")');
    expect(eq('result.status', 'FAILED').toString()).toBe('result.status eq "FAILED"');
    expect(and(eq('a', 1), undefined, eq('b', 2)).toString()).toBe('a eq 1 and b eq 2');
    expect(and(and(eq('a', 1), eq('b', 2)), eq('c', 3)).toString()).toBe('a eq 1 and b eq 2 and c eq 3');
  });

  it('builds only the published grammar: not prefixes one comparison', () => {
    expect(not(isIn('state', ['DELETED', 'SOFT_DELETED'])).toString()).toBe('not state in ("DELETED","SOFT_DELETED")');
    expect(and(eq('a', 1), not(eq('b', 2))).toString()).toBe('a eq 1 and not b eq 2');
    expect(() => not(and(eq('a', 1), eq('b', 2)))).toThrow(/not prefixes one comparison/);
    expect(() => not(not(eq('a', 1)))).toThrow(/not prefixes one comparison/);
  });

  it('refuses field names and values that could inject grammar', () => {
    expect(() => eq('name eq "x" or name', 'y')).toThrow(/field name/);
    expect(() => eq('', 'y')).toThrow(/field name/);
    expect(() => isIn('id', [])).toThrow(/empty list/);
    expect(() => lt('size', Number.NaN)).toThrow(/finite/);
    expect(() => ge('t', new Date(Number.NaN))).toThrow(/invalid Date/);
    expect(() => and()).toThrow(/at least one/);
  });
});
