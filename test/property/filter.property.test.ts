/**
 * The filter builder against the simulator's filter parser: whatever string a
 * collector puts in a filter (an asset name with quotes, backslashes, grammar
 * words, parentheses, control characters, emoji), the service reads back
 * exactly that value, and the filter selects exactly the matching item:
 * a value can never end its string early and inject grammar.
 */
import fc from 'fast-check';
import { and, eq, isIn, not } from '../../src/clients/management/filter';
import { compileFilter, parseFilter, type FieldSpecs } from '../../simulator/management/filter';

interface Item {
  id: string;
  name: string;
}

const FIELDS: FieldSpecs<Item> = {
  id: { kind: 'string', get: (item) => item.id },
  name: { kind: 'string', get: (item) => item.name },
};

/** Strings biased towards what breaks quoting: the grammar's own characters and words. */
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('"', '\\', ' ', '(', ')', ',', '%', 'a', 'n', 'd', 'o', 'r', 'e', 'q', '\n', '\t', '\u0000'), maxLength: 30 }),
  fc.constantFrom('', '"', '\\', '\\"', '" or name ne "', 'x" or "1" eq "1', 'null', 'true', '12', 'and', '(', ')', 'a,b', '\\\\"\\'),
);

const names = fc.uniqueArray(nasty, { minLength: 1, maxLength: 8 });

describe('management filter builder: property tests against the simulator parser', () => {
  it('any string value round-trips through `name eq "..."` unchanged', () => {
    fc.assert(
      fc.property(nasty, (value) => {
        expect(parseFilter(eq('name', value).toString())).toEqual({ type: 'cmp', field: 'name', op: 'eq', value, quoted: true });
      }),
      { numRuns: 500 },
    );
  });

  it('`name eq` selects exactly the item with that name among near-misses', () => {
    fc.assert(
      fc.property(names, fc.nat(), (list, pick) => {
        const items: Item[] = list.map((name, index) => ({ id: `id-${index}`, name }));
        const wanted = items[pick % items.length] as Item;
        const { predicate } = compileFilter(eq('name', wanted.name).toString(), FIELDS);
        expect(items.filter(predicate)).toEqual([wanted]);
        const { predicate: negated } = compileFilter(not(eq('name', wanted.name)).toString(), FIELDS);
        expect(items.filter(negated)).toEqual(items.filter((item) => item !== wanted));
      }),
      { numRuns: 300 },
    );
  });

  it('`in (...)` lists and connectives keep every value intact', () => {
    fc.assert(
      fc.property(names, nasty, (list, other) => {
        const items: Item[] = list.map((name, index) => ({ id: `id-${index}`, name }));
        const chosen = items.filter((_, index) => index % 2 === 0);
        const text = isIn('name', chosen.map((item) => item.name)).toString();
        expect(items.filter(compileFilter(text, FIELDS).predicate)).toEqual(chosen);
        // In a chain beside a negated comparison: each value still binds where it was built.
        const combined = and(not(eq('name', other)), isIn('name', chosen.map((item) => item.name)), not(eq('id', 'id-0'))).toString();
        const expected = items.filter((item) => item.name !== other && chosen.includes(item) && item.id !== 'id-0');
        expect(items.filter(compileFilter(combined, FIELDS).predicate)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
