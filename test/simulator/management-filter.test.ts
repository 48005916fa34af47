/**
 * The management service's filter language as the simulator reads it: every
 * operator, the connectives and their precedence, null, dotted fields, lists,
 * escaping, lk wildcards, instants, and the errors a caller gets a 400 for.
 */
import {
  FilterError,
  boundsOf,
  compileFilter,
  isPureRange,
  parseFilter,
  parseOrderBy,
  pinnedValues,
  type FieldSpecs,
} from '../../simulator/management/filter';

interface Row {
  id: string;
  name: string | null;
  size: number;
  deleted: boolean;
  time: number | null;
  status: string;
}

const ROWS: Row[] = [
  { id: 'a', name: 'web "frontend" 1', size: 10, deleted: false, time: Date.parse('2026-11-20T00:00:00Z'), status: 'OK' },
  { id: 'b', name: 'C:\\Data\\share', size: 20, deleted: true, time: Date.parse('2026-11-20T06:00:00Z'), status: 'FAILED' },
  { id: 'c', name: 'Datenbank-Müller', size: 30, deleted: false, time: null, status: 'OK_WITH_ERRORS' },
  { id: 'd', name: null, size: 40, deleted: false, time: Date.parse('2026-11-21T00:00:00Z'), status: 'CANCELED' },
];

const FIELDS: FieldSpecs<Row> = {
  id: { kind: 'string', get: (r) => r.id },
  name: { kind: 'string', get: (r) => r.name },
  size: { kind: 'number', get: (r) => r.size },
  deleted: { kind: 'boolean', get: (r) => r.deleted },
  lastAvailableCopyTime: { kind: 'time', get: (r) => r.time },
  'result.status': { kind: 'string', get: (r) => r.status },
};

function ids(filter: string): string[] {
  const { predicate } = compileFilter(filter, FIELDS);
  return ROWS.filter(predicate).map((r) => r.id);
}

describe('management filter: operators', () => {
  it.each([
    ['size eq 20', ['b']],
    ['size ne 20', ['a', 'c', 'd']],
    ['size gt 20', ['c', 'd']],
    ['size ge 20', ['b', 'c', 'd']],
    ['size lt 20', ['a']],
    ['size le 20', ['a', 'b']],
    ['id in ("a","c")', ['a', 'c']],
    ['id in ("a", "c", "zz")', ['a', 'c']],
    ['not id in ("a","c")', ['b', 'd']],
    ['name lk "%share"', ['b']],
    ['name lk "web%"', ['a']],
    ['name lk "%MÜLLER%"', ['c']],
    ['name lk "Datenbank-Müller"', ['c']],
    ['deleted eq true', ['b']],
    ['deleted eq false', ['a', 'c', 'd']],
  ])('%s', (filter, expected) => {
    expect(ids(filter)).toEqual(expected);
  });

  it('compares timestamps as instants, whatever their spelling', () => {
    expect(ids('lastAvailableCopyTime ge "2026-11-20T06:00:00Z"')).toEqual(['b', 'd']);
    expect(ids('lastAvailableCopyTime ge "2026-11-20T07:00:00+01:00"')).toEqual(['b', 'd']);
    expect(ids('lastAvailableCopyTime gt "2026-11-20T06:00:00.000Z"')).toEqual(['d']);
    expect(ids('lastAvailableCopyTime lt "2026-11-20T06:00:00Z"')).toEqual(['a']);
    expect(ids('lastAvailableCopyTime eq "2026-11-20"')).toEqual(['a']);
    // a null time is neither before nor after anything
    expect(ids('lastAvailableCopyTime lt "2030-01-01T00:00:00Z"')).toEqual(['a', 'b', 'd']);
  });

  it('null compares with eq and ne only', () => {
    expect(ids('lastAvailableCopyTime eq null')).toEqual(['c']);
    expect(ids('lastAvailableCopyTime ne null')).toEqual(['a', 'b', 'd']);
    expect(ids('name eq null')).toEqual(['d']);
    expect(ids('name in (null, "C:\\\\Data\\\\share")')).toEqual(['b', 'd']);
    expect(() => ids('size gt null')).toThrow(FilterError);
  });

  it('reads dotted fields', () => {
    expect(ids('result.status eq "FAILED"')).toEqual(['b']);
    expect(ids('result.status in ("OK", "OK_WITH_ERRORS")')).toEqual(['a', 'c']);
    // enumeration constants may go bare, as in the seed's examples
    expect(ids('result.status in (OK, OK_WITH_ERRORS)')).toEqual(['a', 'c']);
  });

  it('unescapes \\" and \\\\ inside strings', () => {
    expect(ids('name eq "web \\"frontend\\" 1"')).toEqual(['a']);
    expect(ids('name eq "C:\\\\Data\\\\share"')).toEqual(['b']);
    expect(parseFilter('name eq "a\\"b\\\\c"')).toEqual({ type: 'cmp', field: 'name', op: 'eq', value: 'a"b\\c', quoted: true });
    // grammar words inside a string are just text
    expect(parseFilter('name eq "x or id eq y"')).toMatchObject({ type: 'cmp', value: 'x or id eq y' });
  });
});

describe('management filter: the published examples parse', () => {
  // From docs/api/api-notes.md and the seed documents.
  it.each([
    'lastAvailableCopyTime ne null',
    'result.status eq "FAILED"',
    'assetId in ("a","b")',
    'not state in ("DELETED","SOFT_DELETED")',
    'classType in ("JOB","JOB_GROUP") and startTime ge "2026-11-20T00:00:00Z"',
    'name lk "db%"',
    'protectionStatus eq "PROTECTED" and deleted eq false',
    'type eq HV_MANAGER',
    'type eq CDR_STORAGE and subtype eq CDR_CONTAINER and lastDiscoveryStatus ne NOT_DETECTED',
  ])('%s', (filter) => {
    expect(() => parseFilter(filter)).not.toThrow();
  });
});

describe('management filter: connectives', () => {
  it('and-chains and or-chains; a mixed chain reads with and binding tighter', () => {
    expect(ids('size ge 20 and size le 30 and deleted eq false')).toEqual(['c']);
    expect(ids('id eq "a" or id eq "d"')).toEqual(['a', 'd']);
    expect(ids('id eq "a" or id eq "b" and deleted eq false')).toEqual(['a']);
  });

  it('not negates the one expression it prefixes', () => {
    expect(ids('not deleted eq true')).toEqual(['a', 'c', 'd']);
    expect(ids('deleted eq false and not id in ("a")')).toEqual(['c', 'd']);
    expect(ids('not name eq null or size eq 40')).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('management filter: errors are the caller’s (400)', () => {
  it.each([
    ['', /empty filter/],
    ['size', /end of filter/],
    ['size eq', /end of filter/],
    ['size eq 1 and', /end of filter/],
    ['size equals 1', /unknown operator equals/],
    ['(size eq 1', /parentheses group nothing but a list/],
    ['size eq 1)', /expected and or or at position 10/],
    ['name eq "open', /unterminated string/],
    ['id in ("a" "b")', /expected "," or "\)"/],
    ['and eq 1', /expected a field name/],
    ['colour eq "red"', /unknown field "colour"/],
    ['size eq "ten"', /takes a number/],
    ['deleted eq "yes"', /takes true or false/],
    ['lastAvailableCopyTime gt "yesterday"', /ISO 8601/],
    ['lastAvailableCopyTime gt "12"', /ISO 8601/],
    ['size lk "1%"', /text fields only/],
  ])('%j', (filter, message) => {
    expect(() => compileFilter(filter, FIELDS)).toThrow(FilterError);
    expect(() => compileFilter(filter, FIELDS)).toThrow(message);
  });

  // The forms the product's grammar does not derive, each answered with 400 by the product.
  it.each([
    ['state not in ("DELETED","SOFT_DELETED")', /unknown operator not/],
    ['not (size eq 1 and id eq "a")', /parentheses group nothing but a list/],
    ['(size eq 1 or size eq 2) and id eq "a"', /parentheses group nothing but a list/],
    ['not not size eq 1', /expected a field name/],
    ['size gteq 1', /unknown operator gteq/],
    ['name eq web', /unquoted string "web"/],
    ['name eq "a" and id eq b', /unquoted string "b"/],
    ['lastAvailableCopyTime lt 2026-11-20T06:00:00Z', /unquoted string/],
    ['id in ()', /empty list/],
    ['id in "a"', /in takes a list/],
    ['size eq (1, 2)', /expected a value/],
    ['id EQ "a"', /unknown operator EQ/],
    ['name eq"a"', /blank before the string/],
    ['name eq "a"and size gt 1', /blank after the string/],
    ['name eq "a\\qb"', /only \\" and \\\\ escapes/],
    ['name eq 123', /takes a string, got 123/],
    ['name eq true', /takes a string, got true/],
  ])('near-miss %j', (filter, message) => {
    expect(() => compileFilter(filter, FIELDS)).toThrow(message);
  });

  it('refuses an unknown field even inside a branch that would not be evaluated', () => {
    expect(() => compileFilter('id eq "a" or nope eq 1', FIELDS)).toThrow(/unknown field "nope"/);
  });
});

describe('management filter: what the lists read from a filter', () => {
  it('bounds on the sort field come from the top-level and chain only', () => {
    const ast = parseFilter('lastAvailableCopyTime ge "2026-11-20T00:00:00Z" and size gt 1 and lastAvailableCopyTime lt "2026-11-21T00:00:00Z"');
    expect(boundsOf(ast, 'lastAvailableCopyTime', 'time')).toEqual({
      min: Date.parse('2026-11-20T00:00:00Z'),
      minInclusive: true,
      max: Date.parse('2026-11-21T00:00:00Z'),
      maxInclusive: false,
    });
    expect(boundsOf(parseFilter('lastAvailableCopyTime ge "2026-11-20" or size gt 1'), 'lastAvailableCopyTime', 'time')).toEqual({ minInclusive: true, maxInclusive: true });
    expect(isPureRange(parseFilter('lastAvailableCopyTime gt "2026-11-20" and lastAvailableCopyTime le "2026-11-21"'), 'lastAvailableCopyTime')).toBe(true);
    expect(isPureRange(parseFilter('lastAvailableCopyTime gt "2026-11-20" and size eq 1'), 'lastAvailableCopyTime')).toBe(false);
  });

  it('pinned values: what eq / in fix a field to', () => {
    expect(pinnedValues(parseFilter('assetId in ("a","b") and location eq "LOCAL"'), 'assetId')).toEqual(['a', 'b']);
    expect(pinnedValues(parseFilter('assetId eq "a"'), 'assetId')).toEqual(['a']);
    expect(pinnedValues(parseFilter('assetId eq "a" or assetId eq "b"'), 'assetId')).toBeUndefined();
    expect(pinnedValues(parseFilter('not assetId in ("a")'), 'assetId')).toBeUndefined();
    expect(pinnedValues(parseFilter('location eq "LOCAL"'), 'assetId')).toBeUndefined();
  });

  it('orderby takes field [ASC|DESC] terms on known fields', () => {
    expect(parseOrderBy('lastAvailableCopyTime DESC, name', FIELDS)).toEqual([
      { field: 'lastAvailableCopyTime', descending: true },
      { field: 'name', descending: false },
    ]);
    expect(() => parseOrderBy('colour DESC', FIELDS)).toThrow(/unknown field/);
    expect(() => parseOrderBy('name SIDEWAYS', FIELDS)).toThrow(/ASC or DESC/);
  });
});
