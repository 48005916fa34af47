/**
 * Builder for the management service's filter grammar, exactly as published:
 *   filter           := logic-expression [ (and | or) logic-expression ] ...
 *   logic-expression := [not] <field-name> <operator> <value> | (<value1>, <value2> ...)
 * so `not` prefixes one comparison (there is no `not in` operator) and there are no parenthesised groups. Only and-chains
 * are built, all the exporter needs; anything else throws here rather than becoming a request the service answers with 400.
 * String values are quoted and escaped, and field names checked against a strict pattern, so no value can inject grammar.
 */
export type FilterValue = string | number | boolean | Date | null;

export class Filter {
  /** built by the functions below: one (possibly negated) comparison, or an and-chain of them */
  constructor(
    private readonly text: string,
    readonly kind: 'comparison' | 'negated' | 'and',
  ) {}

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
  return (name: string, value: FilterValue): Filter => new Filter(`${field(name)} ${op} ${literal(value)}`, 'comparison');
}

export const eq = comparison('eq');
export const ge = comparison('ge');
export const lt = comparison('lt');

/** `field in ("a","b")`; an empty list is refused (the grammar has no empty list). */
export function isIn(name: string, values: readonly FilterValue[]): Filter {
  if (values.length === 0) throw new TypeError(`empty list for ${name} in (...)`);
  return new Filter(`${field(name)} in (${values.map(literal).join(',')})`, 'comparison');
}

/** `not <comparison>`: the grammar's only negation, of one comparison (`not state in ("A")`; true for a null state). */
export function not(expression: Filter): Filter {
  if (expression.kind !== 'comparison') {
    const what = expression.kind === 'negated' ? 'a negated one' : 'an and-chain';
    throw new TypeError(`not prefixes one comparison, not ${what}`);
  }
  return new Filter(`not ${expression.toString()}`, 'negated');
}

export const isNull = (name: string): Filter => eq(name, null);

/** Joins expressions with `and`; undefined parts are skipped (handy for optional conditions). */
export function and(...parts: ReadonlyArray<Filter | undefined>): Filter {
  const present = parts.filter((p): p is Filter => p !== undefined);
  if (present.length === 0) throw new TypeError('and() needs at least one expression');
  if (present.length === 1) return present[0] as Filter;
  return new Filter(present.map(String).join(' and '), 'and');
}
