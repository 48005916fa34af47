/**
 * Builder for the management service's filter grammar, exactly as published:
 *
 *   filter           := logic-expression [ (and | or) logic-expression ] ...
 *   logic-expression := [not] <field-name> <operator> <value> | (<value1>, <value2> ...)
 *
 * so `not` prefixes one comparison (`not state in ("A","B")`: there is no
 * `not in` operator), and there are no parenthesised groups: a filter is one
 * and-chain or one or-chain. Anything else throws here, at build time, rather
 * than becoming a request the service answers with 400.
 *
 *   and(eq('name', 'db "prod"'), ge('updateTime', since)).toString()
 *   // name eq "db \"prod\"" and updateTime ge "2026-11-20T00:00:00.000Z"
 *
 * Every string value is quoted and escaped (backslash and double quote), so a
 * value can never end the string early and inject grammar; field names are
 * checked against a strict pattern for the same reason.
 */
export type FilterValue = string | number | boolean | Date | null;

type Shape = 'comparison' | 'negated' | 'and' | 'or';

export class Filter {
  private constructor(
    private readonly text: string,
    /** one (possibly negated) comparison, or a chain of them joined by one connective */
    private readonly shape: Shape,
  ) {}

  /** @internal used by the builder functions below */
  static of(text: string, shape: Shape): Filter {
    return new Filter(text, shape);
  }

  /** @internal */
  get kind(): Shape {
    return this.shape;
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
  return (name: string, value: FilterValue): Filter => Filter.of(`${field(name)} ${op} ${literal(value)}`, 'comparison');
}

export const eq = comparison('eq');
export const ne = comparison('ne');
export const ge = comparison('ge');
export const lt = comparison('lt');

/** `field lk "pattern"`; `%` in the pattern is the wildcard. */
export function lk(name: string, pattern: string): Filter {
  return Filter.of(`${field(name)} lk ${quote(pattern)}`, 'comparison');
}

/** `field in ("a","b")`; an empty list is refused (the grammar has no empty list). */
export function isIn(name: string, values: readonly FilterValue[]): Filter {
  if (values.length === 0) throw new TypeError(`empty list for ${name} in (...)`);
  return Filter.of(`${field(name)} in (${values.map(literal).join(',')})`, 'comparison');
}

/** `not <comparison>`: the grammar's only negation, of one comparison (`not state in ("A")`; true for a null state). */
export function not(expression: Filter): Filter {
  if (expression.kind !== 'comparison') {
    const what = expression.kind === 'negated' ? 'a negated one' : `an ${expression.kind}-chain`;
    throw new TypeError(`not prefixes one comparison, not ${what}`);
  }
  return Filter.of(`not ${expression.toString()}`, 'negated');
}

/** `field eq null` */
export const isNull = (name: string): Filter => eq(name, null);
/** `field ne null` */
export const notNull = (name: string): Filter => ne(name, null);

function join(connective: 'and' | 'or', parts: ReadonlyArray<Filter | undefined>): Filter {
  const present = parts.filter((p): p is Filter => p !== undefined);
  if (present.length === 0) throw new TypeError(`${connective}() needs at least one expression`);
  if (present.length === 1) return present[0] as Filter;
  for (const part of present) {
    const other = connective === 'and' ? 'or' : 'and';
    // The grammar has no groups: `a or b` inside an and-chain cannot be written.
    if (part.kind === other) throw new TypeError(`an ${other}-chain in an ${connective}-chain: the filter grammar has no parentheses`);
  }
  return Filter.of(present.map(String).join(` ${connective} `), connective);
}

/** Joins expressions with `and`; undefined parts are skipped (handy for optional conditions). */
export function and(...parts: ReadonlyArray<Filter | undefined>): Filter {
  return join('and', parts);
}

export function or(...parts: ReadonlyArray<Filter | undefined>): Filter {
  return join('or', parts);
}
