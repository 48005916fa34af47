import { z } from 'zod';
import { check, summarize } from '../../src/util/validation';

const item = z.object({ id: z.string(), size: z.number(), tags: z.array(z.object({ name: z.string() })) });

describe('check', () => {
  it('passes the parsed value through', () => {
    expect(check(item, { id: 'a', size: 1, tags: [], extra: true })).toEqual({ ok: true, value: { id: 'a', size: 1, tags: [] } });
  });

  it('names each field as the input spells it, prefixed by `at`, and says what it got', () => {
    const checked = check(item, { size: '12', tags: [{ name: 'x' }, { name: null }] }, { at: 'content[3]' });
    expect(checked).toEqual({
      ok: false,
      kind: 'missing_field',
      problems: [
        'content[3].id: expected string, got nothing (field missing)',
        'content[3].size: expected number, got string',
        'content[3].tags[1].name: expected string, got null',
      ],
    });
  });

  it('names an issue about the whole input by `whole`, and keeps custom messages', () => {
    expect(check(item, [1], { whole: '(root)' })).toEqual({ ok: false, kind: 'wrong_type', problems: ['(root): expected object, got array'] });
    const port = z.number().refine((value) => value > 0, 'must be positive');
    expect(check(z.object({ web: z.object({ port }) }), { web: { port: -1 } })).toEqual({ ok: false, kind: 'invalid_value', problems: ['web.port: must be positive'] });
  });
});

describe('summarize', () => {
  it('quotes at most `max` problems, each on one bounded line, and counts the rest', () => {
    const long = `body.name: ${'x'.repeat(500)}`;
    const line = summarize(['a: one', 'b:\n two', long, 'd: four'], 3);
    expect(line.startsWith('a: one; b: two; body.name: xxx')).toBe(true);
    expect(line.endsWith('… (and 1 more)')).toBe(true);
    expect(line.length).toBeLessThan(16 + 200 + 20);
  });
});
