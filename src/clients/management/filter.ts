/**
 * Builder for the management service's filter grammar:
 * `field op value` joined by `and` / `or`, strings in double quotes, the `null`
 * literal, lists in parentheses, dotted field names.
 *
 *   and(eq('name', 'db "prod"'), ge('updateTime', since)).toString()
 *   // name eq "db \"prod\"" and updateTime ge "2026-11-20T00:00:00.000Z"
 *
 * Every string value is quoted and escaped (backslash and double quote), so a
 * value can never end the string early and inject grammar; field names are
 * checked against a strict pattern for the same reason.
 */
export type FilterValue = string | number | boolean | Date | null;

export class Filter {
  private constructor(
    private readonly text: string,
    /** the connective at the top level, to decide when a nested group needs parentheses */
    readonly connective: 'and' | 'or' | undefined,
  ) {}

  /** @internal used by the builder functions below */
  static of(text: string, connective?: 'and' | 'or'): Filter {
    return new Filter(text, connective);
  }

  toString(): string {
    return this.text;
  }
}

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function field(name: string): string {
  if (!FIELD.test(name)) throw new TypeError(`not a valid filter field name: ${JSON.stringify(name)}`);
  return name;
}

/** A string in double quotes with `\` and `"` escaped by a backslash. */
export function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A value as a filter literal: strings and dates quoted, numbers and booleans bare, null as `null`. */
export function literal(value: FilterValue): string {
  if (value === null) return 'null';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('invalid Date in a filter');
    return quote(value.toISOString());
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number in a filter: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  return quote(value);
}

function comparison(op: string) {
  return (name: string, value: FilterValue): Filter => Filter.of(`${field(name)} ${op} ${literal(value)}`);
}

export const eq = comparison('eq');
export const ne = comparison('ne');
export const ge = comparison('ge');
export const lt = comparison('lt');

/** `field lk "pattern"`; `%` in the pattern is the wildcard. */
export function lk(name: string, pattern: string): Filter {
  return Filter.of(`${field(name)} lk ${quote(pattern)}`);
}

/** `field in (...)` and `field not in (...)`; an empty list is refused (the grammar has no empty list). */
function membership(op: string) {
  return (name: string, values: readonly FilterValue[]): Filter => {
    if (values.length === 0) throw new TypeError(`empty list for ${name} ${op} (...)`);
    return Filter.of(`${field(name)} ${op} (${values.map(literal).join(',')})`);
  };
}

/** `field in ("a","b")` */
export const isIn = membership('in');
/** `field not in ("a","b")`: also true for an item whose field is null. */
export const notIn = membership('not in');

/** `field eq null` */
export const isNull = (name: string): Filter => eq(name, null);
/** `field ne null` */
export const notNull = (name: string): Filter => ne(name, null);

function join(connective: 'and' | 'or', parts: ReadonlyArray<Filter | undefined>): Filter {
  const present = parts.filter((p): p is Filter => p !== undefined);
  if (present.length === 0) throw new TypeError(`${connective}() needs at least one expression`);
  if (present.length === 1) return present[0] as Filter;
  // Parentheses only where a nested group uses the other connective: the plain
  // chains the collectors send stay in the simplest form of the grammar.
  const text = present
    .map((p) => (p.connective !== undefined && p.connective !== connective ? `(${p.toString()})` : p.toString()))
    .join(` ${connective} `);
  return Filter.of(text, connective);
}

/** Joins expressions with `and`; undefined parts are skipped (handy for optional conditions). */
export function and(...parts: ReadonlyArray<Filter | undefined>): Filter {
  return join('and', parts);
}

export function or(...parts: ReadonlyArray<Filter | undefined>): Filter {
  return join('or', parts);
}

